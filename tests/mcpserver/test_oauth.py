"""OAuth 2.1 end to end: an MCP host (the SDK's OAuthClientProvider) discovers the server,
registers, a staff user signs in and consents over HTTP, and the token calls tools; expired,
wrong-audience and scope-less tokens are refused; without OAuth the 401 says the token is
wrong and /.well-known/ answers JSON."""

from __future__ import annotations

import html
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from mcp import Client

from listings.contacts import CONTACTS_MASKED
from mcpserver import http as mcp_http
from mcpserver import oauth

from .conftest import ROOT, RunningServer, start_server, stop_server

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LIST_TOOLS = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
STAFF = ("olena", "pw-Olena-2026!")
REDIRECT_URI = "http://127.0.0.1:9/callback"
PHONE = re.compile(r"^\+38\d{3}•+\d{2}$")

# Tokens made directly in the database for the refusal tests: (raw token, expires in s,
# resource, scope, granted by the staff user).
SETUP = """
import json, os
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, set_token_value
user = get_user_model().objects.create_user("olena", password="pw-Olena-2026!", is_staff=True)
app = Application.objects.create(
    name="made-in-test", client_type="public", authorization_grant_type="authorization-code",
    redirect_uris="http://127.0.0.1:9/callback", user=user,
)
for raw, seconds, resource, scope, with_user in json.loads(os.environ["TEST_TOKENS"]):
    token = AccessToken(user=user if with_user else None, application=app, scope=scope, resource=resource,
                        expires=timezone.now() + timedelta(seconds=seconds))
    set_token_value(token, raw)
    token.save()
"""


def manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", **env},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@dataclass
class OAuthServer:
    server: RunningServer
    database: Path
    env: dict[str, str]
    tokens: dict[str, str]

    def sql(self, statement: str, *params) -> list[tuple]:
        with sqlite3.connect(self.database) as db:
            return db.execute(statement, params).fetchall()


@pytest.fixture(scope="module")
def oauth_server(listings_db, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oauth")
    database = folder / "django.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}", "OAUTH_SERVER": "true"}
    manage("migrate", "--noinput", env=env)
    # Made before the server starts (SQLite has one writer); bound to its /mcp once it runs.
    resource = "http://resource.invalid/mcp"
    tokens = {
        "expired": ("expired-" + "x" * 40, -60, [resource], "listings:read", True),
        "other_audience": (
            "other-" + "x" * 40,
            3600,
            ["https://other.example/mcp"],
            "listings:read",
            True,
        ),
        "unbound": ("unbound-" + "x" * 40, 3600, [], "listings:read", True),
        "no_scope": ("noscope-" + "x" * 40, 3600, [resource], "contacts:read", True),
        # What a client-credentials grant would give: nobody consented.
        "no_user": ("nouser-" + "x" * 40, 3600, [resource], "listings:read", False),
        "valid": ("valid-" + "x" * 40, 3600, [resource], "listings:read", True),
    }
    manage("shell", "-c", SETUP, env={**env, "TEST_TOKENS": json.dumps(list(tokens.values()))})
    server = start_server(folder, **env)
    with sqlite3.connect(database) as db:
        db.execute(
            "UPDATE oauth2_provider_accesstoken SET resource = replace(resource, ?, ?)",
            (resource, server.mcp_url),
        )
    yield OAuthServer(server, database, env, {name: spec[0] for name, spec in tokens.items()})
    stop_server(server)


# --- the host's side: the SDK's OAuth client, a browser answering the consent -----------------


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


@dataclass
class Browser:
    """The staff user's browser: signs in on the admin's login page and allows the host."""

    base_url: str
    username: str
    password: str
    redirected_to: str = ""
    consent_page: str = ""
    pages: list[str] = field(default_factory=list)

    def authorize(self, authorization_url: str) -> None:
        with httpx.Client(base_url=self.base_url, follow_redirects=False, timeout=30) as web:
            response = web.get(authorization_url)
            self.pages.append(f"GET {urlsplit(authorization_url).path} → {response.status_code}")
            if response.status_code == 302 and "/admin/login/" in response.headers["location"]:
                login_url = response.headers["location"]
                login = web.get(login_url)
                csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
                assert csrf is not None, login.text[:500]
                next_url = parse_qs(urlsplit(login_url).query)["next"][0]
                response = web.post(
                    login_url,
                    data={
                        "csrfmiddlewaretoken": csrf.group(1),
                        "username": self.username,
                        "password": self.password,
                        "next": next_url,
                    },
                )
                self.pages.append(f"POST /admin/login/ → {response.status_code}")
                assert response.status_code == 302, response.text[:500]
                response = web.get(response.headers["location"])
                self.pages.append(f"GET /oauth/authorize/ → {response.status_code}")
            assert response.status_code == 200, response.text[:500]
            self.consent_page = response.text
            form = dict(
                re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', response.text)
            )
            form = {name: html.unescape(value) for name, value in form.items()}
            form["csrfmiddlewaretoken"] = form.get("csrfmiddlewaretoken", "")
            form["allow"] = "Authorize"
            response = web.post(authorization_url, data=form)
            self.pages.append(f"POST /oauth/authorize/ (allow) → {response.status_code}")
            assert response.status_code == 302, response.text[:500]
            self.redirected_to = response.headers["location"]

    def callback(self):
        from mcp.shared.auth import AuthorizationCodeResult

        query = parse_qs(urlsplit(self.redirected_to).query)
        return AuthorizationCodeResult(
            code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0]
        )


async def host_session(
    url: str, browser: Browser, storage: MemoryStorage, calls, providers: list | None = None
):
    """Connect as an MCP host with OAuth; run `calls(client)`; the HTTP exchanges seen.
    The SDK's OAuth provider is appended to `providers`."""
    import httpx2
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import OAuthClientMetadata

    exchanges: list[str] = []

    async def record(response) -> None:
        exchanges.append(
            f"{response.request.method} {response.request.url.path} {response.status_code}"
        )

    async def redirect(authorization_url: str) -> None:
        browser.authorize(authorization_url)

    async def callback():
        return browser.callback()

    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="Test MCP host",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    if providers is not None:
        providers.append(provider)
    http = httpx2.AsyncClient(auth=provider, event_hooks={"response": [record]}, timeout=60)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        result = await calls(client)
    return exchanges, result


def listing_of(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


@pytest.mark.anyio
async def test_a_host_signs_a_staff_user_in_and_calls_tools_with_the_token(oauth_server):
    browser = Browser(oauth_server.server.url, *STAFF)
    storage = MemoryStorage()

    async def calls(client):
        tools = (await client.list_tools()).tools
        listing = listing_of(await client.call_tool("get_listing_by_id", {"listing_id": 1}))
        page = await client.call_tool("search_by_metadata", {"query": "квартира", "limit": 2})
        resource = await client.read_resource("listing://1")
        return tools, listing, page, json.loads(resource.contents[0].text)

    exchanges, (tools, listing, page, resource) = await host_session(
        oauth_server.server.mcp_url, browser, storage, calls
    )

    print("\nthe OAuth flow as the host saw it:", *exchanges, *browser.pages, sep="\n  ")
    # What the host did: refused, discovered, registered, signed in, exchanged, retried.
    paths = [line.rsplit(" ", 1)[0] for line in exchanges]
    assert exchanges[0] == "POST /mcp 401"
    assert paths[1:4] == [
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-authorization-server/oauth",
        "POST /oauth/register/",
    ]
    assert "POST /oauth/token/ 200" in exchanges
    assert exchanges[exchanges.index("POST /oauth/token/ 200") + 1] == "POST /mcp 200"
    assert browser.pages[0].endswith("302") and "POST /admin/login/ → 302" in browser.pages
    assert "Test MCP host" in browser.consent_page
    assert "Бачити телефон" in browser.consent_page  # the contacts:read scope, described

    token = storage.tokens
    assert token.scope is not None and "listings:read" in token.scope.split()
    assert len(tools) >= 10 and not page.is_error
    # A staff user without listings.view_contacts: contacts masked, and the answer says so.
    for card in (listing, resource):
        assert PHONE.match(card["contact_phone"]), card["contact_phone"]
        assert card["contacts_note"] == CONTACTS_MASKED
    # The token is stored hashed, bound to this server's /mcp.
    stored = oauth_server.sql(
        "SELECT token, resource, scope FROM oauth2_provider_accesstoken WHERE token_checksum = ?",
        __import__("hashlib").sha256(token.access_token.encode()).hexdigest(),
    )
    assert stored and stored[0][0] == ""
    assert json.loads(stored[0][1]) == [oauth_server.server.mcp_url]
    audit = "SELECT DISTINCT key_name FROM mcpserver_toolcall WHERE tool = 'get_listing_by_id'"
    deadline = time.monotonic() + 10
    while not oauth_server.sql(audit) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert oauth_server.sql(audit) == [("oauth:Test MCP host:olena",)]


def checksum(token: str) -> str:
    return __import__("hashlib").sha256(token.encode()).hexdigest()


@pytest.mark.anyio
async def test_an_expired_access_token_is_refreshed_and_a_used_refresh_token_is_refused(
    oauth_server,
):
    browser = Browser(oauth_server.server.url, *STAFF)
    storage = MemoryStorage()
    providers: list = []

    async def calls(client):
        before = listing_of(await client.call_tool("get_listing_by_id", {"listing_id": 1}))
        first = storage.tokens
        # The access token's lifetime runs out: at the server, and in the host's eyes (the
        # SDK counts expires_in from when it got the token).
        oauth_server.sql(
            "UPDATE oauth2_provider_accesstoken SET expires = '2000-01-01 00:00:00' "
            "WHERE token_checksum = ?",
            checksum(first.access_token),
        )
        providers[0].context.token_expiry_time = time.time() - 1
        after = listing_of(await client.call_tool("get_listing_by_id", {"listing_id": 2}))
        return first, before, after

    exchanges, (first, before, after) = await host_session(
        oauth_server.server.mcp_url, browser, storage, calls, providers
    )
    print("\nsign-in, then a refresh, as the host saw it:", *exchanges, sep="\n  ")
    refreshed = storage.tokens
    assert (before["id"], after["id"]) == (1, 2)
    # One sign-in, two token requests (the code, then the refresh), the call after it works.
    assert exchanges.count("POST /oauth/token/ 200") == 2
    assert exchanges[-2:] == ["POST /oauth/token/ 200", "POST /mcp 200"]
    assert len([page for page in browser.pages if page.startswith("POST /oauth/authorize/")]) == 1
    assert refreshed.access_token != first.access_token
    assert refreshed.refresh_token != first.refresh_token  # rotated
    stored = oauth_server.sql(
        "SELECT resource FROM oauth2_provider_accesstoken WHERE token_checksum = ?",
        checksum(refreshed.access_token),
    )
    assert json.loads(stored[0][0]) == [oauth_server.server.mcp_url]  # still bound to /mcp

    # The used refresh token is refused (RFC 6749 5.2: 400 invalid_grant), and its reuse
    # revokes the whole family: the token it was exchanged for stops working too.
    async with httpx.AsyncClient(timeout=30) as web:
        reused = await web.post(
            f"{oauth_server.server.url}/oauth/token/",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token,
                "client_id": storage.client_info.client_id,
            },
        )
    print("a used refresh token:", reused.status_code, reused.text)
    assert reused.status_code == 400
    assert reused.json()["error"] == "invalid_grant"
    # Once what the server remembers of a token has lapsed, neither the replaced access
    # token nor the revoked family's new one opens /mcp: a 401 saying the token is wrong.
    time.sleep(oauth.TOKEN_CACHE_SEC + 0.5)
    for token in (first.access_token, refreshed.access_token):
        refused = await post_with(oauth_server.server.mcp_url, token)
        assert refused.status_code == 401
        assert refused.json() == {"error": mcp_http.BEARER_NOT_VALID, "code": "unauthorized"}
        assert refused.headers["www-authenticate"].startswith('Bearer error="invalid_token"')


@pytest.mark.anyio
async def test_contacts_read_counts_only_for_users_with_the_permission(oauth_server):
    async def get(token: str) -> dict:
        async with httpx.AsyncClient(timeout=30) as web:
            response = await web.post(
                oauth_server.server.mcp_url,
                headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
                content=json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {"name": "get_listing_by_id", "arguments": {"listing_id": 1}},
                    }
                ),
            )
        assert response.status_code == 200, response.text
        return response.json()["result"]["structuredContent"]

    raw = "contacts-" + "y" * 40
    resource = oauth_server.server.mcp_url
    code = (
        "from datetime import timedelta\n"
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.auth.models import Permission\n"
        "from django.utils import timezone\n"
        "from oauth2_provider.models import AccessToken, Application, set_token_value\n"
        "user = get_user_model().objects.create_user('taras', password='x', is_staff=True)\n"
        "app = Application.objects.get(name='made-in-test')\n"
        f"token = AccessToken(user=user, application=app, scope='listings:read contacts:read', "
        f"resource=['{resource}'], expires=timezone.now() + timedelta(hours=1))\n"
        f"set_token_value(token, '{raw}')\n"
        "token.save()\n"
    )
    manage("shell", "-c", code, env=oauth_server.env)
    masked = await get(raw)
    assert PHONE.match(masked["contact_phone"]) and masked["contacts_note"] == CONTACTS_MASKED

    grant = (
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.auth.models import Permission\n"
        "user = get_user_model().objects.get(username='taras')\n"
        "user.user_permissions.add(Permission.objects.get(codename='view_contacts'))\n"
    )
    manage("shell", "-c", grant, env=oauth_server.env)
    time.sleep(oauth.TOKEN_CACHE_SEC + 0.5)
    clear = await get(raw)
    assert clear["contacts_note"] is None
    assert re.fullmatch(r"\+380\d{9}", clear["contact_phone"]), clear["contact_phone"]
    assert clear["contact_phone"][:6] == masked["contact_phone"][:6]
    assert clear["contact_phone"][-2:] == masked["contact_phone"][-2:]


async def post_with(url: str, token: str | None) -> httpx.Response:
    headers = dict(MCP_HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=30) as web:
        return await web.post(url, headers=headers, content=LIST_TOOLS)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("expired", 401, oauth.ACCESS_EXPIRED),
        ("other_audience", 401, oauth.WRONG_AUDIENCE),
        ("unbound", 401, oauth.WRONG_AUDIENCE),
        ("no_scope", 403, oauth.SCOPE_MISSING),
        ("no_user", 401, oauth.NO_STAFF_USER),
    ],
)
async def test_expired_wrong_audience_and_scopeless_tokens_are_refused(
    oauth_server, name, status, message
):
    response = await post_with(oauth_server.server.mcp_url, oauth_server.tokens[name])
    assert response.status_code == status
    assert response.json()["error"] == message
    challenge = response.headers["www-authenticate"]
    metadata = f"{oauth_server.server.url}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata}"' in challenge
    error = "insufficient_scope" if status == 403 else "invalid_token"
    assert challenge.startswith(f'Bearer error="{error}"')

    valid = await post_with(oauth_server.server.mcp_url, oauth_server.tokens["valid"])
    assert valid.status_code == 200 and "get_listing_by_id" in valid.text


@pytest.mark.anyio
async def test_the_401_and_the_well_known_documents_point_a_host_to_sign_in(oauth_server):
    base = oauth_server.server.url
    missing = await post_with(oauth_server.server.mcp_url, None)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    )
    wrong = await post_with(oauth_server.server.mcp_url, "not-a-token")
    assert wrong.json()["error"] == mcp_http.BEARER_NOT_VALID

    async with httpx.AsyncClient(base_url=base, timeout=30) as web:
        resource = (await web.get("/.well-known/oauth-protected-resource/mcp")).json()
        server = (await web.get("/.well-known/oauth-authorization-server/oauth")).json()
        unknown = await web.get("/.well-known/openid-configuration")
    assert resource["resource"] == f"{base}/mcp"
    assert resource["authorization_servers"] == [f"{base}/oauth"]
    assert resource["scopes_supported"] == ["contacts:read", "listings:read"]
    assert server["issuer"] == f"{base}/oauth"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["registration_endpoint"] == f"{base}/oauth/register/"
    assert server["authorization_endpoint"] == f"{base}/oauth/authorize/"
    assert "implicit" not in server["grant_types_supported"]
    assert "password" not in server["grant_types_supported"]
    assert unknown.status_code == 404
    assert unknown.json() == {"error": oauth.NOTHING_HERE, "code": "not_found"}
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]


@pytest.mark.anyio
async def test_hosts_register_themselves_for_the_authorization_code_grant_only(oauth_server):
    async with httpx.AsyncClient(base_url=oauth_server.server.url, timeout=30) as web:
        public = await web.post(
            "/oauth/register/",
            json={
                "client_name": "mcp-remote",
                "redirect_uris": ["http://localhost:5555/oauth/callback"],
                "grant_types": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_method": "none",
            },
        )
        machine = await web.post(
            "/oauth/register/",
            json={"client_name": "no-consent", "grant_types": ["client_credentials"]},
        )
    assert public.status_code == 201 and public.json()["client_id"]
    assert machine.status_code == 401
    names = oauth_server.sql("SELECT name FROM oauth2_provider_application")
    assert ("mcp-remote",) in names and ("no-consent",) not in names


# --- without OAuth ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_with_tokens_only_a_wrong_token_is_told_so_and_well_known_is_json(
    mcp_server_with_tokens,
):
    wrong = await post_with(mcp_server_with_tokens.mcp_url, "s3cret-tokem")
    assert wrong.status_code == 401
    assert wrong.json() == {"error": mcp_http.BEARER_NOT_VALID, "code": "unauthorized"}
    assert wrong.headers["www-authenticate"] == (
        f'Bearer realm="vmk-data-mcp", error="invalid_token", '
        f'error_description="{mcp_http.BEARER_NOT_VALID}"'
    )
    assert "resource_metadata" not in wrong.headers["www-authenticate"]
    missing = await post_with(mcp_server_with_tokens.mcp_url, None)
    assert missing.json() == mcp_http.UNAUTHORIZED
    assert missing.headers["www-authenticate"] == 'Bearer realm="vmk-data-mcp"'

    async with httpx.AsyncClient(base_url=mcp_server_with_tokens.url, timeout=30) as web:
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ):
            response = await web.get(path)
            assert response.status_code == 404
            assert response.headers["content-type"] == "application/json"
            assert response.json() == {"error": oauth.OAUTH_OFF, "code": "oauth_not_enabled"}
        # The addresses older clients fall back to (the 2025-03-26 defaults) say so too.
        register = await web.post("/register", json={"redirect_uris": [REDIRECT_URI]})
    assert register.status_code == 404
    assert register.json()["error"] == oauth.OAUTH_OFF
