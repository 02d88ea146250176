"""Contacts are personal data: masked in command output unless --show-contacts, and in the
admin for staff without listings.view_contacts."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Annotated, Any, Literal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.urls import reverse
from pydantic import BaseModel, ConfigDict

from listings import contacts, search
from listings.models import PropertyListing

MASKED_PHONE = re.compile(r"^\+38\d{3}•{5}\d{2}$")


@pytest.mark.parametrize(
    ("phone", "masked"),
    [
        ("+380671234535", "+38067•••••35"),
        ("+38 (067) 123-45-35", "+38067•••••35"),
        ("0671234535", "067•••••35"),
        ("12", "••"),
        ("", ""),
        (None, None),
    ],
)
def test_phones_keep_the_operator_code_and_the_last_two_digits(phone, masked):
    assert contacts.mask_phone(phone) == masked


def test_names_keep_only_initials():
    assert contacts.mask_name("Олена Петренко") == "О••• П•••"
    assert contacts.mask_name("  ") == "  "
    assert contacts.mask_name(None) is None


def test_redact_masks_nested_models_and_dicts_and_says_so():
    page = {"listings": [{"id": 1, "contact_phone": "+380671234535", "contacts_note": None}]}
    masked = contacts.redact(page, show_contacts=False)
    assert masked["listings"][0] == {
        "id": 1,
        "contact_phone": "+38067•••••35",
        "contacts_note": contacts.CONTACTS_MASKED,
    }
    assert page["listings"][0]["contact_phone"] == "+380671234535"  # the input is not changed
    assert contacts.redact(page, show_contacts=True) is page
    untouched = {"listings": [{"id": 1}]}
    assert contacts.redact(untouched, show_contacts=False) is untouched


class _Holder:
    """A type the walk does not know: its values are looked into."""


class _Inner(BaseModel):
    contact_name: str | None = None


class _Outer(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    title: str = "t"
    ids: list[int] = []
    kind: Literal["a", "b"] = "a"
    inner: list[_Inner] = []
    maybe: _Inner | None = None
    loose: Any = None
    mapping: dict[str, Any] = {}
    annotated: Annotated[list[_Inner], "meta"] = []
    unknown: _Holder | None = None


def test_only_fields_that_may_hold_contacts_are_walked_and_all_of_those_are():
    walked = contacts._fields_to_look_at(_Outer)
    assert set(walked) == {"inner", "maybe", "loose", "mapping", "annotated", "unknown"}
    name = "Олена Петренко"
    value = _Outer(
        inner=[_Inner(contact_name=name)],
        maybe=_Inner(contact_name=name),
        loose={"contact_name": name},
        mapping={"x": [{"contact_name": name}]},
        annotated=[_Inner(contact_name=name)],
    )
    masked = contacts.redact(value, show_contacts=False)
    assert masked.inner[0].contact_name == masked.maybe.contact_name == "О••• П•••"
    assert masked.loose["contact_name"] == masked.mapping["x"][0]["contact_name"] == "О••• П•••"
    assert masked.annotated[0].contact_name == "О••• П•••"
    assert name not in masked.model_dump_json()


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_show_listing_masks_contacts_unless_asked():
    listing = search.get_listing(listing_id=1)
    assert listing.contact_phone and not MASKED_PHONE.match(listing.contact_phone)

    out = StringIO()
    call_command("show_listing", "1", stdout=out)
    masked = json.loads(out.getvalue())
    assert MASKED_PHONE.match(masked["contact_phone"])
    assert masked["contact_name"] == contacts.mask_name(listing.contact_name)
    assert masked["contacts_note"] == contacts.CONTACTS_MASKED
    assert listing.contact_phone not in out.getvalue()

    out = StringIO()
    call_command("show_listing", "1", "--show-contacts", stdout=out)
    shown = json.loads(out.getvalue())
    assert (shown["contact_phone"], shown["contact_name"]) == (
        listing.contact_phone,
        listing.contact_name,
    )
    assert shown["contacts_note"] is None


def permission(codename: str) -> Permission:
    return Permission.objects.get_or_create(
        codename=codename,
        content_type=ContentType.objects.get_for_model(PropertyListing),
        defaults={"name": codename},
    )[0]


@pytest.mark.django_db(databases=["default", "listings"])
@pytest.mark.usefixtures("listings_access")
def test_the_admin_shows_contacts_only_with_the_permission(client):
    listing = search.get_listing(listing_id=1)
    user = get_user_model().objects.create_user("clerk", password="pw-not-used", is_staff=True)
    user.user_permissions.add(permission("view_propertylisting"))
    client.force_login(user)
    url = reverse("admin:listings_propertylisting_change", args=[1])

    page = client.get(url).content.decode()
    assert listing.contact_phone not in page
    assert contacts.mask_phone(listing.contact_phone) in page

    user.user_permissions.add(permission("view_contacts"))
    user = get_user_model().objects.get(pk=user.pk)  # a fresh permission cache
    client.force_login(user)
    page = client.get(url).content.decode()
    assert listing.contact_phone in page
    assert contacts.mask_phone(listing.contact_phone) not in page
