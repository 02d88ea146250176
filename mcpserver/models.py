"""Agent API keys and the audit log of tool calls, in Django's own `default` database."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class AgentKeyStatus(models.TextChoices):
    ACTIVE = "active", "діє"
    EXPIRED = "expired", "прострочений"
    REVOKED = "revoked", "відкликаний"


class AgentKeyQuerySet(models.QuerySet["AgentKey"]):
    def usable(self, now: datetime | None = None) -> AgentKeyQuerySet:
        """Keys that open /mcp now: not revoked and not past their expiry."""
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )


class AgentKey(models.Model):
    """A bearer token for /mcp. Only the key's SHA-256 is stored; the key is shown once."""

    name = models.CharField("назва", max_length=100, unique=True)
    # `vmk_` and the next 8 characters: enough to tell keys apart, useless to an attacker.
    prefix = models.CharField("початок ключа", max_length=12, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField("створено", default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="хто створив",
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    expires_at = models.DateTimeField(
        "діє до", null=True, blank=True, help_text="Порожньо: без строку дії."
    )
    revoked_at = models.DateTimeField("відкликано", null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(
        "востаннє використано", null=True, blank=True, editable=False
    )
    contacts_read = models.BooleanField(
        "бачить контакти",
        default=False,
        help_text="Scope contacts:read: телефон і ім'я в оголошеннях без маскування.",
    )
    calls_per_minute = models.PositiveIntegerField(
        "викликів за хвилину",
        null=True,
        blank=True,
        help_text="Порожньо: MCP_CALLS_PER_MINUTE із налаштувань; 0: без обмеження.",
    )
    calls_per_day = models.PositiveIntegerField(
        "викликів за добу",
        null=True,
        blank=True,
        help_text="Порожньо: MCP_CALLS_PER_DAY із налаштувань; 0: без обмеження.",
    )

    objects = AgentKeyQuerySet.as_manager()

    class Meta:
        ordering = ("-created_at",)
        verbose_name = "ключ агента"
        verbose_name_plural = "ключі агентів"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def status(self, now: datetime | None = None) -> AgentKeyStatus:
        if self.revoked_at is not None:
            return AgentKeyStatus.REVOKED
        if self.expires_at is not None and self.expires_at <= (now or timezone.now()):
            return AgentKeyStatus.EXPIRED
        return AgentKeyStatus.ACTIVE


class ToolCall(models.Model):
    """One MCP tool (or resource) call: who, what, how long, how many rows, which error."""

    time = models.DateTimeField("час", default=timezone.now, db_index=True)
    key_name = models.CharField("ключ", max_length=100, db_index=True)
    tool = models.CharField("інструмент", max_length=100, db_index=True)
    # JSON of the call's arguments, cut to ARGUMENTS_MAX_CHARS (see mcpserver.audit).
    arguments = models.JSONField("аргументи", default=dict, blank=True)
    rows = models.IntegerField("рядків", default=0)
    latency_ms = models.FloatField("мс", default=0)
    error_code = models.CharField("код помилки", max_length=50, blank=True, db_index=True)
    # Which server process answered (host:pid): several processes or hosts share the table.
    process = models.CharField("процес", max_length=100, blank=True, default="")

    class Meta:
        ordering = ("-time",)
        verbose_name = "виклик інструмента"
        verbose_name_plural = "журнал викликів"

    def __str__(self) -> str:
        return f"{self.tool} by {self.key_name} at {self.time:%Y-%m-%d %H:%M:%S}"


class QuotaWindow(models.Model):
    """Calls of one caller in one minute or UTC day (see mcpserver.quotas)."""

    caller = models.CharField("хто", max_length=200)
    window = models.CharField("вікно", max_length=10)
    start = models.DateTimeField("початок")
    calls = models.PositiveIntegerField("викликів", default=0)

    class Meta:
        verbose_name = "лічильник квоти"
        verbose_name_plural = "лічильники квот"
        constraints = [
            models.UniqueConstraint(
                fields=["caller", "window", "start"], name="mcpserver_quota_window_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.caller} {self.window} {self.start:%Y-%m-%d %H:%M}: {self.calls}"
