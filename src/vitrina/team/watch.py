"""One pass of the board's monitor over every open build (issue 31 item 7).

Why beside `monitor.py`: `monitor.scan` looks at one build when a person runs `vitrina board
report`; a server that runs for days needs the same signals without anyone asking. A pass
scans the builds still open (running or blocked, newest first, at most `MAX_BUILDS`), puts
each new signal on the board as the coordinator's keyed comment (so a signal is raised once
per task, kind and round however many passes or server processes see it) and hands only the
new ones to the notifier. The thresholds come from the settings (`monitor_*`).

>>> limits_from_values(60, 120, 30)
MonitorLimits(review_s=60.0, blocked_s=120.0, idle_s=30.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vitrina.team.board import BoardStore
from vitrina.team.monitor import MonitorLimits, Signal, raise_signals, scan

if TYPE_CHECKING:
    from vitrina.config import Settings

MAX_BUILDS = 200  # one pass looks at this many open builds at most
OPEN_BUILDS = ("running", "blocked")


def limits_from_values(review_s: float, blocked_s: float, idle_s: float) -> MonitorLimits:
    return MonitorLimits(float(review_s), float(blocked_s), float(idle_s))


def limits_from(settings: Settings) -> MonitorLimits:
    """The stale-task thresholds of the settings."""
    return limits_from_values(
        settings.monitor_review_s, settings.monitor_blocked_s, settings.monitor_idle_s
    )


def watch_pass(
    store: BoardStore,
    limits: MonitorLimits,
    *,
    notifier: Any = None,
    now: float | None = None,
) -> list[Signal]:
    """Scan every open build once; the signals that were new (each on the board and sent)."""
    from vitrina.language.detect import detect_lang

    raised: list[Signal] = []
    for build in store.builds(limit=MAX_BUILDS):
        if build.status not in OPEN_BUILDS:
            continue
        lang = detect_lang(build.title)
        hook = None
        if notifier is not None:
            title = build.title

            def hook(signal: Signal, title: str = title, lang: str = lang) -> None:
                notifier.on_signal(signal, title=title, lang=lang)

        raised += raise_signals(
            store, scan(store, build.id, now=now, limits=limits), on_signal=hook
        )
    return raised
