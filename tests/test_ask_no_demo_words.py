"""The rules must work for any catalog: nothing in the ask planner names a demo metric,
table, column or dictionary value (the words are read from the demo catalog itself), and the
web UI's own text names no demo topic or segment either (it reads them from the catalog).

Docstrings and comments may use the demo as an example; string literals and code may not.
`ask/commands.py` is left out: its sample questions are the `vitrina demo` command's own.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from vitrina.catalog import load_catalog

SRC = Path(__file__).resolve().parents[1] / "src" / "vitrina"
PLANNER_FILES = sorted(
    p
    for p in [
        *(SRC / "ask").glob("*.py"),
        *(SRC / "ask" / "nodes").glob("*.py"),
        *(SRC / "language").rglob("*.py"),
    ]
    if p.name != "commands.py"
)
MIN_LETTERS = 5  # shorter values ("app", "web", "Mir") are ordinary words of code and text


def demo_words() -> set[str]:
    catalog = load_catalog(None)
    words: set[str] = set()
    for metric in catalog.metrics.values():
        words |= {metric.id, metric.name_ru.lower(), metric.name_en.lower()}
    for table in catalog.tables.values():
        words.add(table.short_name)
        words |= {c.name for c in table.columns if "_" in c.name}
    for dictionary in catalog.dictionaries.values():
        # names (Москва, Mastercard), not plain words that happen to be values (active, closed)
        words |= {
            v.value.lower()
            for v in dictionary.values
            if len(v.value) >= MIN_LETTERS and (v.value[0].isupper() or not v.value.isascii())
        }
    return {w for w in words if len(w) >= MIN_LETTERS}


def test_the_word_list_is_not_empty() -> None:
    words = demo_words()
    assert {"fact_payment", "payment_amount", "сумма платежей", "москва"} <= words


def code_text(source: str, *, demo_examples: bool = True) -> str:
    """The source without comments and docstrings: what the program itself says. Without
    `demo_examples`, a string that names the demo as an example ("the demo's: ...") goes too."""
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstrings.add(body[0].lineno)
    kept = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT or (
            tok.type == tokenize.STRING
            and (tok.start[0] in docstrings or (not demo_examples and "demo" in tok.string))
        ):
            continue
        kept.append(tok.string)
    return " ".join(kept)


def test_code_text_drops_comments_and_docstrings() -> None:
    source = '"""fact_payment in a docstring"""\nx = "dim_client"  # москва in a comment\n'
    assert "dim_client" in code_text(source)
    assert "fact_payment" not in code_text(source) and "москва" not in code_text(source)


@pytest.mark.parametrize("path", PLANNER_FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_demo_word_in_planner_code(path: Path) -> None:
    text = code_text(path.read_text(encoding="utf-8")).lower().replace("ё", "е")
    found = sorted(w for w in demo_words() if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", text))
    assert not found, (
        f"{path.relative_to(SRC)} names demo catalog words {found}: read them from the catalog"
    )


UI_FILES = sorted(
    p for p in (SRC / "server" / "static").iterdir() if p.suffix in (".js", ".html") and p.is_file()
)
JS_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\])//[^\n]*|<!--.*?-->", re.S)


def ui_words() -> set[str]:
    """Demo words plus the demo's topic names and segment ids (short, but only the demo's)."""
    catalog = load_catalog(None)
    words = demo_words() | set(catalog.info.segment_ids())
    for topic in catalog.topics.values():
        words |= {topic.name_ru.lower(), topic.name_en.lower()}
    return words


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: p.name)
def test_no_demo_word_in_the_web_ui(path: Path) -> None:
    text = JS_COMMENT.sub(" ", path.read_text(encoding="utf-8")).lower().replace("ё", "е")
    found = sorted(w for w in ui_words() if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", text))
    assert not found, f"static/{path.name} names demo words {found}: serve them from the catalog"


# Short ids are ordinary-looking tokens the long-word check above lets through (MIN_LETTERS);
# the demo's segment ids ("b2b") are the demo's alone, so no module may spell them: a segment
# is read from `catalog.segment_values` (decision 151). The demo warehouse's generator and
# `vitrina demo`'s sample questions (ask/commands.py) are the demo's own; a string that names
# the demo as an example (a --help text) may quote them.
ALL_SOURCE = sorted(
    p
    for p in SRC.rglob("*.py")
    if p.relative_to(SRC).parts[:2] != ("warehouse", "demo")
    and p.relative_to(SRC) != Path("ask", "commands.py")
)


def short_ids() -> set[str]:
    catalog = load_catalog(None)
    return {s.lower() for s in catalog.info.segment_ids()} | {
        v.lower() for v in catalog.info.segment_values.values()
    }


def _spelled(ids: set[str], text: str) -> list[str]:
    return sorted(w for w in ids if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", text))


def test_a_hard_coded_short_id_is_caught() -> None:
    assert short_ids() >= {"b2b", "b2c"}
    source = (
        'HELP = "auto, or a segment of the catalog (the demo\'s: b2b, b2c)."\n'
        'def narrow(resolved):\n    return resolved in ("b2b", "b2c")\n'
    )
    assert _spelled(short_ids(), code_text(source, demo_examples=False)) == ["b2b", "b2c"]
    help_only = source.splitlines()[0]
    assert _spelled(short_ids(), code_text(help_only, demo_examples=False)) == []


@pytest.mark.parametrize("path", ALL_SOURCE, ids=lambda p: str(p.relative_to(SRC)))
def test_no_demo_segment_id_in_code(path: Path) -> None:
    text = code_text(path.read_text(encoding="utf-8"), demo_examples=False).lower()
    found = _spelled(short_ids(), text)
    assert not found, (
        f"{path.relative_to(SRC)} spells the demo's segment ids {found}: read the segments "
        "from catalog.segment_values"
    )
