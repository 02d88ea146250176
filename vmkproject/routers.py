"""Send the listings app to the read-only `listings` alias; never write to it or migrate it."""

from __future__ import annotations

from typing import Any

from django.db import models

LISTINGS_ALIAS = "listings"
LISTINGS_APP = "listings"


class ListingsWriteRefused(RuntimeError):
    pass


class ListingsRouter:
    def db_for_read(self, model: type[models.Model], **hints: Any) -> str | None:
        if model._meta.app_label == LISTINGS_APP:
            return LISTINGS_ALIAS
        return None

    def db_for_write(self, model: type[models.Model], **hints: Any) -> str | None:
        if model._meta.app_label == LISTINGS_APP:
            raise ListingsWriteRefused(
                "The listings database is read-only: this project never writes to it."
            )
        return None

    def allow_relation(self, obj1: models.Model, obj2: models.Model, **hints: Any) -> bool | None:
        if obj1._meta.app_label == LISTINGS_APP and obj2._meta.app_label == LISTINGS_APP:
            return True
        return None

    def allow_migrate(
        self, db: str, app_label: str, model_name: str | None = None, **hints: Any
    ) -> bool | None:
        if db == LISTINGS_ALIAS or app_label == LISTINGS_APP:
            return False
        return None
