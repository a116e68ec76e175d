"""The sandbox: hostile code fails safely within its limits; no isolation means no run."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from vitrina.task.sandbox import SandboxLimits, SandboxUnavailable, isolation, run_python, runner

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
LIMITS = SandboxLimits(cpu_s=1, wall_s=5, memory_mb=512, file_mb=5, procs=16)


@pytest.fixture(scope="module", autouse=True)
def _isolated():
    mode, why = isolation()
    if mode is None:
        if IN_CI:
            pytest.fail(f"CI=true but the sandbox is unavailable: {why}")
        pytest.skip(f"sandbox unavailable here: {why}")


def run(code: str, out_dir: Path, **kw) -> tuple[object, float]:
    start = time.perf_counter()
    result = run_python(code, limits=LIMITS, out_dir=out_dir, **kw)
    return result, time.perf_counter() - start


def test_runs_numpy_with_data_in_and_out(tmp_path: Path):
    src = tmp_path / "t.json"
    src.write_text('{"columns": ["x"], "rows": [[1], [2]]}', encoding="utf-8")
    code = ("import json, numpy\nd = json.load(open('in/t.json'))\n"
            "json.dump({'s': float(numpy.sum([r[0] for r in d['rows']]))}, open('out/r.json', 'w'))")
    result, _ = run(code, tmp_path / "out", inputs={"t.json": src})
    assert result.ok, result.stderr
    assert [f.name for f in result.files] == ["r.json"] and result.files[0].read_text() == '{"s": 3.0}'


@pytest.mark.parametrize(("name", "code", "expect", "limit"), [
    ("network", "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=2)", "Network is unreachable",
     None),
    ("fork bomb", "import os\nwhile True:\n    os.fork()", "Resource temporarily unavailable", "processes"),
    ("memory hog", "x = bytearray(2 * 1024 ** 3)", "MemoryError", "memory"),
    ("endless loop", "while True:\n    pass", "", ("cpu", "wall")),  # wall when the machine is busy
    ("sleeping forever", "import time\ntime.sleep(600)", "", "wall"),
    ("write outside", "open('/tmp/vitrina-escape.txt', 'w').write('x')", "Read-only file system", None),
    ("write the source tree", f"open({str(Path(__file__))!r}, 'a').write('x')", "[Errno", None),
    ("huge file", "open('out/big', 'wb').write(b'0' * (20 << 20))", "File too large", "file_size"),
    ("remount", "import subprocess\nr = subprocess.run(['mount', '-o', 'remount,rw', '/'])\nraise SystemExit(r.returncode)",
     "", None),
])
def test_hostile_code_fails_safely(name, code, expect, limit, tmp_path):
    result, elapsed = run(code, tmp_path)
    assert not result.ok, name
    assert expect in result.stderr
    assert result.limit in (limit if isinstance(limit, tuple) else (limit,))
    assert elapsed < LIMITS.wall_s + 3
    assert not Path("/tmp/vitrina-escape.txt").exists()


def test_refuses_without_isolation(monkeypatch):
    monkeypatch.setattr(runner, "_unshare", lambda: None)
    runner.isolation.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="unshare"):
            run_python("print('never')")
    finally:
        runner.isolation.cache_clear()
