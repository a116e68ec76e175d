"""Lemmas the analyser gave before, kept on disk, so a fresh process need not build it.

Building pymorphy3's analyser (its dictionaries are pure-Python DAWGs) and importing it
is ~0.1-0.2 s of CPU. In a cold `vitrina ask` that is a sixth of the process, and it buys
the lemmas of the handful of question words a match needs (decision 135, 143). The lemmas
it gave are kept in `$VITRINA_HOME/cache/lemmas.json` (the ask service names the folder:
`use`). The file is keyed by the installed pymorphy3 and dictionary versions: a new
release of either starts an empty cache. A word seen before then costs a dictionary
lookup. A new word still goes to the analyser, so the file only ever holds what the
analyser said. It is bounded (MAX_ENTRIES) and written atomically at exit. A file that
cannot be read or written is logged and left alone; the lemmas are right either way.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import threading
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

log = logging.getLogger(__name__)

MAX_ENTRIES = 50_000  # ~1.5 MB of JSON; a user's vocabulary is a few thousand words
FILE_NAME = "lemmas.json"
_LOCK = threading.Lock()
_new: dict[str, str] = {}  # lemmas this process computed that the file does not hold yet
_loaded: dict[str, str] | None = None  # the file's lemmas, once read
_dir: Path | None = None  # where they are kept (`use`)
_flush_registered = False


def _version_file(package: str) -> str:
    """The text of a package's version.py, found without importing the package."""
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return "absent"
    path = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return "unknown"


@lru_cache(maxsize=1)
def analyser_key() -> str:
    """Which analyser the lemmas came from: pymorphy3's version and its dictionaries'."""
    return f"pymorphy3 {_version_file('pymorphy3')}; ru {_version_file('pymorphy3_dicts_ru')}"


def use(directory: Path) -> None:
    """Keep the lemmas in `directory` (the caller's `$VITRINA_HOME/cache`). The first call
    wins: the lemmas are written where they were read. Until a call, nothing is kept: this
    package sits below the configuration and does not read it."""
    global _dir
    with _LOCK:
        if _dir is None:
            _dir = Path(directory)


def cache_path() -> Path | None:
    return _dir / FILE_NAME if _dir is not None else None


def _read(path: Path) -> dict[str, str]:
    """The file's lemmas if it was written for this analyser; empty otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("lemma cache %s is unreadable (%s); it will be rewritten", path, exc)
        return {}
    if not isinstance(data, dict) or data.get("analyser") != analyser_key():
        return {}
    lemmas = data.get("lemmas")
    if not isinstance(lemmas, dict):
        return {}
    return {w: lem for w, lem in lemmas.items() if isinstance(w, str) and isinstance(lem, str)}


def _known() -> dict[str, str]:
    """The file's lemmas, read once (empty until `use`)."""
    global _loaded
    if _loaded is None:
        path = cache_path()
        if path is None:
            return {}
        _loaded = _read(path)
    return _loaded


def cached(word: str) -> str | None:
    """The lemma kept for `word`, or None when the analyser has to be asked."""
    return _new.get(word) or _known().get(word)


def remember(word: str, lemma: str) -> None:
    """Keep a lemma the analyser just gave; written at exit (`flush`)."""
    global _flush_registered
    if _dir is None or len(_known()) + len(_new) >= MAX_ENTRIES:
        return  # bounded: a word beyond the bound is asked of the analyser each process
    with _LOCK:
        _new[word] = lemma
        if not _flush_registered:
            atexit.register(flush)
            _flush_registered = True


def flush() -> None:
    """Merge this process's new lemmas into the file (other processes' additions kept), then
    replace it atomically. Never raises: the cache only saves time."""
    with _LOCK:
        if not _new:
            return
        path, tmp = cache_path(), None
        if path is None:
            return
        try:
            merged = _read(path)
            for word, lemma in _new.items():
                if len(merged) >= MAX_ENTRIES:
                    break
                merged.setdefault(word, lemma)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{FILE_NAME}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(
                json.dumps({"analyser": analyser_key(), "lemmas": merged}, ensure_ascii=False),
                encoding="utf-8",
            )
            os.replace(tmp, path)
        except OSError as exc:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
            log.warning("lemma cache not written (%s): the next process asks the analyser", exc)
            return
        _known().update(_new)
        _new.clear()
