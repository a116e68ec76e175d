"""The bank on disk: ``verified/`` in the catalog folder, one YAML file per entry, so an
entry is reviewed in git like the rest of the catalog. Entries waiting for a person (an
import, an adapted query) are in ``verified/pending/`` and never answer until accepted.
The catalog loader skips this folder: an entry is not a catalog section.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import yaml
from pydantic import ValidationError

from vitrina.query.verified.model import Entry
from vitrina.query.verified.texts import Bilingual

BANK_DIR = "verified"
PENDING_DIR = "pending"
MAX_ENTRIES = 10_000  # files read from one folder


class BankError(Bilingual):
    """A bank file that cannot be read or an entry that is not there: file and what to do."""


def bank_dir(catalog_dir: Path | None, home: Path) -> Path:
    """Where the bank of a catalog lives (the demo catalog's: under VITRINA_HOME)."""
    return (catalog_dir / BANK_DIR) if catalog_dir is not None else home / BANK_DIR


def _dump(entry: Entry) -> str:
    data = entry.model_dump(mode="json", exclude_none=True, exclude_defaults=False)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


def read_entry(path: Path) -> Entry:
    """One entry file; BankError naming the file and the field when it is broken."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Entry.model_validate(data)
    except (OSError, yaml.YAMLError) as exc:
        raise BankError(
            f"{path}: cannot read the entry ({exc})", f"{path}: запись не читается ({exc})"
        ) from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "entry"
        raise BankError(
            f"{path}: {where}: {first['msg']}; fix the file or remove it",
            f"{path}: {where}: {first['msg']}; исправьте файл или удалите его",
        ) from exc


class Bank:
    """The verified entries of one catalog, and those waiting for review."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def pending_root(self) -> Path:
        return self.root / PENDING_DIR

    def _files(self, folder: Path) -> list[Path]:
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.glob("*.yaml") if p.is_file())[:MAX_ENTRIES]

    def entries(self, *, pending: bool = False) -> list[Entry]:
        """Every entry of the bank (or of the review queue), in file order."""
        return [read_entry(p) for p in self._files(self.pending_root if pending else self.root)]

    def usable(self) -> list[Entry]:
        """The entries that may answer: verified and not stale; a broken file is skipped
        (``vitrina verified list`` shows why)."""
        out = []
        for path in self._files(self.root):
            try:
                entry = read_entry(path)
            except BankError:
                continue
            if entry.usable():
                out.append(entry)
        return out

    def path(self, entry_id: str, *, pending: bool = False) -> Path:
        return (self.pending_root if pending else self.root) / f"{entry_id}.yaml"

    def get(self, entry_id: str, *, pending: bool = False) -> Entry:
        path = self.path(entry_id, pending=pending)
        if not path.is_file():
            where = "review queue" if pending else "bank"
            where_ru = "очереди на проверку" if pending else "банке"
            raise BankError(
                f"no entry {entry_id!r} in the {where} ({path.parent}); "
                "`vitrina verified list` shows the ids",
                f"записи {entry_id!r} нет в {where_ru} ({path.parent}); "
                "номера записей показывает `vitrina verified list`",
            )
        return read_entry(path)

    def save(self, entry: Entry, *, pending: bool = False) -> Path:
        path = self.path(entry.id, pending=pending)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(entry), encoding="utf-8")
        return path

    def remove(self, entry_id: str, *, pending: bool = False) -> Path:
        path = self.path(entry_id, pending=pending)
        if not path.is_file():
            self.get(entry_id, pending=pending)  # raises with the message
        path.unlink()
        return path

    def accept(self, entry_id: str, reviewer: str, today: date) -> Entry:
        """A person accepts an entry of the review queue: it moves into the bank, verified."""
        entry = self.get(entry_id, pending=True)
        accepted = entry.model_copy(
            update={"status": "verified", "verified_by": reviewer, "verified_at": today}
        )
        self.save(Entry.model_validate(accepted.model_dump()))
        self.remove(entry_id, pending=True)
        return accepted
