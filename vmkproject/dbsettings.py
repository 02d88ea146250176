"""The listings alias's DATABASES entry, built from a URL or from the DB_* parts.

Pure functions of the values settings.py read from the environment, so that tests can call
them. The DB_* parts go straight into the dict: pasted into a URL, a socket directory
(`/var/run/postgresql`) or an IPv6 address (`::1`) would not parse back.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

ENGINE = "vmkproject.pgbackend"


POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql", "postgis")
URL_WANTED = "{setting} must be {kind} (it {found})"


def _found(url: str) -> str:
    # the scheme only: the rest of a URL may hold a password
    scheme = urlsplit(url).scheme
    return f"begins {scheme}://" if scheme else "has no scheme://"


def from_url(url: str, setting: str = "LISTINGS_DATABASE_URL") -> dict[str, Any]:
    """LISTINGS_DATABASE_URL: `postgres://user:pw@host:port/name?options=...`.

    The host may be `[::1]`, a percent-encoded socket directory (`%2Fvar%2Frun%2Fpostgresql`)
    or libpq's `?host=/var/run/postgresql`. Anything else stops the start naming `setting`
    (django-environ would warn with the parsed URL, password and all).
    """
    kind = "a PostgreSQL URL, postgres://user:password@host:port/name"
    if urlsplit(url).scheme not in POSTGRES_SCHEMES:
        raise ImproperlyConfigured(URL_WANTED.format(setting=setting, kind=kind, found=_found(url)))
    config = environ.Env.db_url_config(url)
    if not config.get("NAME"):
        found = "names no database"
        raise ImproperlyConfigured(URL_WANTED.format(setting=setting, kind=kind, found=found))
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


def default_from_url(url: str) -> dict[str, Any]:
    """DATABASE_URL, the project's own database: any URL django-environ knows (sqlite:///...,
    postgres://...); anything else stops the start naming the setting."""
    if urlsplit(url).scheme not in environ.Env.DB_SCHEMES:
        kind = "a database URL such as sqlite:///path or postgres://user:password@host/name"
        raise ImproperlyConfigured(
            URL_WANTED.format(setting="DATABASE_URL", kind=kind, found=_found(url))
        )
    return environ.Env.db_url_config(url)


def merge_session_options(config: dict[str, Any], session_options: str) -> None:
    """Add our `-c ...` session settings to the `options` the URL may carry (a search_path,
    say): the database's own come first, ours after, so that read-only always wins."""
    options = config.setdefault("OPTIONS", {})
    given = str(options.get("options") or "").strip()
    options["options"] = f"{given} {session_options}" if given else session_options
