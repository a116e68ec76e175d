"""Namespace-blind ElementTree helpers: 1C dumps change namespace URIs between versions."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path


def local(tag: str) -> str:
    return tag.rpartition("}")[2]


def parse_file(path: Path) -> ET.Element:
    """Parse bytes (expat reads the UTF-8 BOM the Designer writes)."""
    return ET.fromstring(path.read_bytes())


def children(node: ET.Element | None, name: str) -> Iterator[ET.Element]:
    if node is None:
        return
    for child in node:
        if local(child.tag) == name:
            yield child


def child(node: ET.Element | None, name: str) -> ET.Element | None:
    return next(children(node, name), None)


def text(node: ET.Element | None, name: str, default: str = "") -> str:
    found = child(node, name)
    return (found.text or "").strip() if found is not None and found.text else default
