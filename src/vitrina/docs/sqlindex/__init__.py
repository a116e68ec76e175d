"""SQL object index: tables, views, procedures and functions of T-SQL files with what each reads and
writes.

The docs job calls `build_index` once over the warehouse project (an SSDT folder, install
scripts) and asks the index who loads a table, what a view reads and where a view column
comes from. See build.py for the parse pipeline (sqlglot -> statement split -> token scan).
"""

from vitrina.docs.sqlindex.build import build_index
from vitrina.docs.sqlindex.index import SqlIndex
from vitrina.docs.sqlindex.models import SqlError, SqlObject, SqlStatementInfo
from vitrina.docs.sqlindex.names import normalize_name

__all__ = ["SqlError", "SqlIndex", "SqlObject", "SqlStatementInfo", "build_index", "normalize_name"]
