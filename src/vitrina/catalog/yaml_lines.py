"""Load YAML while remembering the line of every mapping key and list item.

PyYAML's composer keeps a start mark on every node; walking the node tree once gives
a map from an object path such as ("tables", 2, "columns", 0) to a 1-based line, so a
validation error deep inside a file can still say where it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

LinePath = tuple[str | int, ...]
# libyaml's parser when PyYAML has it (same resolver and constructor, same marks): ~10x
# faster, and the demo catalog was ~0.1 s of every cold `vitrina ask`
_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _walk(node: yaml.Node, path: LinePath, lines: dict[LinePath, int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), lines)
            lines[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines)


def _parse(text: str, loader: type) -> tuple[Any, dict[LinePath, int]]:
    node = yaml.compose(text, Loader=loader)
    if node is None:
        return None, {}
    lines: dict[LinePath, int] = {}
    _walk(node, (), lines)
    return yaml.load(text, Loader=loader), lines


def load_yaml_with_lines(path: Path) -> tuple[Any, dict[LinePath, int]]:
    """Parse one YAML file; returns the data and the line map. Raises yaml.YAMLError
    (always PyYAML's own, whose messages name more: a file libyaml rejects is parsed again)."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        return _parse(text, _LOADER)
    except yaml.YAMLError:
        if _LOADER is yaml.SafeLoader:
            raise
        return _parse(text, yaml.SafeLoader)


def line_for(lines: dict[LinePath, int], path: LinePath) -> int | None:
    """The line of the deepest known prefix of `path`."""
    for end in range(len(path), -1, -1):
        line = lines.get(tuple(path[:end]))
        if line is not None:
            return line
    return None
