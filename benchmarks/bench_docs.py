"""Benchmark of the docs job: 1,000 measures over a synthetic model with SQL behind it.

`run()` generates a model (measures on measures and columns, M partitions over views,
views over views over tables, procedures loading the tables from staging), runs the docs
job end to end in rules mode in a child process, and reports wall seconds and peak RSS.
Targets: under 20 s and under 500 MB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_MEASURES = 1000
N_TABLES = 25
COLUMNS = ["Amount", "Quantity", "Cost", "Discount", "Tax"]


def generate(root: Path, n_measures: int = N_MEASURES, n_tables: int = N_TABLES) -> tuple[Path, Path]:
    """Write `model.bim` and a `sql/` folder under root; return their paths."""
    sql = root / "sql"
    sql.mkdir(parents=True, exist_ok=True)
    tables = []
    per_table = n_measures // n_tables
    for t in range(n_tables):
        name = f"Fact{t:02d}"
        cols = [{"name": c, "dataType": "decimal", "sourceColumn": c} for c in COLUMNS]
        measures = []
        for k in range(per_table):
            i = t * per_table + k
            if k < len(COLUMNS):
                expr = f"SUM('{name}'[{COLUMNS[k]}])"
            elif k % 3 == 0:
                expr = f"DIVIDE([M{i - 1}], [M{i - 2}], 0)"
            elif k % 3 == 1:
                expr = (f"CALCULATE([M{i - 3}], FILTER(ALL('{name}'), '{name}'[Amount] > 0),"
                        f" SAMEPERIODLASTYEAR('Date'[Date]))")
            else:
                expr = f"VAR x = [M{i - 1}] VAR y = SUMX('{name}', '{name}'[Quantity] * '{name}'[Cost]) RETURN x + y"
            measures.append({"name": f"M{i}", "expression": expr, "displayFolder": f"Topic {t % 5}",
                             "formatString": "#,0"})
        tables.append({
            "name": name, "columns": cols, "measures": measures,
            "partitions": [{"name": name, "source": {"type": "m", "expression": [
                "let", '    Source = Sql.Database("srv", "dw"),',
                f'    T = Source{{[Schema="rpt",Item="v{name}"]}}[Data]', "in", "    T"]}}],
        })
        col_list = ", ".join(COLUMNS)
        (sql / f"{name}.sql").write_text(
            f"CREATE TABLE fact.{name} (Id INT NOT NULL, {', '.join(c + ' DECIMAL(18,2)' for c in COLUMNS)});\nGO\n"
            f"CREATE TABLE stage.{name}_Staging (Id INT NOT NULL, {', '.join(c + ' DECIMAL(18,2)' for c in COLUMNS)});\nGO\n"
            f"CREATE VIEW rpt.v{name}Base AS SELECT Id, {col_list} FROM fact.{name};\nGO\n"
            f"CREATE VIEW rpt.v{name} AS SELECT b.Id, {', '.join('b.' + c for c in COLUMNS)} FROM rpt.v{name}Base AS b;\nGO\n"
            f"CREATE PROCEDURE etl.Load{name}\nAS\nBEGIN\n    SET NOCOUNT ON;\n    TRUNCATE TABLE fact.{name};\n"
            f"    INSERT INTO fact.{name} (Id, {col_list})\n    SELECT Id, {col_list} FROM stage.{name}_Staging;\nEND;\nGO\n",
            encoding="utf-8",
        )
    tables.append({"name": "Date", "columns": [{"name": "Date", "dataType": "dateTime", "sourceColumn": "Date"}],
                   "partitions": [{"name": "Date", "source": {"type": "query", "query": "SELECT [Date] FROM dim.Date"}}]})
    (sql / "dim.sql").write_text("CREATE TABLE dim.Date ([Date] DATE NOT NULL);\nGO\n", encoding="utf-8")
    model = root / "model.bim"
    model.write_text(json.dumps({"name": "Bench", "compatibilityLevel": 1600, "model": {"tables": tables}}), encoding="utf-8")
    return model, sql


TARGETS = {"seconds": "< 20 s", "peak_rss_mb": "< 500 MB"}


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM belongs to the address space, so
    it starts fresh at exec; ru_maxrss is carried over from a large parent at fork time."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(root: Path) -> dict[str, float]:
    os.environ["VITRINA_HOME"] = str(root / "home")
    from vitrina.docs.run import make_request, run_docs

    model, sql = generate(root)
    start = time.perf_counter()
    report = run_docs(make_request(model, [sql], out=root / "out", all_measures=True, lang="en"))
    seconds = time.perf_counter() - start
    peak_mb = peak_rss_mb()
    return {"seconds": round(seconds, 2), "peak_rss_mb": round(peak_mb, 1), "measures": float(len(report.processed)),
            "missed": float(len(report.missed)), "procedures_traced": float(_count_procedures(root / "out" / "index.json"))}


def _count_procedures(index: Path) -> int:
    data = json.loads(index.read_text(encoding="utf-8"))
    return sum(1 for m in data["measures"].values() if m["lineage"].get("procedures"))


def run() -> dict[str, float]:
    """Run the benchmark in a fresh process (so peak RSS is the job's own)."""
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-docs-") as tmp:
        proc = subprocess.run([sys.executable, __file__, "--child", tmp], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"bench child failed: {proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(Path(sys.argv[2]))))
    else:
        result = run()
        print(json.dumps(result, indent=1))
        ok = result["seconds"] < 20 and result["peak_rss_mb"] < 500 and result["measures"] == N_MEASURES
        print("targets met" if ok else "targets NOT met (20 s, 500 MB, every measure)")
