"""Partition sources: SQL queries (sqlglot, T-SQL) and Power Query M expressions."""

from vitrina.docs.sources.m import m_sources
from vitrina.docs.sources.partition import partition_sources
from vitrina.docs.sources.sql import sql_source
from vitrina.docs.sources.types import SourceRef

__all__ = ["SourceRef", "m_sources", "partition_sources", "sql_source"]
