"""Issue 32: no depth limit in the DAX reader, the explainer and the syntax check.

1,000 nested IFs, 200 nested parentheses and a 1,000-block VAR chain are read, checked,
resolved, explained and printed, in time that grows linearly with their size; a
`vitrina docs` run documents them (none missed with a RecursionError).
"""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from vitrina.cli import main
from vitrina.docs.dax.format import flat_text, format_dax
from vitrina.docs.dax.lexer import code_tokens, tokenize
from vitrina.docs.dax.resolver import ModelNames, resolve
from vitrina.docs.dax.syntax import check
from vitrina.docs.lineage import MeasureLineage
from vitrina.docs.model.types import Model
from vitrina.docs.writer.explain import rules_explanation


def _bench() -> ModuleType:
    """benchmarks/bench_docs.py: the test times the figures the benchmark reports."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_docs.py"
    spec = importlib.util.spec_from_file_location("bench_docs_deep", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
nested_if, nested_parens, deep_dax_ms = BENCH.nested_if, BENCH.nested_parens, BENCH.deep_dax_ms


def var_chain(n: int) -> str:
    return "".join(f"VAR v{i} = {i} RETURN " for i in range(n)) + "[Base]"


def nested_calculate(n: int) -> str:
    return "CALCULATE(" * n + "SUM('T'[A])" + ", 'T'[B] = 1)" * n


@pytest.mark.parametrize(
    "expression",
    [nested_if(1000), nested_parens(200), nested_parens(5000), var_chain(1000)],
    ids=["if1000", "paren200", "paren5000", "var1000"],
)
def test_deep_expressions_pass_every_step(expression: str) -> None:
    assert check(expression) is None
    deps = resolve(expression, "T", ModelNames(Model(name="deep")))
    assert set(deps.unresolved) == {"[Base]"}  # the model has no [Base]: read, not lost
    text = rules_explanation(MeasureLineage(measure="Deep", table="T", expression=expression), "en")
    assert text.startswith("[Deep] computes ")
    tokens = code_tokens(tokenize(expression))
    assert flat_text(tokens).replace(" ", "") == expression.replace(" ", "")
    assert format_dax(expression).replace(" ", "").replace("\n", "") == expression.replace(" ", "")


def test_errors_deep_inside_are_found_where_they_are() -> None:
    broken = nested_if(1000).replace("1, 0)", "1, 0 0)", 1)
    problem = check(broken)
    assert problem is not None and problem.line == 1
    assert broken[problem.column - 1 : problem.column + 1] == "0)"
    assert "expected ',' or ')'" in problem.message
    unclosed = "(" * 300 + "1"
    problem = check(unclosed)
    assert problem is not None and problem.message.startswith("'(' is never closed")
    assert check("IF(1, " * 500 + "+") is not None  # an operator with nothing after it


def test_same_verdicts_as_before_on_small_expressions() -> None:
    """The stack-driven parser answers as the recursive one did (its doctests and these)."""
    good = [
        "VAR x = 1 RETURN x + 2",
        "NOT [A] = 1 && [B] IN {1, 2}",
        "-(-1) ^ 2",
        "RANKX(ALL('T'), [x], , DESC)",
        '{(1, "a"), (2, "b")}',
        "{}",
        "'T'[A] & \"x\"",
    ]
    assert [check(e) for e in good] == [None] * len(good)
    bad = {
        "SUM('Sales'[Amount]": "'(' is never closed: expected ')' before the end",
        "VAR x = 1": "expected RETURN after the VAR definitions",
        "VAR = 1 RETURN 2": "expected a variable name after VAR",
        "1 +": "expected an expression after '+'",
        "F(a b)": "unexpected 'b': expected ',' or ')'",
        "F(, a b)": "expected ',' or ')' in the arguments of a",
        "(1, 2": "'(' is never closed: expected ')' before the end",
        "1 )": "unexpected ')' after a complete expression",
        ")": "unexpected ')': expected a value, a reference or a function call",
    }
    for expression, message in bad.items():
        problem = check(expression)
        assert problem is not None and problem.message == message, expression


def test_nested_calculate_filters_are_linear_not_quadratic() -> None:
    deps = resolve(nested_calculate(400), "T", ModelNames(Model(name="deep")))
    assert len(deps.filters) == 400
    assert max(len(f.text()) for f in deps.filters) < 2000  # long arguments are cut with …


def test_time_grows_linearly() -> None:
    """4x the nesting costs about 4x the CPU (best of three; 8x would be quadratic)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(20_000, 50, 50)  # as vitrina.cli.main runs
    try:
        small = min(deep_dax_ms(nested_if(500)) for _ in range(3))
        big = min(deep_dax_ms(nested_if(2000)) for _ in range(3))
    finally:
        gc.set_threshold(*thresholds)
    assert big / small < 6.5, (small, big)


def test_docs_run_documents_deep_measures(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    measures = {
        "Base": "SUM('T'[A])",
        "Deep IFs": nested_if(1000),
        "Deep Parens": nested_parens(200),
        "Var Chain": var_chain(1000),
        "Deep Calcs": nested_calculate(200),
    }
    model = tmp_path / "deep.bim"
    model.write_text(
        json.dumps(
            {
                "name": "Deep",
                "model": {
                    "tables": [
                        {
                            "name": "T",
                            "columns": [
                                {"name": "A", "dataType": "decimal", "sourceColumn": "A"},
                                {"name": "B", "dataType": "int64", "sourceColumn": "B"},
                            ],
                            "measures": [{"name": k, "expression": v} for k, v in measures.items()],
                        }
                    ]
                },
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    started = time.perf_counter()
    with pytest.raises(SystemExit) as done:
        main(["docs", "--model", str(model), "--out", str(out)])
    assert done.value.code in (0, None), capsys.readouterr()
    assert time.perf_counter() - started < 60
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert index["missed"] == []
    assert len(index["measures"]) == len(measures)
    deep = (out / "measures" / "Deep IFs.md").read_text(encoding="utf-8")
    assert "DAX syntax error" not in deep and "a value chosen by condition" in deep


def test_the_same_verdicts_as_the_recursive_parser_on_random_expressions() -> None:
    """Differential: 2,000 random token soups, each answered exactly as the old parser did
    (same verdict, line, column and message) where the old one had no depth trouble."""
    import random

    from tests.docs import recursive_syntax

    atoms = [
        "IF(",
        "SUM(",
        "(",
        ")",
        ",",
        "[A]",
        "'T'[B]",
        "1",
        '"s"',
        "+",
        "-",
        "*",
        "NOT ",
        "IN ",
        "{",
        "}",
        "VAR x = ",
        "RETURN ",
        "x",
        "&&",
        "=",
        " ",
        "T",
        ",,",
        "\n",
    ]
    rng = random.Random(32)
    for _ in range(2000):
        expression = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 14)))
        theirs, ours = recursive_syntax.check(expression), check(expression)
        assert (theirs is None) == (ours is None), expression
        if theirs is not None:
            assert (theirs.line, theirs.column, theirs.message) == (
                ours.line,
                ours.column,
                ours.message,
            ), expression
