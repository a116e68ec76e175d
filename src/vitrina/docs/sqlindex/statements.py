"""Splitting a batch or a procedural body into statements by the keywords that start them.

T-SQL needs no semicolons, so sqlglot cannot parse most real procedure bodies whole
(TRY/CATCH, IF/BEGIN/END, WHILE, THROW, RETURN ...). This splitter cuts them where a
statement keyword stands at parenthesis depth 0, knowing the places where the same
keyword continues a statement (`INSERT ... SELECT`, `UNION SELECT`, `MERGE ... THEN
UPDATE SET`, `WITH cte AS (...) UPDATE`, `DROP TABLE IF EXISTS`, `CASE ... END`).
Block words (BEGIN/END, TRY/CATCH, ELSE, labels) are boundaries and produce no
statement; IF and WHILE produce a statement holding their condition.

>>> body = lex(
...     "IF EXISTS (SELECT 1 FROM a) BEGIN UPDATE t SET x = 1 FROM b END ELSE SET @n = 1"
... ).tokens
>>> [(s.lead, len(s.tokens)) for s in split_statements(body)]
[('IF', 8), ('UPDATE', 8), ('SET', 4)]
"""

from __future__ import annotations

from dataclasses import dataclass

from vitrina.docs.sqlindex.lexer import OP, QUOTED, WORD, Tok, lex

__all__ = ["MODULE_KINDS", "RESERVED", "RawStatement", "lex", "module_kind", "split_statements"]

MODULE_KINDS = {
    "PROC": "procedure",
    "PROCEDURE": "procedure",
    "FUNCTION": "function",
    "VIEW": "view",
    "TRIGGER": "other",
}

ALWAYS_START = frozenset(
    {
        "DECLARE",
        "PRINT",
        "RAISERROR",
        "THROW",
        "RETURN",
        "BREAK",
        "CONTINUE",
        "GOTO",
        "WAITFOR",
        "OPEN",
        "FETCH",
        "CLOSE",
        "DEALLOCATE",
        "USE",
        "IF",
        "WHILE",
        "TRUNCATE",
        "MERGE",
        "COMMIT",
        "ROLLBACK",
        "SAVE",
        "BULK",
        "DBCC",
        "GRANT",
        "DENY",
        "REVOKE",
        "CHECKPOINT",
        "RECONFIGURE",
        "KILL",
        "ENABLE",
        "DISABLE",
        "CREATE",
        "ALTER",
        "DROP",
        "BACKUP",
        "RESTORE",
        "REVERT",
        "SETUSER",
    }
)
_GRANTS = frozenset({"GRANT", "DENY", "REVOKE"})
_DDL = frozenset({"CREATE", "ALTER"})  # ON DELETE / ON UPDATE of a foreign key
_OBJECT_WORDS = frozenset(
    {
        "TABLE",
        "VIEW",
        "PROCEDURE",
        "PROC",
        "FUNCTION",
        "INDEX",
        "TRIGGER",
        "SCHEMA",
        "SEQUENCE",
        "TYPE",
        "SYNONYM",
        "DATABASE",
        "USER",
        "ROLE",
        "STATISTICS",
        "LOGIN",
    }
)

# Words that can never be an object name: used to reject names in the scan and CTE checks.
_RESERVED_WORDS = """
ADD ALL ALTER AND ANY AS ASC BACKUP BEGIN BETWEEN BREAK BROWSE BULK BY CASCADE CASE CHECK
CHECKPOINT CLOSE CLUSTERED COLLATE COLUMN COMMIT CONSTRAINT CONTAINS CONTINUE CONVERT CREATE
CROSS CURRENT CURSOR DATABASE DBCC DEALLOCATE DECLARE DEFAULT DELETE DENY DESC DISTINCT DROP
ELSE END ESCAPE EXCEPT EXEC EXECUTE EXISTS EXIT FETCH FOR FOREIGN FROM FULL FUNCTION GOTO
GRANT GROUP HAVING HOLDLOCK IDENTITY IF IN INDEX INNER INSERT INTERSECT INTO IS JOIN KEY
KILL LEFT LIKE MERGE NOCHECK NONCLUSTERED NOT NULL OF OFF ON OPEN OPTION OR ORDER OUTER
OUTPUT OVER PERCENT PIVOT PRIMARY PRINT PROC PROCEDURE RAISERROR READ REFERENCES RETURN
REVOKE RIGHT ROLLBACK SAVE SCHEMA SELECT SET TABLE THEN TO TOP TRAN TRANSACTION TRIGGER
TRUNCATE UNION UNIQUE UNPIVOT UPDATE USE USING VALUES VIEW WAITFOR WHEN WHERE WHILE WITH
THROW TRY CATCH APPLY MATCHED
"""
RESERVED = frozenset(_RESERVED_WORDS.split())


@dataclass(slots=True)
class RawStatement:
    """Tokens of one statement; `lead` is its first keyword, `module` marks CREATE PROC etc."""

    tokens: list[Tok]
    lead: str
    module: bool = False

    @property
    def line(self) -> int:
        return self.tokens[0].line


def module_kind(tokens: list[Tok], i: int) -> tuple[str, int] | None:
    """(kind, index of the kind word) when tokens[i:] opens CREATE/ALTER
    PROC|FUNCTION|VIEW|TRIGGER."""
    if tokens[i].up not in ("CREATE", "ALTER"):
        return None
    j = i + 1
    if (
        tokens[i].up == "CREATE"
        and j + 1 < len(tokens)
        and tokens[j].up == "OR"
        and tokens[j + 1].up == "ALTER"
    ):
        j += 2
    if j < len(tokens) and tokens[j].up in MODULE_KINDS:
        return MODULE_KINDS[tokens[j].up], j
    return None


def split_statements(tokens: list[Tok]) -> list[RawStatement]:
    """Statements of a token run; a module definition takes the rest of the run."""
    return _Splitter(tokens).run()


class _Splitter:
    def __init__(self, tokens: list[Tok]) -> None:
        self.tokens = tokens
        self.out: list[RawStatement] = []
        self.cur: list[Tok] = []
        self.lead = ""
        self.depth = 0
        self.case_depth = 0
        self.insert_awaiting = False  # INSERT seen, its SELECT/VALUES/EXEC not yet
        self.update_pending = 0  # UPDATE seen, its SET not yet
        self.cte_pending = False  # WITH cte AS (...) seen, its main statement not yet

    def flush(self) -> None:
        if self.cur:
            self.out.append(RawStatement(self.cur, self.lead))
        self.cur = []
        self.lead = ""
        self.insert_awaiting = False
        self.update_pending = 0
        self.cte_pending = False

    def start(self, tok: Tok, *, cte: bool = False) -> None:
        self.flush()
        self.cur = [tok]
        self.lead = tok.up
        self.insert_awaiting = tok.up == "INSERT"
        self.update_pending = 1 if tok.up == "UPDATE" else 0
        self.cte_pending = cte

    def peek(self, i: int) -> Tok | None:
        return self.tokens[i] if i < len(self.tokens) else None

    def run(self) -> list[RawStatement]:
        tokens = self.tokens
        i, n = 0, len(tokens)
        while i < n:
            tok = tokens[i]
            if tok.kind == OP:
                if tok.text == "(":
                    self.depth += 1
                elif tok.text == ")":
                    self.depth = max(0, self.depth - 1)
                elif tok.text == ";":
                    self.flush()
                    self.depth = 0
                    self.case_depth = 0
                    i += 1
                    continue
                self.cur.append(tok)
                i += 1
                continue
            if tok.kind != WORD:
                self.cur.append(tok)
                i += 1
                continue
            w = tok.up
            if w == "CASE":
                self.case_depth += 1
            elif w == "END" and self.case_depth > 0:
                self.case_depth -= 1
            elif self.depth == 0:
                skip = self.boundary(i)
                if skip:
                    i += skip
                    continue
                if not self.cur or self.is_start(i):
                    if module_kind(tokens, i) is not None:
                        self.flush()
                        self.out.append(RawStatement(tokens[i:], w, module=True))
                        return self.out
                    self.start(tok, cte=w == "WITH" and self.is_cte(i))
                    i += 1
                    continue
            self.cur.append(tok)
            i += 1
        self.flush()
        return self.out

    def boundary(self, i: int) -> int:
        """Tokens to skip when tokens[i] is a block word (BEGIN, END, ELSE, label), else 0."""
        tok = self.tokens[i]
        w = tok.up
        nxt = self.peek(i + 1)
        nup = nxt.up if nxt is not None else ""
        if w == "END":
            self.flush()
            return 2 if nup in ("TRY", "CATCH") else 1
        if w == "ELSE":
            if self.case_depth > 0:
                return 0  # CASE ... ELSE
            self.flush()
            return 1
        if w == "BEGIN":
            if nup in ("TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"):
                return 0
            self.flush()
            return 2 if nup in ("TRY", "CATCH") else 1
        if (
            not self.cur
            and nxt is not None
            and nxt.kind == OP
            and nxt.text == ":"
            and nxt.line == tok.line
        ):
            after = self.peek(i + 2)
            if after is None or after.text != ":":
                return 2  # a GOTO label
        return 0

    def is_start(self, i: int) -> bool:
        """Whether the word at tokens[i] (depth 0) starts a new statement here."""
        tok = self.tokens[i]
        w = tok.up
        prev = self.cur[-1] if self.cur else None
        pup = prev.up if prev is not None and prev.kind == WORD else (prev.text if prev else "")
        nxt = self.peek(i + 1)
        nup = nxt.up if nxt is not None and nxt.kind == WORD else (nxt.text if nxt else "")
        if pup in _GRANTS or pup == ",":
            return False
        if w in ALWAYS_START:
            if w == "IF" and nup == "EXISTS" and self.lead == "DROP":
                return False
            if w in ("ENABLE", "DISABLE") and (self.lead == "ALTER" or nup != "TRIGGER"):
                return False
            if w == "FETCH" and pup in ("ROWS", "ROW", "FIRST", "NEXT"):
                return False
            if w == "MERGE" and self.cte_pending:
                self.cte_pending = False
                return False
            if w in ("CREATE", "ALTER", "DROP") and pup == "WITH":
                return False
            # ALTER TABLE t DROP CONSTRAINT c / ALTER COLUMN c continue the ALTER
            return not (
                w in ("ALTER", "DROP") and self.lead == "ALTER" and nup not in _OBJECT_WORDS
            )
        if w == "SET":
            if self.update_pending > 0:
                self.update_pending -= 1
                return False
            return not (self.lead == "ALTER" or pup in ("DELETE", "UPDATE"))
        if w == "UPDATE":
            if nup == "(":
                return False  # UPDATE(column) in a trigger condition
            if nup == "STATISTICS":
                return True
            if (
                pup in ("THEN", "FOR", "OF")
                or (pup == "ON" and self.lead in _DDL)
                or self.cte_pending
            ):
                self.cte_pending = False
                self.update_pending += 1
                return False
            return True
        if w in ("INSERT", "DELETE"):
            if (
                pup in ("THEN", "BULK", "FOR", "AFTER", "OF")
                or (pup == "ON" and self.lead in _DDL)
                or self.cte_pending
            ):
                self.cte_pending = False
                self.insert_awaiting = w == "INSERT"
                return False
            return True
        if w == "SELECT":
            if (
                pup in ("UNION", "ALL", "EXCEPT", "INTERSECT", "FOR", "AS")
                or self.insert_awaiting
                or self.cte_pending
            ):
                self.insert_awaiting = False
                self.cte_pending = False
                return False
            return not (self.lead == "RETURN" and len(self.cur) == 1)
        if w in ("VALUES", "DEFAULT"):
            self.insert_awaiting = False
            return False
        if w in ("EXEC", "EXECUTE"):
            if self.insert_awaiting:
                self.insert_awaiting = False
                return False
            return pup not in ("WITH", "AS")
        if w == "WITH":
            if self.lead == "RETURN" and len(self.cur) == 1:
                self.cte_pending = True
                return False
            return self.is_cte(i)
        return False

    def is_cte(self, i: int) -> bool:
        """WITH name AS ( or WITH name (cols) AS ( : a common table expression."""
        name = self.peek(i + 1)
        if name is None or not (
            name.kind == QUOTED or (name.kind == WORD and name.up not in RESERVED)
        ):
            return False
        if name.up == "XMLNAMESPACES":
            return True
        j = i + 2
        tok = self.peek(j)
        if tok is not None and tok.text == "(":
            depth = 0
            while j < len(self.tokens):
                t = self.tokens[j]
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            tok = self.peek(j + 1)
        return tok is not None and tok.up == "AS"
