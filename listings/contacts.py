"""Listing contacts (`contact_phone`, `contact_name`) are third parties' personal data.

Every interface passes its results through `redact` on the way out: MCP tools and
resources (mcpserver.runner, by the caller's `contacts:read` scope), the shell commands
(masked unless --show-contacts). The admin shows them to staff with the
`listings.view_contacts` permission and masks them, with the same functions, otherwise.
"""

from __future__ import annotations

import datetime
import functools
import typing
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import BaseModel

CONTACT_FIELDS = ("contact_phone", "contact_name")
MASK = "•"
CONTACTS_MASKED = (
    "contact_phone and contact_name are masked: this caller lacks the contacts:read scope."
)
VIEW_CONTACTS_PERMISSION = "listings.view_contacts"

T = TypeVar("T")


def mask_phone(phone: str | None) -> str | None:
    """'+380671234535' → '+38067•••••35': the country and operator code and the last two
    digits stay, every other digit becomes •."""
    if not phone:
        return phone
    digits = [ch for ch in phone if ch.isdigit()]
    if len(digits) < 4:
        return MASK * len(phone)
    keep_head = 5 if len(digits) >= 11 else min(3, len(digits) - 4)
    head = "".join(digits[:keep_head])
    tail = "".join(digits[-2:])
    plus = "+" if phone.strip().startswith("+") else ""
    return f"{plus}{head}{MASK * (len(digits) - keep_head - 2)}{tail}"


def mask_name(name: str | None) -> str | None:
    """'Олена Петренко' → 'О••• П•••': the initials only."""
    if not name or not name.strip():
        return name
    return " ".join(word[0] + MASK * 3 for word in name.split())


def _may_hold_contacts(annotation: Any) -> bool:
    """Whether a field of this type can hold a contact field: a model, a mapping, anything
    untyped, or a container or union of one. Scalars (str, int, datetime, a Literal, list[int])
    cannot. Whatever is not understood here counts as able to."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _may_hold_contacts(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) is typing.Literal:
        return False
    args = typing.get_args(annotation)
    if args:  # list[...], dict[...], X | None: by what they hold (a mapping's keys included)
        origin = typing.get_origin(annotation)
        if isinstance(origin, type) and issubclass(origin, Mapping):
            return True
        return any(arg is not Ellipsis and _may_hold_contacts(arg) for arg in args)
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel | Mapping):
            return True
        return not issubclass(annotation, _SCALARS)
    return True


_SCALARS = (str, bytes, int, float, bool, type(None), datetime.date, datetime.time, Decimal)


@functools.cache
def _fields_to_look_at(model: type[BaseModel]) -> tuple[str, ...]:
    """A model class's fields that are, or may hold, contacts: the rest are never walked (a
    search page's ten cards took 0.1 ms to walk on every call of a caller without the
    contacts:read scope)."""
    return tuple(
        name
        for name, field in model.model_fields.items()
        if name in CONTACT_FIELDS or _may_hold_contacts(field.annotation)
    )


def _masked(value: Any) -> tuple[Any, bool]:
    """`value` with every contact field inside it masked, and whether any was there."""
    if isinstance(value, BaseModel):
        changes: dict[str, Any] = {}
        found = False
        for name in _fields_to_look_at(type(value)):
            item = getattr(value, name)
            if name == "contact_phone":
                changes[name], found = mask_phone(item), True
            elif name == "contact_name":
                changes[name], found = mask_name(item), True
            elif isinstance(item, BaseModel | list | dict):
                new, inner = _masked(item)
                if inner:
                    changes[name], found = new, True
        if found and "contacts_note" in type(value).model_fields:
            changes["contacts_note"] = CONTACTS_MASKED
        return (value.model_copy(update=changes) if found else value), found
    if isinstance(value, list):
        pairs = [_masked(item) for item in value]
        found = any(inner for _, inner in pairs)
        return ([new for new, _ in pairs] if found else value), found
    if isinstance(value, dict):
        found = False
        result: dict[Any, Any] = {}
        for key, item in value.items():
            if key == "contact_phone":
                result[key], found = mask_phone(item), True
            elif key == "contact_name":
                result[key], found = mask_name(item), True
            else:
                result[key], inner = _masked(item)
                found = found or inner
        if found and "contacts_note" in value:
            result["contacts_note"] = CONTACTS_MASKED
        return (result if found else value), found
    return value, False


def redact(result: T, *, show_contacts: bool) -> T:
    """`result` (a pydantic model, a list or a dict) with contacts masked unless
    `show_contacts`; a model with a `contacts_note` field says that they were."""
    if show_contacts:
        return result
    return _masked(result)[0]
