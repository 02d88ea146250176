"""Check a listings database against what the project needs (check_listings_db)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from django.conf import settings
from django.db import DatabaseError, connections

from . import capabilities
from .models import PropertyListing, PropertyType
from .runtime import LISTINGS

Status = Literal["ok", "warn", "fail"]

INTEGER_TYPES = {"smallint", "integer", "bigint"}
NUMBER_TYPES = INTEGER_TYPES | {"numeric", "double precision", "real"}
TEXT_TYPES = {"character varying", "text", "character"}
MOMENT_TYPES = {"timestamp with time zone", "timestamp without time zone", "date"}
# Model field type → the PostgreSQL types the code reads correctly in its place (any
# integer for ids, any number for prices and areas, a timestamp of either kind or a date).
COMPATIBLE_TYPES = {
    "BigIntegerField": INTEGER_TYPES,
    "IntegerField": INTEGER_TYPES,
    "ForeignKey": INTEGER_TYPES,
    "CharField": TEXT_TYPES,
    "TextField": TEXT_TYPES,
    "DecimalField": NUMBER_TYPES,
    "DateTimeField": MOMENT_TYPES,
    "VectorField": {"USER-DEFINED"},
    "SearchVectorField": {"tsvector"},
}
MIN_PGVECTOR = (0, 8, 0)


@dataclass
class Check:
    name: str
    status: Status
    detail: str


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def _columns(cursor: Any, table: str) -> dict[str, str]:
    cursor.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = %s",
        [table],
    )
    return dict(cursor.fetchall())


def run_checks(
    alias: str = LISTINGS, *, interfaces: Callable[[], list[Check]] | None = None
) -> list[Check]:
    """The catalog checks, then the configured embedder, then `interfaces` (mcpserver.probes:
    every tool, resource and admin page run read-only against the database)."""
    checks: list[Check] = []
    try:
        with connections[alias].cursor() as cursor:
            checks += _run(cursor)
    except DatabaseError:
        checks.append(Check("connection", "fail", "the listings database is not reachable"))
        return checks
    finally:
        # Back to the pool (not inside a caller's transaction: a test's, say).
        if not connections[alias].in_atomic_block:
            connections[alias].close()
    checks += _replica_checks(alias)
    checks.append(_embedder_probe())
    if interfaces is not None:
        checks += interfaces()
    return checks


def _replica_checks(alias: str) -> list[Check]:
    """One line per read replica (LISTINGS_REPLICA_URLS): reachable, a standby, when it last
    replayed a transaction."""
    from vmkproject import replicas

    found = replicas.replica_set(alias)
    checks = []
    for replica, state in zip(found.replicas, replicas.probe_all(alias), strict=True):
        name = f"{replica.name} ({replica.address})"
        if not state["reachable"]:
            checks.append(Check(name, "fail", replicas.REPLICA_UNREACHABLE))
        elif not state["standby"]:
            checks.append(Check(name, "warn", replicas.REPLICA_NOT_STANDBY))
        else:
            ago = state["last_replay_sec_ago"]
            lag_text = (
                "no transaction replayed yet" if ago is None else f"last replayed {ago:g} s ago"
            )
            checks.append(Check(name, "ok", f"a standby; {lag_text}"))
    return checks


def _embedder_probe() -> Check:
    """Embed a probe text with the configured embedder: Ollama down gives the message the
    tools give as embedding_unavailable."""
    from .embedders import get_embedder
    from .errors import SearchError

    embedder = get_embedder()
    try:
        embedder.verify()
    except SearchError as exc:
        return Check("embedder probe", "fail", exc.message)
    except Exception as exc:  # noqa: BLE001 - reported by type, never with internals
        return Check("embedder probe", "fail", f"failed ({type(exc).__name__})")
    return Check("embedder probe", "ok", f"{embedder.name} embeds {embedder.dimension}-d vectors")


def _share(part: int, total: int) -> float:
    return part / total if total else 0.0


def _coverage(total: int, embedded: int, indexed: int, no_status: int) -> list[Check]:
    checks = []
    for name, count, what in (
        ("embedding coverage", embedded, "have embeddings (semantic search)"),
        ("search_vector coverage", indexed, "have a search_vector (full-text search)"),
    ):
        share = _share(count, total)
        checks.append(
            Check(
                name,
                "ok" if share >= 0.9 else "warn",
                f"{count} of {total} listings ({share:.1%}) {what}",
            )
        )
    share = _share(no_status, total)
    checks.append(
        Check(
            "listing_status NULL",
            "warn" if no_status else "ok",
            f"{no_status} of {total} listings ({share:.1%}) have no listing_status",
        )
    )
    return checks


def _run(cursor: Any) -> list[Check]:
    checks = [Check("connection", "ok", "connected")]
    for model in (PropertyListing, PropertyType):
        table = model._meta.db_table
        columns = _columns(cursor, table)
        if not columns:
            checks.append(Check(f"table {table}", "fail", "table is missing"))
            continue
        problems = []
        for field in model._meta.concrete_fields:
            found = columns.get(field.column)
            if found is None:
                problems.append(f"{field.column} missing")
            elif found not in COMPATIBLE_TYPES.get(field.get_internal_type(), {found}):
                problems.append(f"{field.column} is {found}")
        checks.append(
            Check(
                f"table {table}",
                "fail" if problems else "ok",
                "; ".join(problems) or f"{len(model._meta.concrete_fields)} columns as expected",
            )
        )

    cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    row = cursor.fetchone()
    if row is None:
        checks.append(Check("pgvector", "fail", "the vector extension is not installed"))
    elif _version(row[0]) < MIN_PGVECTOR:
        checks.append(Check("pgvector", "warn", f"{row[0]}: iterative index scans need 0.8.0+"))
    else:
        checks.append(Check("pgvector", "ok", row[0]))

    cursor.execute(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = to_regclass('property_listings') AND attname = 'embedding'"
    )
    row = cursor.fetchone()
    expected = f"vector({settings.EMBEDDING_DIM})"
    if row is None:
        checks.append(Check("embedding dimension", "fail", "no embedding column"))
    else:
        checks.append(
            Check(
                "embedding dimension",
                "ok" if row[0] == expected else "fail",
                row[0] if row[0] == expected else f"{row[0]}, expected {expected}",
            )
        )

    probed = capabilities.probe(cursor)
    checks.append(
        Check(
            "HNSW index",
            "ok" if probed.hnsw_index else "fail",
            probed.hnsw_index
            or "no hnsw (embedding vector_cosine_ops) index: semantic "
            "search would scan the whole table",
        )
    )
    checks.append(
        Check(
            "GIN index",
            "ok" if probed.gin_index else "fail",
            probed.gin_index or "no GIN index on search_vector",
        )
    )
    dictionaries = ", ".join(probed.dictionaries)
    if not probed.fts_config_found:
        checks.append(
            Check(
                "text search config",
                "warn",
                f"'{settings.FTS_CONFIG}' does not exist (FTS_CONFIG): full-text search falls "
                f"back to '{probed.fts_config}', without morphology",
            )
        )
    elif not probed.morphology:
        checks.append(
            Check(
                "text search config",
                "warn",
                f"'{probed.fts_config}' ({dictionaries}) has no Ukrainian morphology: "
                "'квартири' does not find 'квартира'",
            )
        )
    else:
        checks.append(
            Check(
                "text search config",
                "ok",
                f"'{probed.fts_config}': {dictionaries}, morphology ('квартири' → 'квартира')",
            )
        )

    cursor.execute("SHOW default_transaction_read_only")
    read_only = cursor.fetchone()[0] == "on"
    checks.append(
        Check(
            "read-only session",
            "ok" if read_only else "fail",
            "default_transaction_read_only = on" if read_only else "sessions are not read-only",
        )
    )
    cursor.execute(
        "SELECT has_table_privilege(current_user, 'property_listings', 'INSERT') "
        "OR has_table_privilege(current_user, 'property_listings', 'UPDATE') "
        "OR has_table_privilege(current_user, 'property_listings', 'DELETE')"
    )
    can_write = bool(cursor.fetchone()[0])
    checks.append(
        Check(
            "read-only role",
            "warn" if can_write else "ok",
            "the configured role could write if a session turned read-only off: "
            "use a SELECT-only role (see README)"
            if can_write
            else "the role can only read",
        )
    )

    cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    row = cursor.fetchone()
    superuser = bool(row and row[0])
    checks.append(
        Check(
            "superuser",
            "warn" if superuser else "ok",
            "the role is a superuser: it can turn read-only off and read any table; "
            "use a SELECT-only role (see README)"
            if superuser
            else "the role is not a superuser",
        )
    )

    cursor.execute(
        "SELECT count(*), count(embedding), count(search_vector), "
        "count(*) FILTER (WHERE listing_status IS NULL) FROM property_listings"
    )
    total, embedded, indexed, no_status = cursor.fetchone()
    checks += _coverage(total, embedded, indexed, no_status)

    from .embedders import get_embedder
    from .runtime import stored_embedder

    stored = stored_embedder()
    current = get_embedder().name
    if stored is None:
        checks.append(Check("embedder", "ok", f"{current} (the database does not record one)"))
    else:
        checks.append(
            Check(
                "embedder",
                "ok" if stored == current else "fail",
                current if stored == current else f"vectors made by {stored}, queries by {current}",
            )
        )
    return checks
