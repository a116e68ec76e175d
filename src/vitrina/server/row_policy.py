"""What a token with a row policy may not read: numbers computed once for everyone.

Its own queries read through its policy (`vitrina.sql.policy`); published dashboards, the
build board and experiments were computed (or would run) outside it, so such a token gets
403 there: never a wider view than its own.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from vitrina.server.auth import Who
from vitrina.server.errors import ApiError
from vitrina.server.state import ServerState, server_state
from vitrina.server.tokens import owner_policy


def refuse_policed(state: ServerState, owner: str) -> None:
    """403 when the owner's token has a row policy."""
    if owner_policy(state.store, owner):
        raise ApiError(
            403,
            "row_policy",
            "this token reads only the rows of its policy; dashboards, the build board and "
            "experiments are computed for everyone: ask in the chat, or have a dashboard built "
            "with `vitrina build --policy`",
            "этот токен читает только строки своей политики доступа; дашборды, доска сборки и "
            "эксперименты считаются для всех: спросите в чате или попросите собрать дашборд с "
            "`vitrina build --policy`",
        )


def unpoliced(who: Who, state: Annotated[ServerState, Depends(server_state)]) -> None:
    """A dependency: refuses a token with a row policy (experiments)."""
    refuse_policed(state, who.owner)
