"""An external OAuth issuer (OAUTH_ISSUER): its JWTs are checked against the keys it
publishes; audience, expiry, issuer, signature and scope decide."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from mcpserver import issuer, oauth

from .conftest import start_server, stop_server

ISSUER = "https://login.example.com/realms/staff/"
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
GET_LISTING = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_listing_by_id", "arguments": {"listing_id": 1}},
    }
)


class Issuer:
    """A signing key and a JWKS endpoint on 127.0.0.1 publishing its public half."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        body = json.dumps({"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]})

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.jwks_url = f"http://127.0.0.1:{self.http.server_address[1]}/jwks.json"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def token(self, audience: str, *, scope="listings:read", ttl=600, iss=ISSUER, key=None):
        now = int(time.time())
        claims = {
            "iss": iss,
            "aud": audience,
            "sub": "u-42",
            "preferred_username": "mykola",
            "azp": "claude-connector",
            "scope": scope,
            "iat": now,
            "exp": now + ttl,
        }
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture(scope="module")
def external():
    found = Issuer()
    yield found
    found.http.shutdown()


RESOURCE = "http://127.0.0.1:3000/mcp"


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("expired", (oauth.ACCESS_EXPIRED, 401)),
        ("other_audience", (oauth.WRONG_AUDIENCE, 401)),
        ("no_scope", (oauth.SCOPE_MISSING, 403)),
        ("other_issuer", None),
        ("forged", None),
        ("garbage", None),
    ],
)
def test_refused_tokens(settings, external, kind, expected):
    settings.OAUTH_ISSUER = ISSUER
    settings.OAUTH_JWKS_URL = external.jwks_url
    token = {
        "expired": lambda: external.token(RESOURCE, ttl=-120),
        "other_audience": lambda: external.token("https://other.example/mcp"),
        "no_scope": lambda: external.token(RESOURCE, scope="profile"),
        "other_issuer": lambda: external.token(RESOURCE, iss="https://evil.example/"),
        "forged": lambda: external.token(RESOURCE, key=external.stranger),
        "garbage": lambda: "a.b.c",
    }[kind]()
    assert issuer.check(token, RESOURCE) == expected


def test_a_valid_token_is_a_caller_with_its_scopes(settings, external):
    settings.OAUTH_ISSUER = ISSUER
    settings.OAUTH_JWKS_URL = external.jwks_url
    found = issuer.check(external.token(RESOURCE, scope="listings:read contacts:read"), RESOURCE)
    assert found.name == "oauth:claude-connector:mykola"
    assert found.scopes == {"listings:read", "contacts:read"}
    assert found.quota_key == f"oauth-client:{ISSUER}:claude-connector"


@pytest.mark.anyio
async def test_mcp_takes_the_issuers_tokens_and_points_hosts_to_it(listings_db, tmp_path, external):
    server = start_server(tmp_path, OAUTH_ISSUER=ISSUER, OAUTH_JWKS_URL=external.jwks_url)
    try:
        async with httpx.AsyncClient(timeout=30) as web:
            metadata = (
                await web.get(f"{server.url}/.well-known/oauth-protected-resource/mcp")
            ).json()
            refused = await web.post(server.mcp_url, headers=MCP_HEADERS, content=GET_LISTING)
            token = external.token(server.mcp_url, scope="listings:read contacts:read")
            answer = await web.post(
                server.mcp_url,
                headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
                content=GET_LISTING,
            )
            elsewhere = external.token("https://other.example/mcp")
            wrong = await web.post(
                server.mcp_url,
                headers={**MCP_HEADERS, "Authorization": f"Bearer {elsewhere}"},
                content=GET_LISTING,
            )
    finally:
        stop_server(server)
    assert metadata["resource"] == server.mcp_url
    assert metadata["authorization_servers"] == [ISSUER]
    assert refused.status_code == 401
    assert "resource_metadata=" in refused.headers["www-authenticate"]
    assert answer.status_code == 200, answer.text
    card = answer.json()["result"]["structuredContent"]
    assert card["contacts_note"] is None and card["contact_phone"].startswith("+380")
    assert wrong.status_code == 401 and wrong.json()["error"] == oauth.WRONG_AUDIENCE
