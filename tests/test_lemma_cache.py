"""The lemma cache: a later process takes the lemmas the analyser gave an earlier one from
$VITRINA_HOME/cache/lemmas.json and never builds the analyser for them; a new word, another
analyser release, or a broken file falls back to the analyser, with the same lemmas.

Each check runs fresh interpreters (the cache is per process and written at exit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["кошельков", "типам", "людей", "платежам"]


def _lemmas(home: Path, words: list[str]) -> dict:
    """Lemmas of `words` in a fresh process keeping its lemmas under `home`/cache, and whether
    pymorphy3 was imported there."""
    code = (
        "import json, sys\nfrom pathlib import Path\n"
        "from vitrina.language import lemma_cache\nfrom vitrina.language.morph import lemma\n"
        f"lemma_cache.use(Path({str(home / 'cache')!r}))\n"
        f"out = {{w: lemma(w) for w in {words!r}}}\n"
        "print(json.dumps({'lemmas': out, 'analyser': 'pymorphy3' in sys.modules}))"
    )
    done = _python(code)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run in a fresh interpreter (the cache is per process, written at its exit)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_a_later_process_reuses_the_lemmas_without_the_analyser(tmp_path: Path) -> None:
    first = _lemmas(tmp_path, WORDS)
    assert first["analyser"] is True
    assert first["lemmas"] == {
        "кошельков": "кошелек",
        "типам": "тип",
        "людей": "человек",
        "платежам": "платеж",
    }
    stored = json.loads((tmp_path / "cache" / "lemmas.json").read_text(encoding="utf-8"))
    assert stored["lemmas"] == first["lemmas"] and "pymorphy3" in stored["analyser"]
    again = _lemmas(tmp_path, WORDS)
    assert again["lemmas"] == first["lemmas"] and again["analyser"] is False
    # a word the file lacks goes to the analyser, and is kept beside the others
    more = _lemmas(tmp_path, [*WORDS, "ипотеку"])
    assert more["analyser"] is True and more["lemmas"]["ипотеку"] == "ипотека"
    stored = json.loads((tmp_path / "cache" / "lemmas.json").read_text(encoding="utf-8"))
    assert set(stored["lemmas"]) == {*WORDS, "ипотеку"}


def test_lemmas_of_another_analyser_release_are_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "lemmas.json"
    cache.parent.mkdir(parents=True)
    wrong = {"analyser": "pymorphy3 0.0.1; ru 0.0.1", "lemmas": {"кошельков": "кошелёчек"}}
    cache.write_text(json.dumps(wrong, ensure_ascii=False), encoding="utf-8")
    found = _lemmas(tmp_path, ["кошельков"])
    assert found["lemmas"] == {"кошельков": "кошелек"} and found["analyser"] is True
    stored = json.loads(cache.read_text(encoding="utf-8"))
    assert stored["analyser"] != wrong["analyser"] and stored["lemmas"] == found["lemmas"]


def test_a_broken_cache_file_is_logged_and_rewritten(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "lemmas.json"
    cache.parent.mkdir(parents=True)
    cache.write_text('{"analyser": "pymorphy3', encoding="utf-8")
    found = _lemmas(tmp_path, ["типам"])
    assert found["lemmas"] == {"типам": "тип"} and found["analyser"] is True
    assert "lemmas.json is unreadable" in found["stderr"]
    assert json.loads(cache.read_text(encoding="utf-8"))["lemmas"] == {"типам": "тип"}


def test_an_unwritable_home_still_gives_the_lemmas(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder would be", encoding="utf-8")
    found = _lemmas(tmp_path, ["типам"])
    assert found["lemmas"] == {"типам": "тип"}
    assert "lemma cache not written" in found["stderr"]


def test_the_cache_is_bounded(tmp_path: Path, monkeypatch) -> None:
    from vitrina.language import lemma_cache

    monkeypatch.setattr(lemma_cache, "MAX_ENTRIES", 2)
    monkeypatch.setattr(lemma_cache, "_new", {})
    monkeypatch.setattr(lemma_cache, "_loaded", None)
    monkeypatch.setattr(lemma_cache, "_dir", None)
    lemma_cache.use(tmp_path / "cache")
    lemma_cache.use(tmp_path / "elsewhere")  # the first folder stays
    for n, word in enumerate(["а", "б", "в"]):
        lemma_cache.remember(word, f"lemma{n}")
    assert lemma_cache._new == {"а": "lemma0", "б": "lemma1"}
    lemma_cache.flush()
    stored = json.loads((tmp_path / "cache" / "lemmas.json").read_text("utf-8"))
    assert stored["lemmas"] == {"а": "lemma0", "б": "lemma1"}
    assert not (tmp_path / "elsewhere").exists()


def test_without_a_folder_nothing_is_kept(tmp_path: Path, monkeypatch) -> None:
    from vitrina.language import lemma_cache

    monkeypatch.setattr(lemma_cache, "_new", {})
    monkeypatch.setattr(lemma_cache, "_loaded", None)
    monkeypatch.setattr(lemma_cache, "_dir", None)
    lemma_cache.remember("типам", "тип")
    lemma_cache.flush()
    assert lemma_cache._new == {} and lemma_cache.cached("типам") is None


def test_a_second_cli_ask_does_not_load_the_analyser(demo_db: Path, tmp_path: Path) -> None:
    """The ask service keeps the lemmas under its home: the CLI's second process of the same
    question never imports pymorphy3."""
    code = f"""
import sys
from datetime import date
from pathlib import Path
from vitrina.ask import AskService
from vitrina.config import load_settings
settings = load_settings(db_url="duckdb:///{demo_db}").with_(home=Path({str(tmp_path)!r}))
service = AskService(settings, use_llm=False, write_files=False, today=date(2026, 11, 30))
result = service.ask("Сколько кошельков открыли в мае 2025?")
service.close()
print(result.status, "pymorphy3" in sys.modules)
"""
    first, second = (_python(code).stdout.split()[-2:] for _ in range(2))
    assert first == ["answered", "True"] and second == ["answered", "False"], (first, second)
    assert (tmp_path / "cache" / "lemmas.json").exists()
