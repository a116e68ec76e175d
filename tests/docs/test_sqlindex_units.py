"""The SQL index's small passes, each alone: decoding, GO, statement split, names, scan.

Their docstring examples run in tests/test_doctests.py."""

from __future__ import annotations

import codecs

import pytest

from vitrina.docs.sqlindex.batches import split_batches
from vitrina.docs.sqlindex.decode import decode_sql_bytes
from vitrina.docs.sqlindex.lexer import lex
from vitrina.docs.sqlindex.names import normalize_name
from vitrina.docs.sqlindex.scan import looks_like_sql, scan_tokens
from vitrina.docs.sqlindex.statements import split_statements

TEXT = "SELECT N'Привет' FROM dbo.T\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (TEXT.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("utf-16-le"), "utf-16-le"),  # no BOM: recognised by its zero bytes
        (TEXT.encode("cp1251"), "cp1251"),
        (TEXT.replace("\n", "\r\n").encode("utf-8"), "utf-8"),
    ],
)
def test_decode(data: bytes, encoding: str) -> None:
    text, used = decode_sql_bytes(data)
    assert (text, used) == (TEXT, encoding)


@pytest.mark.parametrize(
    ("script", "expected"),  # (first line, GO count, first token) of each batch
    [
        ("SELECT 1\nGO\nSELECT 2", [(1, 1, "SELECT"), (3, 1, "SELECT")]),
        ("SELECT 1\ngo 5\nSELECT 2\n  Go  \n", [(1, 5, "SELECT"), (3, 1, "SELECT")]),
        ("SELECT 'a\nGO\nb'\nGO", [(1, 1, "SELECT")]),  # GO inside a string
        ("/* x\nGO\n*/ SELECT 1\nGO", [(3, 1, "SELECT")]),  # GO inside a comment
        ("SELECT 1 -- GO\nGO -- trailing comment\nSELECT 2", [(1, 1, "SELECT"), (3, 1, "SELECT")]),
        ("SELECT go FROM t\nGO", [(1, 1, "SELECT")]),  # a column named go
        (":setvar X 1\nSELECT 1\nGO", [(2, 1, "SELECT")]),  # SQLCMD directive dropped
        ("GO\nGO\n", []),
    ],
)
def test_go_batches(script: str, expected: list[tuple[int, int, str]]) -> None:
    batches = split_batches(lex(script).tokens)
    assert [(b.line, b.count, b.tokens[0].up) for b in batches] == expected


@pytest.mark.parametrize(
    ("body", "leads"),
    [
        ("SET NOCOUNT ON INSERT t SELECT a FROM s UPDATE t SET a = 1", ["SET", "INSERT", "UPDATE"]),
        ("INSERT t (a) SELECT a FROM s UNION ALL SELECT a FROM u SELECT 1", ["INSERT", "SELECT"]),
        (
            "WITH c AS (SELECT 1 AS a) UPDATE t SET a = c.a FROM t JOIN c ON 1 = 1 SET @x = 1",
            ["WITH", "SET"],
        ),
        (
            "MERGE t USING s ON 1=1 WHEN MATCHED THEN UPDATE SET a = 1 "
            "WHEN NOT MATCHED THEN INSERT (a) VALUES (1); DELETE FROM t",
            ["MERGE", "DELETE"],
        ),
        (
            "BEGIN TRY BEGIN TRAN; INSERT t VALUES (1) COMMIT END TRY BEGIN CATCH THROW; END CATCH",
            ["BEGIN", "INSERT", "COMMIT", "THROW"],
        ),
        (
            "IF @a = 1 BEGIN DELETE t END ELSE IF EXISTS (SELECT 1 FROM s) "
            "SELECT CASE WHEN 1=1 THEN 2 ELSE 3 END",
            ["IF", "DELETE", "IF", "SELECT"],
        ),
        ("DROP TABLE IF EXISTS #t SELECT 1", ["DROP", "SELECT"]),
        ("INSERT INTO #r EXEC dbo.p EXEC dbo.q", ["INSERT", "EXEC"]),
        ("DECLARE c CURSOR FOR SELECT a FROM t OPEN c", ["DECLARE", "OPEN"]),
        (
            "ALTER TABLE t DROP CONSTRAINT pk ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) "
            "REFERENCES u (a) ON DELETE CASCADE",
            ["ALTER", "ALTER"],
        ),
        ("lbl: SET @i = 1 GOTO lbl", ["SET", "GOTO"]),
        ("SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH NEXT 5 ROWS ONLY", ["SELECT"]),
    ],
)
def test_statement_split(body: str, leads: list[str]) -> None:
    assert [s.lead for s in split_statements(lex(body).tokens)] == leads


def test_statement_split_keeps_real_lines() -> None:
    body = "\n\nSET NOCOUNT ON\n\nINSERT t\n  SELECT a\n  FROM s\nRETURN 0"
    assert [(s.lead, s.line) for s in split_statements(lex(body).tokens)] == [
        ("SET", 3),
        ("INSERT", 5),
        ("RETURN", 8),
    ]


def test_module_takes_rest_of_batch() -> None:
    sts = split_statements(lex("CREATE OR ALTER PROCEDURE p AS SELECT 1 SELECT 2").tokens)
    assert len(sts) == 1 and sts[0].module


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("[Fact].[Sale]", "fact.sale"),
        ("Fact.Sale", "fact.sale"),
        ("fact.sale", "fact.sale"),
        ('"Fact"."Sale"', "fact.sale"),
        ("[Dimension].[Stock Item]", "dimension.stock item"),
        ("DimDate", "dbo.dimdate"),
        ("[a]]b]", "dbo.a]b"),
        ("#Temp", "#temp"),
        ("@T", "@t"),
        ("Dw..Orders", "dw.dbo.orders"),
        ("Srv.Dw.Sales.Orders", "srv.dw.sales.orders"),
    ],
)
def test_normalize_name(raw: str, normal: str) -> None:
    assert normalize_name(raw) == normal


@pytest.mark.parametrize(
    ("sql", "kind", "targets", "sources", "calls"),
    [
        (
            "UPDATE s SET a = 1 FROM Stage.T AS s JOIN dbo.D d ON 1=1",
            "update",
            ["stage.t"],
            ["dbo.d"],
            [],
        ),
        ("DELETE s FROM Fact.Sale s WHERE 1 = 1", "delete", ["fact.sale"], [], []),
        ("TRUNCATE TABLE Fact.[Stock Holding]", "truncate", ["fact.stock holding"], [], []),
        ("SELECT a INTO #x FROM dbo.T WITH (NOLOCK)", "select_into", ["#x"], ["dbo.t"], []),
        ("BULK INSERT dbo.T FROM 'c:\\x.csv'", "insert", ["dbo.t"], [], []),
        (
            "INSERT INTO Fact.T OUTPUT inserted.a INTO Audit.Log (a) VALUES (1)",
            "insert",
            ["fact.t", "audit.log"],
            [],
            [],
        ),
        ("EXEC @rc = [Load].[Run] 1", "exec", [], [], ["load.run"]),
        (
            "SELECT * FROM OPENQUERY(srv, 'select 1') q JOIN dbo.A a ON 1=1",
            "select",
            [],
            ["dbo.a"],
            [],
        ),
    ],
)
def test_scan(
    sql: str, kind: str, targets: list[str], sources: list[str], calls: list[str]
) -> None:
    found = scan_tokens(lex(sql).tokens)
    assert (found.kind, found.targets, found.sources, found.calls) == (
        kind,
        targets,
        sources,
        calls,
    )


def test_scan_flags_dynamic() -> None:
    found = scan_tokens(lex("EXEC (@sql)").tokens)
    assert found.dynamic and found.kind == "dynamic"
    assert scan_tokens(
        lex("EXEC sp_executesql N'SELECT 1 FROM dbo.T'").tokens
    ).dynamic_literals == ["SELECT 1 FROM dbo.T"]


@pytest.mark.parametrize(
    ("text", "sqlish"),
    [
        ("SELECT a FROM t", True),
        (" INSERT #t (a) SELECT", True),
        ("), 0) FROM ", True),
        ("Unable to populate dates for the year", False),
        ("Sale", False),
    ],
)
def test_looks_like_sql(text: str, sqlish: bool) -> None:
    assert looks_like_sql(text) is sqlish


def test_lexer_reports_unterminated_string() -> None:
    result = lex("SELECT 1\nSELECT 'oops\nFROM t")
    assert result.problems and result.problems[0][0] == 2
