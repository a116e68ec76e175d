"""The hand-off protocol: the blocks a comment ends with, parsed by code, never trusted blindly.

A comment is free text for people and the next role, then (for reviewers) a VERDICT block,
then a HANDOFF block::

    Checked every KPI against an independent query.

    ===VERDICT===
    REVIEW-VERDICT: APPROVED-WITH-AMENDMENTS
    AMENDMENTS:
    - [DASH-001] the title of chart payment_amount is cut at 48 characters: shorten it
    ===/VERDICT===

    ===HANDOFF===
    STATUS: REVIEW-DONE
    NEXT: coordinator
    ===/HANDOFF===

>>> parsed = parse_comment("Done.\\n===HANDOFF===\\nSTATUS: READY-FOR-REVIEW\\n"
...                        "REVIEWERS-REQUESTED: data-steward\\nNEXT: coordinator\\n===/HANDOFF===")
>>> parsed.handoff.status.value, parsed.handoff.reviewers_requested, parsed.problems
('READY-FOR-REVIEW', ['data-steward'], [])
>>> parse_comment("looks fine to me").problems
['no HANDOFF block: end the comment with ===HANDOFF=== ... ===/HANDOFF===']
"""

from __future__ import annotations

import re
from collections.abc import Collection
from enum import StrEnum

from pydantic import BaseModel, Field

from vitrina.team.lifecycle import HandoffStatus

BLOCK = re.compile(r"^[ \t]*===(/?)([A-Z][A-Z-]*)===[ \t]*$", re.MULTILINE)
KEY_LINE = re.compile(r"^([A-Za-z][A-Za-z-]*)[ \t]*:[ \t]*(.*)$")
EMPTY = {"", "none", "-", "n/a", "нет", "—"}
HANDOFF_KEYS = ("STATUS", "REVIEWERS-REQUESTED", "NEXT", "NEXT-PHASE")
VERDICT_KEYS = ("REVIEW-VERDICT", "AMENDMENTS")
KNOWN_BLOCKS = ("HANDOFF", "VERDICT")


class VerdictKind(StrEnum):
    APPROVED = "APPROVED"
    APPROVED_WITH_AMENDMENTS = "APPROVED-WITH-AMENDMENTS"
    REQUESTS_REWORK = "REQUESTS-REWORK"


class Handoff(BaseModel):
    status: HandoffStatus
    reviewers_requested: list[str] = Field(default_factory=list)
    next: str | None = None
    next_phase: str | None = None


class Verdict(BaseModel):
    verdict: VerdictKind
    amendments: list[str] = Field(default_factory=list)


class ParsedComment(BaseModel):
    body: str  # the free text above the blocks
    handoff: Handoff | None = None
    verdict: Verdict | None = None
    problems: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _fields(
    name: str, lines: list[str], keys: tuple[str, ...], problems: list[str]
) -> dict[str, list[str]]:
    """KEY: value lines; bullet lines ("- item") continue the previous key."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    for raw in lines:
        if not raw.strip():
            continue
        line = raw.strip()
        match = KEY_LINE.match(line) if not line.startswith(("-", "*")) else None
        if match:
            key = match.group(1).upper()
            if key not in keys:
                problems.append(f"{name}: unknown field {key} (expected {', '.join(keys)})")
                current = None
                continue
            if key in out:
                problems.append(f"{name}: field {key} given twice")
            current = key
            out[key] = [match.group(2).strip()] if match.group(2).strip() else []
        elif current is not None:
            out[current].append(raw.strip())
        else:
            problems.append(f"{name}: line outside any field: {raw.strip()[:60]}")
    return out


def _items(values: list[str]) -> list[str]:
    """A field's items: one per line or comma-separated, bullets stripped, empties dropped."""
    items: list[str] = []
    for value in values:
        value = value.strip().removeprefix("-").removeprefix("*").strip()
        if value.lower() in EMPTY:
            continue
        items.append(value)
    return items


def _roles(values: list[str]) -> list[str]:
    return [
        r.strip().lower()
        for item in _items(values)
        for r in item.split(",")
        if r.strip().lower() not in EMPTY
    ]


def _one(values: list[str] | None) -> str | None:
    items = _items(values or [])
    return " ".join(items) if items else None


def _handoff(
    lines: list[str],
    problems: list[str],
    roles: Collection[str] | None,
    phases: Collection[str] | None,
) -> Handoff | None:
    found = _fields("HANDOFF", lines, HANDOFF_KEYS, problems)
    status_text = (_one(found.get("STATUS")) or "").upper()
    if not status_text:
        problems.append("HANDOFF: STATUS is missing")
        return None
    try:
        status = HandoffStatus(status_text)
    except ValueError:
        problems.append(
            f"HANDOFF: STATUS {status_text} is not one of "
            f"{', '.join(s.value for s in HandoffStatus)}"
        )
        return None
    next_role = (_one(found.get("NEXT")) or "").lower() or None
    reviewers = _roles(found.get("REVIEWERS-REQUESTED", []))
    next_phase = (_one(found.get("NEXT-PHASE")) or "").lower() or None
    if roles is not None:
        for role in [next_role, *reviewers]:
            if role and role not in roles:
                problems.append(
                    f"HANDOFF: '{role}' is not a role of the team ({', '.join(sorted(roles))})"
                )
    if phases is not None and next_phase and next_phase not in phases:
        problems.append(f"HANDOFF: NEXT-PHASE '{next_phase}' is not a phase ({', '.join(phases)})")
    return Handoff(
        status=status, reviewers_requested=reviewers, next=next_role, next_phase=next_phase
    )


def _verdict(lines: list[str], problems: list[str]) -> Verdict | None:
    found = _fields("VERDICT", lines, VERDICT_KEYS, problems)
    text = (_one(found.get("REVIEW-VERDICT")) or "").upper()
    try:
        kind = VerdictKind(text)
    except ValueError:
        problems.append(
            f"VERDICT: REVIEW-VERDICT '{text}' is not one of "
            f"{', '.join(v.value for v in VerdictKind)}"
        )
        return None
    amendments = _items(found.get("AMENDMENTS", []))
    if kind is VerdictKind.APPROVED and amendments:
        problems.append("VERDICT: APPROVED with amendments: say APPROVED-WITH-AMENDMENTS")
    if kind is not VerdictKind.APPROVED and not amendments:
        problems.append(f"VERDICT: {kind.value} needs AMENDMENTS (what to change and why)")
    return Verdict(verdict=kind, amendments=amendments)


def parse_comment(
    text: str,
    *,
    roles: Collection[str] | None = None,
    phases: Collection[str] | None = None,
    expect_verdict: bool = False,
) -> ParsedComment:
    """Split a comment into free text and its parsed blocks; every deviation is a problem.

    ``roles`` / ``phases`` (when given) validate NEXT, REVIEWERS-REQUESTED and NEXT-PHASE;
    ``expect_verdict`` makes a missing VERDICT block a problem (review tasks).
    """
    problems: list[str] = []
    markers = list(BLOCK.finditer(text))
    blocks: dict[str, list[str]] = {}
    body_end = len(text)
    last_end = 0
    i = 0
    while i < len(markers):
        opening = markers[i]
        closing_slash, name = opening.group(1), opening.group(2)
        if name not in KNOWN_BLOCKS:
            i += 1
            continue
        if closing_slash:
            problems.append(f"===/{name}=== without an opening ==={name}===")
            i += 1
            continue
        close = next((m for m in markers[i + 1 :] if m.group(2) == name), None)
        if close is None or not close.group(1):
            problems.append(f"{name} block is not closed with ===/{name}===")
            body_end = min(body_end, opening.start())
            break
        if name in blocks:
            problems.append(f"{name} block given twice")
        blocks[name] = text[opening.end() : close.start()].strip("\n").splitlines()
        body_end = min(body_end, opening.start())
        last_end = close.end()
        i = markers.index(close) + 1
    if last_end and text[last_end:].strip():
        problems.append("text after the last block: the comment must end with its block")
    handoff = verdict = None
    if "HANDOFF" in blocks:
        handoff = _handoff(blocks["HANDOFF"], problems, roles, phases)
    elif not any("HANDOFF block is not closed" in p for p in problems):
        problems.append("no HANDOFF block: end the comment with ===HANDOFF=== ... ===/HANDOFF===")
    if "VERDICT" in blocks:
        verdict = _verdict(blocks["VERDICT"], problems)
    elif expect_verdict and (handoff is None or handoff.status is HandoffStatus.REVIEW_DONE):
        problems.append(
            "no VERDICT block: a review ends with ===VERDICT=== ... ===/VERDICT=== "
            "before its HANDOFF block"
        )
    return ParsedComment(
        body=text[:body_end].strip(), handoff=handoff, verdict=verdict, problems=problems
    )


def render_handoff(handoff: Handoff) -> str:
    lines = ["===HANDOFF===", f"STATUS: {handoff.status.value}"]
    if handoff.reviewers_requested:
        lines.append(f"REVIEWERS-REQUESTED: {', '.join(handoff.reviewers_requested)}")
    lines.append(f"NEXT: {handoff.next or 'none'}")
    if handoff.next_phase:
        lines.append(f"NEXT-PHASE: {handoff.next_phase}")
    lines.append("===/HANDOFF===")
    return "\n".join(lines)


def render_verdict(verdict: Verdict) -> str:
    lines = ["===VERDICT===", f"REVIEW-VERDICT: {verdict.verdict.value}"]
    if verdict.amendments:
        lines.append("AMENDMENTS:")
        lines += [f"- {a}" for a in verdict.amendments]
    else:
        lines.append("AMENDMENTS: none")
    lines.append("===/VERDICT===")
    return "\n".join(lines)


def render_comment(body: str, handoff: Handoff, verdict: Verdict | None = None) -> str:
    """A whole comment as a role writes it: text, then the blocks."""
    parts = [body.strip()]
    if verdict is not None:
        parts.append(render_verdict(verdict))
    parts.append(render_handoff(handoff))
    return "\n\n".join(p for p in parts if p)


PROTOCOL_HELP = """End your comment with the hand-off block, exactly in this form:

===HANDOFF===
STATUS: one of {statuses}
REVIEWERS-REQUESTED: reviewer roles, comma-separated, or none
NEXT: coordinator
NEXT-PHASE: the phase you propose next, or none
===/HANDOFF==="""
