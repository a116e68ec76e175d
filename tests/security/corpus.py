"""The hostile corpus: read tests/data/hostile_corpus.yaml and expand its generated items.

Generated items are the ones too big or too odd to write in YAML (deep nesting, 30 MB
literals, lone surrogates). Each generator is bounded by the `n` the corpus gives it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from vitrina.catalog import Catalog, load_catalog
from vitrina.catalog.loader import DEMO_CATALOG

CORPUS_PATH = Path(__file__).parent.parent / "data" / "hostile_corpus.yaml"
# A corpus kept outside the repository (item 7's second corpus) is read the same way.
EXTRA_CORPUS = os.environ.get("VITRINA_EXTRA_HOSTILE_CORPUS")
PAYLOAD = "pg_read_file('/etc/passwd')"
# The corpus runs against the demo catalog without this column: the warehouse has it, the
# catalog leaves it out, and no entry point may ever return one of its values (issue 30).
HIDDEN_TABLE, HIDDEN_COLUMN = "dwh.dim_client", "client_name"


@dataclass(frozen=True)
class Attack:
    id: str
    sql: str
    dialects: tuple[str, ...]
    why: str
    # When set, the guard may accept the text, but then what runs must be exactly this
    # (with the test's row cap of 100): the attack lived in a comment that is dropped.
    safe_sql: str | None = None

    def __repr__(self) -> str:  # keep pytest ids and failure output short
        return f"Attack({self.id})"


def _nested_parens(n: int) -> str:
    return "SELECT " + "(" * n + "1" + ")" * n


def _nested_parens_payload(n: int) -> str:
    return "SELECT " + "(" * n + PAYLOAD + ")" * n


def _nested_subqueries(n: int) -> str:
    return "SELECT * FROM " + "(SELECT * FROM " * n + "pg_catalog.pg_authid" + ") s" * n


def _nested_functions(n: int) -> str:
    return "SELECT " + "lower(" * n + PAYLOAD + ")" * n


def _nested_case(n: int) -> str:
    return "SELECT " + "CASE WHEN true THEN " * n + PAYLOAD + " END" * n


def _nested_not(n: int) -> str:
    return "SELECT count(*) FROM dwh.fact_payment WHERE " + "NOT " * n + "(" + PAYLOAD + " IS NULL)"


def _unary_minus(n: int) -> str:
    return "SELECT " + "- " * n + "length(" + PAYLOAD + ")"


def _or_chain(n: int) -> str:
    return "SELECT count(*) FROM dwh.fact_payment WHERE " + " OR ".join(
        [f"payment_id = {i}" for i in range(n)] + [f"{PAYLOAD} IS NULL"]
    )


def _union_chain(n: int) -> str:
    return " UNION ALL ".join(["SELECT 1 AS x"] * n + [f"SELECT length({PAYLOAD})"])


def _long_literal(n: int) -> str:
    return "SELECT length('" + "x" * n + "'), " + PAYLOAD


def _long_identifier(n: int) -> str:
    return "SELECT 1 AS " + "a" * n + ", " + PAYLOAD


def _many_columns(n: int) -> str:
    return "SELECT " + ", ".join(["1"] * n + [PAYLOAD])


def _many_ctes(n: int) -> str:
    ctes = ["c0 AS (SELECT 1 AS x)"] + [f"c{i} AS (SELECT x FROM c{i - 1})" for i in range(1, n)]
    return "WITH " + ", ".join(ctes) + f" SELECT x, {PAYLOAD} FROM c{n - 1}"


def _nested_brackets(n: int) -> str:
    return "SELECT " + "[" * n + "getenv('HOME')" + "]" * n


def _long_comment(n: int) -> str:
    return "SELECT /* " + "x" * n + " */ " + PAYLOAD


def _lone_surrogate() -> str:
    return "SELECT '\ud800' AS x, " + PAYLOAD


def _control_chars() -> str:
    controls = "".join(chr(c) for c in range(1, 32) if chr(c) not in "\t\n\r")
    return f"SELECT '{controls}' AS x, {PAYLOAD}"


GENERATORS: dict[str, Callable[..., str]] = {
    "nested_parens": _nested_parens,
    "nested_parens_payload": _nested_parens_payload,
    "nested_subqueries": _nested_subqueries,
    "nested_functions": _nested_functions,
    "nested_case": _nested_case,
    "nested_not": _nested_not,
    "unary_minus": _unary_minus,
    "or_chain": _or_chain,
    "union_chain": _union_chain,
    "long_literal": _long_literal,
    "long_identifier": _long_identifier,
    "many_columns": _many_columns,
    "many_ctes": _many_ctes,
    "nested_brackets": _nested_brackets,
    "long_comment": _long_comment,
    "lone_surrogate": _lone_surrogate,
    "control_chars": _control_chars,
}


def _attack(item: dict, source: Path) -> Attack:
    if "generate" in item:
        spec = dict(item["generate"])
        kind = spec.pop("kind")
        if kind not in GENERATORS:
            raise ValueError(f"{source}: item {item['id']}: unknown generator {kind!r}")
        sql = GENERATORS[kind](**spec)
    else:
        sql = item["sql"]
    return Attack(
        item["id"], sql, tuple(item["dialects"]), item.get("why", ""), item.get("safe_sql")
    )


def load(path: Path = CORPUS_PATH) -> list[Attack]:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))
    attacks = [_attack(item, path) for item in items]
    ids = [a.id for a in attacks]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"{path}: duplicate ids {sorted(duplicates)}")
    return attacks


def all_attacks() -> list[Attack]:
    """The corpus in the repository, plus the outside one when its path is set."""
    attacks = load()
    if EXTRA_CORPUS:
        attacks += load(Path(EXTRA_CORPUS))
    return attacks


def for_dialect(dialect: str) -> list[Attack]:
    return [a for a in all_attacks() if dialect in a.dialects]


def write_hidden_catalog(folder: Path) -> Path:
    """The demo catalog copied into ``folder`` with :data:`HIDDEN_COLUMN` taken out."""
    shutil.copytree(DEMO_CATALOG, folder, dirs_exist_ok=True)
    path = folder / "tables" / f"{HIDDEN_TABLE.split('.')[-1]}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for table in data["tables"]:
        if table["name"] == HIDDEN_TABLE:
            table["columns"] = [c for c in table["columns"] if c["name"] != HIDDEN_COLUMN]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


@cache
def hidden_catalog() -> Catalog:
    """The catalog the corpus runs against (loaded once; its folder is not kept)."""
    with tempfile.TemporaryDirectory(prefix="vitrina-hidden-catalog-") as folder:
        catalog = load_catalog(write_hidden_catalog(Path(folder)), strict=True)
    assert HIDDEN_COLUMN not in catalog.allowed_columns()[HIDDEN_TABLE]
    return catalog
