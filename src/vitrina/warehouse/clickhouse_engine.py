"""The hook between :class:`vitrina.warehouse.Warehouse` and the ClickHouse backends: picks
chDB or the server by the URL's scheme and words the engine's failures as WarehouseError."""

from __future__ import annotations

from vitrina.warehouse.budget import ResultTooLarge
from vitrina.warehouse.clickhouse_backend import (
    ChdbBackend,
    ClickHouseError,
    ServerBackend,
)
from vitrina.warehouse.engine import WarehouseError

CHDB_SCHEMES = ("chdb",)
SERVER_SCHEMES = ("clickhouse", "clickhouses")


class ClickHouseWarehouseBackend:
    """A chDB folder or a ClickHouse server, with Vitrina's error kinds."""

    compile_statement = "EXPLAIN"

    def __init__(self, url: str, scheme: str) -> None:
        try:
            self.inner = ChdbBackend(url) if scheme in CHDB_SCHEMES else ServerBackend(url)
        except ClickHouseError as exc:
            raise WarehouseError(str(exc), kind=exc.kind) from exc

    def run(
        self, sql: str, row_cap: int, timeout_s: float, max_bytes: int
    ) -> tuple[list[str], list[tuple], bool]:
        try:
            return self.inner.run(sql, row_cap, timeout_s, max_bytes)
        except ResultTooLarge as exc:
            raise WarehouseError(str(exc), kind="too_large", sql=sql) from None
        except ClickHouseError as exc:
            if exc.kind == "timeout":
                raise WarehouseError(
                    f"query ran longer than {timeout_s:g} s and was stopped",
                    kind="timeout",
                    sql=sql,
                ) from exc
            raise WarehouseError(str(exc), kind=exc.kind, sql=sql) from exc

    def close(self) -> None:
        self.inner.close()
