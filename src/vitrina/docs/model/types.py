"""One internal model for .bim and TMDL, so nothing downstream knows the file format."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

PartitionKind = Literal[
    "query", "m", "calculated", "calculationGroup", "entity", "policyRange", "unknown"
]


class Column(BaseModel):
    """A model column; `source_column` is the name in the partition's result set."""

    name: str
    kind: Literal["data", "calculated", "calculatedTableColumn"] = "data"
    data_type: str | None = None
    source_column: str | None = None
    expression: str | None = None
    description: str | None = None
    display_folder: str | None = None
    is_hidden: bool = False


class Measure(BaseModel):
    """A DAX measure with the properties the documents show."""

    name: str
    table: str
    expression: str
    description: str | None = None
    display_folder: str | None = None
    format_string: str | None = None
    is_hidden: bool = False
    file: str | None = None
    line: int | None = None

    @property
    def ref(self) -> str:
        return f"[{self.name}]"


class Partition(BaseModel):
    """One partition's source: a SQL query, an M expression or a DAX expression."""

    name: str
    kind: PartitionKind = "unknown"
    expression: str | None = None  # SQL for query, M for m, DAX for calculated
    data_source: str | None = None
    mode: str | None = None


class CalculationItem(BaseModel):
    name: str
    expression: str = ""


class Table(BaseModel):
    name: str
    description: str | None = None
    columns: list[Column] = Field(default_factory=list)
    measures: list[Measure] = Field(default_factory=list)
    partitions: list[Partition] = Field(default_factory=list)
    calculation_items: list[CalculationItem] = Field(default_factory=list)
    is_hidden: bool = False

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for col in self.columns:
            if col.name.lower() == low:
                return col
        return None


class Relationship(BaseModel):
    name: str | None = None
    from_table: str
    from_column: str
    to_table: str
    to_column: str
    is_active: bool = True
    cross_filter: str | None = None


class DataSource(BaseModel):
    """Legacy (connection string) or structured (connection details) data source."""

    name: str
    kind: Literal["legacy", "structured"] = "legacy"
    connection_string: str | None = None
    protocol: str | None = None
    server: str | None = None
    database: str | None = None


class Expression(BaseModel):
    """A shared expression: an M query or a parameter (`meta [IsParameterQuery=true]`)."""

    name: str
    kind: str = "m"
    expression: str = ""
    description: str | None = None
    is_parameter: bool = False


class Model(BaseModel):
    name: str = "Model"
    path: str = ""
    format: Literal["bim", "tmdl"] = "bim"
    compatibility_level: int | None = None
    tables: list[Table] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    data_sources: list[DataSource] = Field(default_factory=list)
    expressions: list[Expression] = Field(default_factory=list)
    _by_name: dict[str, Measure] | None = PrivateAttr(default=None)
    _count: int = PrivateAttr(default=-1)

    @property
    def measures(self) -> list[Measure]:
        return [m for t in self.tables for m in t.measures]

    def table(self, name: str) -> Table | None:
        low = name.lower()
        for table in self.tables:
            if table.name.lower() == low:
                return table
        return None

    def measure(self, name: str) -> Measure | None:
        """Measure names are unique model-wide (case-insensitive); the map is rebuilt on edits."""
        count = sum(len(t.measures) for t in self.tables)
        if self._by_name is None or self._count != count:
            self._by_name = {}
            for m in self.measures:
                self._by_name.setdefault(m.name.lower(), m)
            self._count = count
        return self._by_name.get(name.lower())

    def expression(self, name: str) -> Expression | None:
        low = name.lower()
        for expr in self.expressions:
            if expr.name.lower() == low:
                return expr
        return None

    def data_source(self, name: str) -> DataSource | None:
        low = name.lower()
        for ds in self.data_sources:
            if ds.name.lower() == low:
                return ds
        return None
