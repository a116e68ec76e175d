"""DAX lexer, resolver (table-driven) and pretty-printer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vitrina.docs.dax import format_dax, resolve, significant, tokenize
from vitrina.docs.dax.lexer import TokenKind
from vitrina.docs.dax.resolver import ModelNames
from vitrina.docs.model import Column, Measure, Model, Table

FIXTURES = Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "dax_resolver_cases.json").read_text(encoding="utf-8"))


def _model() -> Model:
    def t(name: str, cols: list[str], measures: list[str]) -> Table:
        return Table(
            name=name,
            columns=[Column(name=c) for c in cols],
            measures=[Measure(name=m, table=name, expression="1") for m in measures],
        )

    return Model(
        tables=[
            t(
                "Sales",
                ["Amount", "Quantity"],
                ["Total Amount", "Total Quantity", "Name", "Odd ]Name]"],
            ),
            t("Date", ["Date"], ["Day Count"]),
            t("Customer", ["Name", "Customer Key"], ["Customers"]),
            t("O'Brien", ["Val"], []),
        ]
    )


NAMES = ModelNames(_model())


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_resolver_cases(case: dict) -> None:
    deps = resolve(case["dax"], case["host"], NAMES)
    assert sorted(deps.columns) == sorted(tuple(c) for c in case["columns"])
    assert sorted(deps.measures) == sorted(case["measures"])
    assert sorted(deps.tables) == sorted(case["tables"])
    assert deps.unresolved == case.get("unresolved", [])


def test_resolver_notes_functions() -> None:
    dax = """CALCULATE([Total Amount], ALL('Date'), KEEPFILTERS(Sales[Quantity] > 1),
        USERELATIONSHIP(Sales[Amount], 'Date'[Date]), DATEADD('Date'[Date], -1, YEAR))
        + RELATED(Customer[Name]) + CALCULATE([Total Amount], REMOVEFILTERS(Customer), CROSSFILTER(Sales[Amount], Customer[Name], BOTH))
        + TOTALYTD([Total Amount], 'Date'[Date]) + CALCULATE([Day Count], DATESYTD('Date'[Date]), PARALLELPERIOD('Date'[Date], -1, YEAR))
        + CALCULATE([Day Count], ALLEXCEPT(Sales, Sales[Amount]), FILTER(Sales, [Amount] > 0), SAMEPERIODLASTYEAR('Date'[Date]))"""  # noqa: E501
    deps = resolve(dax, "Sales", NAMES)
    assert {u.function for u in deps.relationships} == {"USERELATIONSHIP", "RELATED", "CROSSFILTER"}
    assert {u.function for u in deps.time_intelligence} >= {
        "DATEADD",
        "TOTALYTD",
        "DATESYTD",
        "PARALLELPERIOD",
        "SAMEPERIODLASTYEAR",
    }
    assert {u.function for u in deps.filters} >= {
        "CALCULATE",
        "ALL",
        "KEEPFILTERS",
        "REMOVEFILTERS",
        "ALLEXCEPT",
        "FILTER",
    }
    assert "ALL('Date')" in [u.text() for u in deps.filters]
    assert "YEAR" not in {t for t in deps.tables}


LEXER_CASES = [
    ("// line\n1", [TokenKind.LINE_COMMENT, TokenKind.NUMBER]),
    ("-- line\n1", [TokenKind.LINE_COMMENT, TokenKind.NUMBER]),
    ("/* a\n b */ 1", [TokenKind.BLOCK_COMMENT, TokenKind.NUMBER]),
    ('"say ""hi"" [x]"', [TokenKind.STRING]),
    ("'O''Brien'[Val]", [TokenKind.TABLE, TokenKind.BRACKET]),
    ("[a]]b]", [TokenKind.BRACKET]),
    (
        "a <> b && c || d >= 1.5e3",
        [
            TokenKind.IDENT,
            TokenKind.OPERATOR,
            TokenKind.IDENT,
            TokenKind.OPERATOR,
            TokenKind.IDENT,
            TokenKind.OPERATOR,
            TokenKind.IDENT,
            TokenKind.OPERATOR,
            TokenKind.NUMBER,
        ],
    ),
    (
        "PERCENTILE.INC(x, 0.5)",
        [
            TokenKind.IDENT,
            TokenKind.LPAREN,
            TokenKind.IDENT,
            TokenKind.COMMA,
            TokenKind.NUMBER,
            TokenKind.RPAREN,
        ],
    ),
    (
        "{1, 2}",
        [TokenKind.LBRACE, TokenKind.NUMBER, TokenKind.COMMA, TokenKind.NUMBER, TokenKind.RBRACE],
    ),
]


@pytest.mark.parametrize(("text", "kinds"), LEXER_CASES)
def test_lexer_kinds(text: str, kinds: list[TokenKind]) -> None:
    toks = tokenize(text)
    assert "".join(t.text for t in toks) == text  # lossless
    assert [t.kind for t in significant(toks)] == kinds


def test_lexer_values_and_unterminated() -> None:
    toks = significant(tokenize("'O''Brien'[a]]b] \"x\"\"y\""))
    assert [t.value for t in toks] == ["O'Brien", "a]b", 'x"y']
    for broken in ('"open', "'open", "[open", "/* open"):
        toks = tokenize(broken)
        assert "".join(t.text for t in toks) == broken
        assert toks[0].error


def test_lexer_line_numbers() -> None:
    toks = significant(tokenize("a\n/* x\ny */\n[b]"))
    assert [t.line for t in toks] == [1, 2, 4]


FORMAT_INPUTS = [
    "calculate(sum('T'[a]),all('T'))",
    "VAR x = [A] VAR y = CALCULATE([B], FILTER(ALL('Date'), 'Date'[Year] = 2020 && "
    "'Date'[Month] > 3), REMOVEFILTERS(Customer)) RETURN DIVIDE(x, y, 0)",
    'SWITCH(TRUE(), [A] > 1, "long string value number one", [A] > 2, "long string value '
    'number two", BLANK()) // end',
    "IF(a, -1, - -b) /* keep */ + [x]]y] - 'O''B'[c]",
    "SUMX(\n  Sales, // row by row\n  Sales[Qty] * Sales[Price]\n)",
    "a--b\n+1",
    "{(1, 2), (3, 4)}",
    'CALCULATE([M], \'T\'[C] IN {"a", "b"}, NOT ISBLANK([N]))',
    "((((1))))",
    "FOO(",
    ")) unbalanced ((",
]


@pytest.mark.parametrize("dax", FORMAT_INPUTS)
def test_format_never_changes_tokens(dax: str) -> None:
    out = format_dax(dax)
    assert [t.text for t in significant(tokenize(out))] == [
        t.text for t in significant(tokenize(dax))
    ]


def test_format_breaks_long_calls_by_nesting() -> None:
    dax = FORMAT_INPUTS[1]
    out = format_dax(dax)
    lines = out.splitlines()
    assert lines[0].startswith("VAR x")
    assert any(line.startswith("RETURN") for line in lines)
    assert any(line.startswith("    ") for line in lines)
    assert max(len(line) for line in lines) <= 100
    assert format_dax("sum('T'[a])") == "sum('T'[a])"


def test_format_real_measures(shared_fixtures: Path) -> None:
    from vitrina.docs.model import load_model

    for path in (
        "tabular/adventureworks-te.bim",
        "tabular/sample-pbip-tmdl",
        "wwi/model/Model.bim",
    ):
        for m in load_model(shared_fixtures / path).measures:
            out = format_dax(m.expression)
            assert [t.text for t in significant(tokenize(out))] == [
                t.text for t in significant(tokenize(m.expression))
            ]
