"""The listings alias's DATABASES entry, built from a URL or from the DB_* parts.

Pure functions of the values settings.py read from the environment, so that tests can call
them. The DB_* parts go straight into the dict: pasted into a URL, a socket directory
(`/var/run/postgresql`) or an IPv6 address (`::1`) would not parse back.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import environ

ENGINE = "vmkproject.pgbackend"


def from_url(url: str) -> dict[str, Any]:
    """LISTINGS_DATABASE_URL: `postgres://user:pw@host:port/name?options=...`.

    The host may be `[::1]`, a percent-encoded socket directory (`%2Fvar%2Frun%2Fpostgresql`)
    or libpq's `?host=/var/run/postgresql`.
    """
    config = environ.Env.db_url_config(url)
    options = dict(config.get("OPTIONS") or {})
    host = str(options.pop("host", "") or config.get("HOST") or "")
    config.update(ENGINE=ENGINE, HOST=unquote(host), PORT=str(config.get("PORT") or ""))
    config["OPTIONS"] = options
    return config


def from_parts(*, host: str, port: str, name: str, user: str, password: str) -> dict[str, Any]:
    """DB_HOST, DB_PORT, DB_NAME, DB_USER, DB_PASSWORD as given (a host, an IP address of
    either family, or a Unix socket directory)."""
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return {
        "ENGINE": ENGINE,
        "NAME": name,
        "USER": user,
        "PASSWORD": password,
        "HOST": host,
        "PORT": str(port).strip(),
        "OPTIONS": {},
    }


def merge_session_options(config: dict[str, Any], session_options: str) -> None:
    """Add our `-c ...` session settings to the `options` the URL may carry (a search_path,
    say): the database's own come first, ours after, so that read-only always wins."""
    options = config.setdefault("OPTIONS", {})
    given = str(options.get("options") or "").strip()
    options["options"] = f"{given} {session_options}" if given else session_options
