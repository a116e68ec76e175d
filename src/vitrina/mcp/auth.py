"""Who calls a tool: the API token of an MCP-over-HTTP request, checked by the SDK's bearer
middleware against the same token table as `vitrina serve`; stdio is the local user.

`TokenTable` is the SDK's ``TokenVerifier``: a Vitrina token becomes an ``AccessToken``
whose ``client_id`` is the token id (the owner of what it creates) and whose one scope is
its role. Tools read it with `caller()` and refuse with `need()` below their role.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

from vitrina.server.roles import ROLES, Role, allows
from vitrina.server.store import Store
from vitrina.server.tokens import verify_token

LOCAL = "local"


@dataclass(frozen=True)
class Caller:
    owner: str
    role: str


class TokenTable:
    """The SDK's TokenVerifier over Vitrina's token table (hashed secrets, revocation)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        import anyio

        record = await anyio.to_thread.run_sync(verify_token, self.store, token)
        if record is None:
            return None
        return AccessToken(token=token, client_id=record.id, scopes=[record.role])


def auth_settings(host: str, port: int) -> AuthSettings:
    """This server is its own issuer: tokens come from `vitrina token create`, not OAuth."""
    return AuthSettings(
        issuer_url=f"http://{host}:{port}", resource_server_url=None, validate_token_resource=False
    )


def caller() -> Caller:
    """The caller of the running tool: the token's owner and role, or the local user (stdio)."""
    token = get_access_token()
    if token is None:
        return Caller(LOCAL, "admin")
    role = next((s for s in token.scopes if s in ROLES), "viewer")
    return Caller(token.client_id, role)


def need(role: Role) -> Caller:
    """The caller when its role is `role` or above; PermissionError otherwise."""
    who = caller()
    if not allows(who.role, role):
        raise PermissionError(
            f"this tool needs the {role} role; the token is {who.role} "
            f"(create one with `vitrina token create NAME --role {role}`)"
        )
    return who
