"""Staff admin for agent keys (create, see once, revoke, re-date) and the read-only audit log."""

from __future__ import annotations

import json
from typing import Any, cast

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from . import keys
from .models import AgentKey, AgentKeyQuerySet, AgentKeyStatus, ToolCall

KEY_CREATED_TEMPLATE = "admin/mcpserver/agentkey/key_created.html"
REVOKED = "Відкликано ключів: {count}. Агенти з ними отримають 401 за кілька секунд."
ALREADY_REVOKED = "Ключ «{name}» уже відкликано."
NO_ERROR = "ok"
# The plain key, between save_model and response_add of the same request; never stored.
_PLAIN_KEY_ATTR = "_vmk_agent_key_plain"


class KeyStatusFilter(admin.SimpleListFilter):
    title = "стан"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(status.value), str(status.label)) for status in AgentKeyStatus]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        now = timezone.now()
        match self.value():
            case AgentKeyStatus.ACTIVE:
                return cast(AgentKeyQuerySet, queryset).usable(now)
            case AgentKeyStatus.EXPIRED:
                return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
            case AgentKeyStatus.REVOKED:
                return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(AgentKey)
class AgentKeyAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "prefix_shown",
        "status_shown",
        "created_at",
        "created_by",
        "expires_at",
        "revoked_at",
        "last_used_at",
    )
    list_select_related = ("created_by",)
    list_filter = (KeyStatusFilter,)
    search_fields = ("name", "prefix")
    actions = ("revoke_selected",)
    # Access: contacts:read and the key's own quotas (empty: the settings').
    access_fields = ("contacts_read", "calls_per_minute", "calls_per_day")
    add_fields = ("name", "expires_at", *access_fields)
    # The hash is never shown; only `expires_at` and access can change after creation.
    change_fields = (
        "name",
        "prefix_shown",
        "status_shown",
        "created_at",
        "created_by",
        "expires_at",
        *access_fields,
        "revoked_at",
        "last_used_at",
    )

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.add_fields if obj is None else self.change_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        editable = {"expires_at", *self.access_fields}
        return tuple(name for name in self.change_fields if name not in editable)

    @admin.display(description="початок ключа", ordering="prefix")
    def prefix_shown(self, obj: AgentKey) -> str:
        return f"{obj.prefix}…"

    @admin.display(description="стан")
    def status_shown(self, obj: AgentKey) -> str:
        return str(obj.status().label)

    def save_model(self, request: HttpRequest, obj: AgentKey, form: Any, change: bool) -> None:
        if not change:
            plain = keys.generate_key()
            keys.set_secret(obj, plain)
            obj.created_by = request.user  # type: ignore[assignment]
            setattr(request, _PLAIN_KEY_ATTR, plain)
        super().save_model(request, obj, form, change)
        keys.forget_cached_keys()

    def response_add(
        self, request: HttpRequest, obj: AgentKey, post_url_continue: str | None = None
    ) -> HttpResponse:
        """Show the new key on a page of its own, once; it is not kept anywhere."""
        plain = getattr(request, _PLAIN_KEY_ATTR, None)
        if plain is None:
            return super().response_add(request, obj, post_url_continue)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Ключ «{obj.name}» створено",
            "opts": self.opts,
            "key": obj,
            "plain_key": plain,
            "changelist_url": reverse("admin:mcpserver_agentkey_changelist"),
        }
        response = TemplateResponse(request, KEY_CREATED_TEMPLATE, context)
        response["Cache-Control"] = "no-store"
        return response

    @admin.action(description="Відкликати вибрані ключі", permissions=["change"])
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[AgentKey]) -> None:
        count = keys.revoke(queryset)
        self.message_user(request, REVOKED.format(count=count), messages.SUCCESS)

    def get_urls(self) -> list[URLPattern]:
        revoke = path(
            "<int:object_id>/revoke/",
            self.admin_site.admin_view(self.revoke_view),
            name="mcpserver_agentkey_revoke",
        )
        return [revoke, *super().get_urls()]

    def revoke_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """The change page's "Відкликати" button (POST only, like any other change)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        key = get_object_or_404(AgentKey, pk=object_id)
        if not self.has_change_permission(request, key):
            return HttpResponse(status=403)
        if keys.revoke(AgentKey.objects.filter(pk=key.pk)):
            self.message_user(request, REVOKED.format(count=1), messages.SUCCESS)
        else:
            self.message_user(request, ALREADY_REVOKED.format(name=key.name), messages.WARNING)
        return HttpResponseRedirect(reverse("admin:mcpserver_agentkey_change", args=[key.pk]))


class ErrorCodeFilter(admin.SimpleListFilter):
    title = "код помилки"
    parameter_name = "error_code"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        codes = (
            ToolCall.objects.exclude(error_code="")
            .order_by("error_code")
            .values_list("error_code", flat=True)
            .distinct()
        )
        return [(NO_ERROR, "без помилки"), *((code, code) for code in codes)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(error_code="" if value == NO_ERROR else value)


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    """Read-only: the log is written only by the server (and pruned by a command)."""

    list_display = (
        "time",
        "key_name",
        "tool",
        "rows",
        "latency_ms",
        "error_shown",
        "arguments_short",
    )
    list_filter = ("tool", "key_name", ErrorCodeFilter)
    date_hierarchy = "time"
    search_fields = ("tool", "key_name")
    show_full_result_count = False  # one COUNT(*) per page view is enough
    fields = (
        "time",
        "key_name",
        "tool",
        "rows",
        "latency_ms",
        "error_shown",
        "process",
        "arguments_json",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="код помилки", ordering="error_code")
    def error_shown(self, obj: ToolCall) -> str:
        return obj.error_code or NO_ERROR

    @admin.display(description="аргументи")
    def arguments_short(self, obj: ToolCall) -> str:
        text = json.dumps(obj.arguments, ensure_ascii=False)
        return text if len(text) <= 120 else text[:119] + "…"

    @admin.display(description="аргументи")
    def arguments_json(self, obj: ToolCall) -> SafeString:
        return format_html("<pre>{}</pre>", json.dumps(obj.arguments, ensure_ascii=False, indent=2))
