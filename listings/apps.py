from django.apps import AppConfig


class ListingsConfig(AppConfig):
    name = "listings"
    verbose_name = "Оголошення"
    default_auto_field = "django.db.models.BigAutoField"
