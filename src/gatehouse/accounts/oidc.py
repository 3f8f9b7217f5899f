"""Single sign-on through OpenID Connect (docs/staff-identity.md "Single sign-on").

Offered when GATEHOUSE_OIDC_ISSUER, GATEHOUSE_OIDC_CLIENT_ID and GATEHOUSE_OIDC_CLIENT_SECRET
are set. The provider is found by discovery (`<issuer>/.well-known/openid-configuration`,
kept an hour). The flow is the authorization code flow with PKCE (S256), a `state` bound to a
sign-in flow cookie and a `nonce` bound to the ID token; the client authenticates to the token
endpoint with HTTP Basic. The ID token's signature (the provider's JWKS), issuer, audience,
expiry and nonce are checked; the person is matched by the `email` claim, which must come with
`email_verified: true`, to an active staff member. Unknown and deactivated people are
refused. The provider's own factors stand in for Gatehouse's.

Protocol pieces come from authlib (grant URI, token request, PKCE challenge, discovery URL);
JOSE from joserfc; HTTP from httpx.
"""

from __future__ import annotations

import hmac
import logging
import time
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.discovery.well_known import get_well_known_url
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from sqlalchemy import select

from gatehouse.accounts.sessions import Flow, OpenedSession, start_flow
from gatehouse.accounts.sign_in import SignInFailed, complete_sign_in, record_failure
from gatehouse.audit.context import WriteContext
from gatehouse.domain.normalize import normalize_email
from gatehouse.runtime import Runtime
from gatehouse.settings import Settings
from gatehouse.storage.tables.core import StaffMember

log = logging.getLogger("gatehouse.oidc")
CALLBACK_PATH = "/dashboard/sign-in/oidc/callback"
SCOPE = "openid email profile"
DISCOVERY_TTL = 3600.0
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
DEFAULT_ALGORITHMS = ["RS256"]


class ProviderUnavailable(Exception):
    """Discovery, the token endpoint or the keys could not be reached or made no sense."""


@dataclass
class _Provider:
    metadata: dict[str, Any]
    keys: KeySet | None
    fetched: float


_PROVIDERS: dict[str, _Provider] = {}


def redirect_uri(settings: Settings) -> str:
    return settings.base_url + CALLBACK_PATH


async def _get_json(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    try:
        response = await client.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise ProviderUnavailable(f"{type(exc).__name__} from {url}") from None
    if response.status_code != 200:
        raise ProviderUnavailable(f"HTTP {response.status_code} from {url}")
    try:
        body = response.json()
    except ValueError:
        raise ProviderUnavailable(f"no JSON from {url}") from None
    if not isinstance(body, dict):
        raise ProviderUnavailable(f"no JSON object from {url}")
    return body


async def _provider(settings: Settings, *, refresh_keys: bool = False) -> _Provider:
    issuer = str(settings.oidc_issuer)
    cached = _PROVIDERS.get(issuer)
    async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
        if cached is None or time.monotonic() - cached.fetched > DISCOVERY_TTL:
            metadata = await _get_json(client, get_well_known_url(issuer, external=True))
            # OpenID Connect Discovery §4.3: the issuer must be exactly the one configured.
            if metadata.get("issuer") != issuer:
                raise ProviderUnavailable("the discovery document names another issuer")
            for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                if not isinstance(metadata.get(name), str):
                    raise ProviderUnavailable(f"the discovery document has no {name}")
            cached = _PROVIDERS[issuer] = _Provider(metadata, None, time.monotonic())
        if cached.keys is None or refresh_keys:
            jwks = await _get_json(client, str(cached.metadata["jwks_uri"]))
            try:
                cached.keys = KeySet.import_key_set(jwks)  # type: ignore[arg-type]
            except (JoseError, ValueError, KeyError, TypeError):
                raise ProviderUnavailable("the provider's keys could not be read") from None
    return cached


async def start(runtime: Runtime, next_path: str) -> tuple[str, Flow, str]:
    """Begin a sign-in at the provider: (flow cookie, flow, the URL to send the browser to)."""
    settings = runtime.settings
    provider = await _provider(settings)
    state, nonce, verifier = generate_token(32), generate_token(32), generate_token(64)
    url = prepare_grant_uri(
        provider.metadata["authorization_endpoint"],
        settings.oidc_client_id,
        "code",
        redirect_uri=redirect_uri(settings),
        scope=SCOPE,
        state=state,
        nonce=nonce,
        code_challenge=create_s256_code_challenge(verifier),
        code_challenge_method="S256",
    )
    payload = {"state": state, "nonce": nonce, "verifier": verifier}
    async with runtime.db.write() as session:
        cookie, flow = start_flow(
            session, runtime, "oidc", None, next_path, runtime.now(), payload=payload
        )
    return cookie, flow, url


async def finish(
    runtime: Runtime, flow: Flow, params: dict[str, str], ctx: WriteContext
) -> OpenedSession:
    """The provider sent the browser back: check everything, then open a session.
    Raises SignInFailed (audited) or ProviderUnavailable."""
    state = flow.payload.get("state")
    if (
        flow.purpose != "oidc"
        or not isinstance(state, str)
        or not hmac.compare_digest(state.encode(), params.get("state", "").encode())
    ):
        raise SignInFailed(flow_ended=True)
    if "error" in params or not params.get("code"):
        log.info("single sign-on refused by the provider", extra={"error": params.get("error")})
        await record_failure(runtime, None, ctx)
        raise SignInFailed(flow_ended=True)
    claims = await _claims(runtime, flow, params["code"])
    email = normalize_email(claims.get("email"))
    verified = claims.get("email_verified") in (True, "true")
    staff: StaffMember | None = None
    if email is not None:
        async with runtime.db.read() as session:
            staff = await session.scalar(select(StaffMember).where(StaffMember.email == email))
    if email is None or not verified or staff is None or staff.status != "active":
        await record_failure(runtime, staff.id if staff is not None else None, ctx)
        raise SignInFailed(flow_ended=True)
    async with runtime.db.write() as session:
        return await complete_sign_in(session, runtime, staff.id, ctx, "oidc", flow)


async def _claims(runtime: Runtime, flow: Flow, code: str) -> dict[str, Any]:
    settings = runtime.settings
    provider = await _provider(settings)
    body = prepare_token_request(
        "authorization_code",
        redirect_uri=redirect_uri(settings),
        code=code,
        code_verifier=flow.payload.get("verifier"),
    )
    async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
        try:
            response = await client.post(
                provider.metadata["token_endpoint"],
                content=body,
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": "application/json",
                },
                auth=(str(settings.oidc_client_id), str(settings.oidc_client_secret)),
            )
        except httpx.HTTPError as exc:
            raise ProviderUnavailable(f"{type(exc).__name__} from the token endpoint") from None
    if response.status_code != 200:
        log.warning("token endpoint refused the code", extra={"status": response.status_code})
        raise SignInFailed(flow_ended=True)
    try:
        id_token = response.json().get("id_token")
    except (ValueError, AttributeError):
        id_token = None
    if not isinstance(id_token, str):
        raise ProviderUnavailable("the token endpoint sent no ID token")
    return await _verified_claims(settings, provider, id_token, flow.payload.get("nonce"))


async def _verified_claims(
    settings: Settings, provider: _Provider, id_token: str, nonce: object
) -> dict[str, Any]:
    algorithms = provider.metadata.get("id_token_signing_alg_values_supported")
    allowed = [a for a in algorithms or DEFAULT_ALGORITHMS if isinstance(a, str) and a != "none"]
    try:
        try:
            token = jwt.decode(id_token, provider.keys, algorithms=allowed)  # type: ignore[arg-type]
        except (JoseError, ValueError):
            # The provider may have rotated its keys since they were fetched.
            provider = await _provider(settings, refresh_keys=True)
            token = jwt.decode(id_token, provider.keys, algorithms=allowed)  # type: ignore[arg-type]
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": str(settings.oidc_issuer)},
            aud={"essential": True, "value": str(settings.oidc_client_id)},
            nonce={"essential": True, "value": str(nonce)},
            exp={"essential": True},
        ).validate(token.claims)
    except (JoseError, ValueError):
        log.warning("an ID token failed its checks")
        raise SignInFailed(flow_ended=True) from None
    return dict(token.claims)
