"""API tokens: ``vt_<id>_<secret>``; the id finds the row, only sha256(secret) is stored.

The secret part is compared in constant time (``hmac.compare_digest``) against the stored
digest, so neither a database leak nor response timing gives a usable token away.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from vitrina.server.roles import DEFAULT_ROLE
from vitrina.server.store import Store, TokenRecord
from vitrina.sql.policy import PolicyCondition, RowPolicy

PREFIX = "vt"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create_token(
    store: Store, name: str, role: str = DEFAULT_ROLE, policy: RowPolicy | None = None
) -> str:
    """Store a new token under ``name`` with ``role`` (and a row policy, already checked
    against the catalog) and return it: the only time it is ever shown."""
    token_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    store.add_token(token_id, name, digest(secret), role, policy.dumps() if policy else None)
    return f"{PREFIX}_{token_id}_{secret}"


def verify_token(store: Store, presented: str) -> TokenRecord | None:
    """The live token record for a presented token, or None (unknown, malformed, revoked)."""
    parts = presented.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1] or not parts[2]:
        return None
    record = store.token(parts[1])
    expected = record.secret_sha256 if record else digest("\0 no such token")
    ok = hmac.compare_digest(digest(parts[2]), expected)  # compare even when missing: same timing
    if record is None or not ok or record.revoked_at is not None:
        return None
    return record


def token_policy(record: TokenRecord | None) -> RowPolicy | None:
    """The token's row policy, or None. A stored policy that no longer reads is an
    unsatisfiable one, never none: it names a column no catalog has, so every query of the
    token is refused (`policy_invalid`)."""
    if record is None or not record.policy:
        return None
    try:
        return RowPolicy.loads(record.policy)
    except ValueError:
        return RowPolicy(conditions=[PolicyCondition(column="<unreadable>.<policy>", values=["-"])])


def owner_policy(store: Store, owner: str) -> RowPolicy | None:
    """The row policy of an owner id (a token id; "local", the CLI or --no-auth: none)."""
    if owner == "local":
        return None
    return token_policy(store.token(owner))
