"""Unmanaged mirrors of data_collector's tables in vmk_data.

The other system owns these tables: Django never creates, migrates or writes them. Choices
document the known enum values; a value outside them still loads and displays as it is.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from pgvector.django import VectorField

from .querysets import PropertyListingQuerySet

EMBEDDING_DIM = 768


class DealType(models.TextChoices):
    SALE = "sale", "продаж"
    RENT_LONG = "rent_long", "довгострокова оренда"
    RENT_SHORT = "rent_short", "подобова оренда"


class ListingStatus(models.TextChoices):
    ACTIVE = "active", "активне"
    SOLD = "sold", "продано"
    RENTED = "rented", "здано"
    REMOVED = "removed", "знято"
    ARCHIVED = "archived", "в архіві"


class Currency(models.TextChoices):
    USD = "USD", "долар США"
    EUR = "EUR", "євро"
    UAH = "UAH", "гривня"


class MetroDistanceType(models.TextChoices):
    WALK = "walk", "пішки"
    TRANSPORT = "transport", "транспортом"


class BuildingType(models.TextChoices):
    BRICK = "brick", "цегла"
    PANEL = "panel", "панель"
    MONOLITH = "monolith", "моноліт"
    GAS_BLOCK = "gas_block", "газоблок"
    WOOD = "wood", "дерево"


class RenovationStatus(models.TextChoices):
    COSMETIC = "cosmetic", "косметичний ремонт"
    EURO = "euro", "євроремонт"
    DESIGNER = "designer", "дизайнерський ремонт"
    NONE = "none", "без ремонту"
    CONSTRUCTION = "construction", "будівельний стан"


class BathroomType(models.TextChoices):
    COMBINED = "combined", "суміжний"
    SEPARATE = "separate", "роздільний"
    MULTIPLE = "multiple", "декілька"


class ParkingType(models.TextChoices):
    GROUND = "ground", "наземний"
    UNDERGROUND = "underground", "підземний"
    NONE = "none", "немає"
    GARAGE = "garage", "гараж"


class HeatingType(models.TextChoices):
    CENTRAL = "central", "централізоване"
    AUTONOMOUS = "autonomous", "автономне"
    FLOOR = "floor", "тепла підлога"
    NONE = "none", "немає"


class LayoutType(models.TextChoices):
    STUDIO = "studio", "студія"
    SEPARATE = "separate", "роздільне"
    ADJACENT = "adjacent", "суміжне"


class WindowView(models.TextChoices):
    YARD = "yard", "у двір"
    STREET = "street", "на вулицю"
    PARK = "park", "на парк"
    WATER = "water", "на воду"
    FOREST = "forest", "на ліс"


# Columns that belong to data_collector's bookkeeping: never shown to agents or staff.
SERVICE_FIELDS = frozenset(
    {"raw_data_id", "embedding", "search_vector", "created_at", "updated_at"}
)


class PropertyType(models.Model):
    id = models.IntegerField("ID", primary_key=True)
    slug = models.CharField("код", max_length=64, unique=True)
    name = models.CharField("назва", max_length=128)
    description = models.TextField("опис", null=True, blank=True)

    class Meta:
        managed = False
        db_table = "property_types"
        ordering = ["id"]
        verbose_name = "тип нерухомості"
        verbose_name_plural = "типи нерухомості"

    def __str__(self) -> str:
        return self.name


class PropertyListing(models.Model):
    id = models.BigIntegerField("ID", primary_key=True)
    property_type = models.ForeignKey(
        PropertyType,
        verbose_name="тип нерухомості",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="listings",
    )
    deal_type = models.CharField("тип угоди", max_length=32, choices=DealType.choices, null=True)
    listing_status = models.CharField(
        "статус", max_length=32, choices=ListingStatus.choices, null=True
    )
    title = models.CharField("заголовок", max_length=500, null=True)
    description = models.TextField("опис", null=True)
    generated_description = models.TextField("згенерований опис", null=True)
    price = models.DecimalField("ціна", max_digits=14, decimal_places=2, null=True)
    currency = models.CharField("валюта", max_length=8, choices=Currency.choices, null=True)
    city = models.CharField("місто", max_length=128, null=True)
    district = models.CharField("район", max_length=128, null=True)
    address_raw = models.TextField("адреса", null=True)
    metro_station = models.CharField("станція метро", max_length=128, null=True)
    metro_distance_type = models.CharField(
        "до метро", max_length=32, choices=MetroDistanceType.choices, null=True
    )
    metro_distance_meters = models.IntegerField("відстань до метро, м", null=True)
    rooms_count = models.IntegerField("кімнат", null=True)
    total_area = models.DecimalField(
        "загальна площа, м²", max_digits=10, decimal_places=2, null=True
    )
    living_area = models.DecimalField(
        "житлова площа, м²", max_digits=10, decimal_places=2, null=True
    )
    kitchen_area = models.DecimalField(
        "площа кухні, м²", max_digits=10, decimal_places=2, null=True
    )
    floor = models.IntegerField("поверх", null=True)
    floors_count = models.IntegerField("поверхів у будинку", null=True)
    building_type = models.CharField(
        "тип будинку", max_length=32, choices=BuildingType.choices, null=True
    )
    building_year = models.IntegerField("рік побудови", null=True)
    renovation_status = models.CharField(
        "ремонт", max_length=32, choices=RenovationStatus.choices, null=True
    )
    balcony_count = models.IntegerField("балконів", null=True)
    bathroom_type = models.CharField(
        "санвузол", max_length=32, choices=BathroomType.choices, null=True
    )
    parking_type = models.CharField(
        "паркінг", max_length=32, choices=ParkingType.choices, null=True
    )
    heating_type = models.CharField(
        "опалення", max_length=32, choices=HeatingType.choices, null=True
    )
    layout_type = models.CharField(
        "планування", max_length=32, choices=LayoutType.choices, null=True
    )
    window_view = models.CharField(
        "вид з вікон", max_length=32, choices=WindowView.choices, null=True
    )
    url_source = models.TextField("джерело", null=True)
    publish_date = models.DateTimeField("опубліковано", null=True)
    images_count = models.IntegerField("фото", null=True)
    contact_phone = models.CharField("телефон", max_length=64, null=True)
    contact_name = models.CharField("контактна особа", max_length=255, null=True)
    archived_at = models.DateTimeField("в архіві з", null=True)

    # Service columns.
    raw_data_id = models.BigIntegerField(null=True, editable=False)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, editable=False)
    search_vector = SearchVectorField(null=True, editable=False)
    created_at = models.DateTimeField(null=True, editable=False)
    updated_at = models.DateTimeField(null=True, editable=False)

    objects = PropertyListingQuerySet.as_manager()

    class Meta:
        managed = False
        db_table = "property_listings"
        verbose_name = "оголошення"
        verbose_name_plural = "оголошення"
        # Staff see contact_phone / contact_name in the admin only with it (listings.contacts).
        permissions = [("view_contacts", "Can see listings' contact phone and name")]

    def __str__(self) -> str:
        return f"#{self.id} {self.title or ''}".strip()


USER_FIELDS: tuple[str, ...] = tuple(
    f.attname if f.name != "property_type" else "property_type_id"
    for f in PropertyListing._meta.concrete_fields
    if f.name not in SERVICE_FIELDS
)

# Every column a listing row carries, in table order, but the two derived from the others
# (the embedding and the full-text vector): what the demo generates and loads.
DERIVED_COLUMNS = frozenset({"embedding", "search_vector"})
LISTING_COLUMNS: tuple[str, ...] = tuple(
    f.column for f in PropertyListing._meta.concrete_fields if f.column not in DERIVED_COLUMNS
)
