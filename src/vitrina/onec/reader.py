"""One entry point for both dump formats, with the cross-checks neither format does."""

from __future__ import annotations

from pathlib import Path

from vitrina.onec.designer import read_designer
from vitrina.onec.edt import read_edt
from vitrina.onec.model import Configuration, OneCWarning
from vitrina.trace import Trace


class OneCInputError(Exception):
    """The path is not a configuration dump (neither Configuration.xml nor Configuration.mdo)."""


def detect_format(root: Path) -> str:
    if (root / "Configuration.xml").is_file():
        return "designer"
    if (root / "Configuration" / "Configuration.mdo").is_file():
        return "edt"
    raise OneCInputError(
        f"{root}: neither Configuration.xml (Designer) nor Configuration/Configuration.mdo (EDT)"
    )


def read_configuration(path: Path | str, *, trace: Trace | None = None) -> Configuration:
    """Read a configuration dumped to files in the Designer or the EDT format.

    Missing or unreadable object files are warnings (also trace events), never fatal.
    """
    root = Path(path)
    trace = trace or Trace("onec")
    fmt = detect_format(root)
    config = read_designer(root) if fmt == "designer" else read_edt(root)
    for obj in config.of_kind("Document"):
        for ref in obj.register_records:
            if ref not in config.objects:
                config.warnings.append(
                    OneCWarning(
                        code="unknown_reference",
                        name=ref,
                        file=obj.file,
                        message=f"{obj.full_name} records into {ref}, which was not read",
                    )
                )
    for warning in config.warnings:
        trace.warning(warning.message, code=warning.code, name=warning.name)
    trace.measurement(
        "configuration read", format=fmt, objects=len(config.objects), warnings=len(config.warnings)
    )
    return config
