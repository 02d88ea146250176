"""Listing contacts (`contact_phone`, `contact_name`) are third parties' personal data.

Every interface passes its results through `redact` on the way out: MCP tools and
resources (mcpserver.runner, by the caller's `contacts:read` scope), the shell commands
(masked unless --show-contacts). The admin shows them to staff with the
`listings.view_contacts` permission and masks them, with the same functions, otherwise.
"""

from __future__ import annotations

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


def _masked(value: Any) -> tuple[Any, bool]:
    """`value` with every contact field inside it masked, and whether any was there."""
    if isinstance(value, BaseModel):
        changes: dict[str, Any] = {}
        found = False
        for name in type(value).model_fields:
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
