"""What the live listings database can do, judged from its catalog and its behaviour.

A database this project did not create may lack the `ukrainian` text search configuration
(FTS_CONFIG), may have one built another way, or may have no HNSW or GIN index. Searches,
describe_schema, /health and check_listings_db all read the same facts from here: probed on
first use in a process, then again whenever the one-minute cache of database facts expires.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from vmkproject.textsearch import FALLBACK_FTS_CONFIG, resolve_config

logger = logging.getLogger("vmk.capabilities")

# Morphology is what a configuration does, not what its dictionaries are called: a plural
# must come back as its dictionary form.
MORPHOLOGY_PROBE = ("квартири", "квартира")

FTS_CONFIG_MISSING = (
    "The text search configuration '{config}' (FTS_CONFIG) does not exist in the listings "
    "database: full-text search uses '{fallback}' instead, without Ukrainian morphology "
    "(words match only in the form written)."
)
NO_MORPHOLOGY = (
    "The text search configuration '{config}' has no Ukrainian morphology: 'квартири' does "
    "not find 'квартира'."
)
HNSW_MISSING = (
    "No HNSW index (vector_cosine_ops) on property_listings.embedding: semantic search "
    "ranks every matching listing exactly, which is slow on a large table."
)
GIN_MISSING = (
    "No GIN index on property_listings.search_vector: full-text search reads the whole table."
)

# The configuration `name` (optionally schema-qualified) as search_path would resolve it.
MORPHOLOGY_SQL = "SELECT %s = ANY(tsvector_to_array(to_tsvector(%s::regconfig, %s)))"
DICTIONARIES_SQL = (
    "SELECT DISTINCT d.dictname FROM pg_ts_config_map m JOIN pg_ts_dict d ON d.oid = m.mapdict "
    "WHERE m.mapcfg = %s::regconfig ORDER BY 1"
)
# Valid, complete indexes on the listings table with their access method, first column,
# operator class and whether they are partial: only a whole-table index serves every
# search's ORDER BY and @@; a partial HNSW index serves the vector searches its WHERE implies.
INDEXES_SQL = (
    "SELECT i.relname, am.amname, pg_get_indexdef(x.indexrelid, 1, true), opc.opcname, "
    "x.indpred IS NOT NULL, i.reltuples::bigint "
    "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
    "JOIN pg_am am ON am.oid = i.relam LEFT JOIN pg_opclass opc ON opc.oid = x.indclass[0] "
    "WHERE x.indrelid = to_regclass('property_listings') AND x.indisvalid AND x.indisready "
    "ORDER BY x.indpred IS NOT NULL, i.relname"
)


@dataclass(frozen=True)
class Capabilities:
    configured_fts_config: str
    fts_config: str = FALLBACK_FTS_CONFIG
    fts_config_found: bool = False
    morphology: bool = False
    dictionaries: tuple[str, ...] = ()
    hnsw_index: str | None = None
    # Every cosine HNSW index on the embedding, whole-table ones first, then partial ones (a
    # denser rebuild beside the old index, one per big city): the planner may pick any.
    vector_indexes: tuple[str, ...] = ()
    # The rows each partial one holds (the catalog's count as of its last VACUUM or ANALYZE).
    partial_index_rows: tuple[tuple[str, int], ...] = ()
    gin_index: str | None = None
    warnings: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        """The facts as describe_schema and /health show them."""
        return {
            "full_text": {
                "configured": self.configured_fts_config,
                "fts_config": self.fts_config,
                "config_found": self.fts_config_found,
                "morphology": self.morphology,
                "dictionaries": list(self.dictionaries),
            },
            "indexes": {
                "vector_hnsw": self.hnsw_index,
                "vector_hnsw_other": [n for n in self.vector_indexes if n != self.hnsw_index],
                "full_text_gin": self.gin_index,
            },
            "warnings": list(self.warnings),
        }


def has_morphology(cursor: Any, config: str) -> bool:
    form, lemma = MORPHOLOGY_PROBE
    cursor.execute(MORPHOLOGY_SQL, [lemma, config, form])
    row = cursor.fetchone()
    return bool(row and row[0])


def probe(cursor: Any, configured: str | None = None) -> Capabilities:
    """Read the capabilities of the database `cursor` is connected to (a few catalog reads)."""
    configured = configured or settings.FTS_CONFIG
    found = resolve_config(cursor, configured)
    config = found or FALLBACK_FTS_CONFIG
    morphology = has_morphology(cursor, config)
    cursor.execute(DICTIONARIES_SQL, [config])
    dictionaries = tuple(row[0] for row in cursor.fetchall())
    cursor.execute(INDEXES_SQL)
    hnsw = gin = None
    vector_indexes: list[str] = []
    partial_rows: list[tuple[str, int]] = []
    for name, method, column, opclass, partial, rows in cursor.fetchall():
        if method == "hnsw" and column == "embedding" and opclass == "vector_cosine_ops":
            vector_indexes.append(name)
            hnsw = hnsw or (None if partial else name)
            if partial:
                partial_rows.append((name, int(rows)))
        if gin is None and method == "gin" and column == "search_vector" and not partial:
            gin = name
    warnings = []
    if found is None:
        warnings.append(FTS_CONFIG_MISSING.format(config=configured, fallback=FALLBACK_FTS_CONFIG))
    elif not morphology:
        warnings.append(NO_MORPHOLOGY.format(config=configured))
    if hnsw is None:
        warnings.append(HNSW_MISSING)
    if gin is None:
        warnings.append(GIN_MISSING)
    return Capabilities(
        configured_fts_config=configured,
        fts_config=config,
        fts_config_found=found is not None,
        morphology=morphology,
        dictionaries=dictionaries,
        hnsw_index=hnsw,
        vector_indexes=tuple(vector_indexes),
        partial_index_rows=tuple(partial_rows),
        gin_index=gin,
        warnings=tuple(warnings),
    )


_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_once(capabilities: Capabilities) -> None:
    with _warned_lock:
        new = [text for text in capabilities.warnings if text not in _warned]
        _warned.update(new)
    for text in new:
        logger.warning("%s", text)


def _probe_listings() -> Capabilities:
    from django.db import connections

    from .runtime import LISTINGS, _database

    with _database(), connections[LISTINGS].cursor() as cursor:
        found = probe(cursor)
    _warn_once(found)
    return found


def current() -> Capabilities:
    """The listings database's capabilities, from the one-minute cache of database facts."""
    from .runtime import remembered

    found: Capabilities = remembered("capabilities", _probe_listings)
    return found
