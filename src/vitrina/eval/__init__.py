"""Evaluation harness: compare the pipeline's answers with hand-written references by result.

Public entry point: this package (`experiments_router`, the HTTP API the web app mounts;
`record_feedback`, answer feedback from the chat into the review queue);
`vitrina.eval.commands.register` is the CLI. Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "experiments_router": "vitrina.eval.api",
    "record_feedback": "vitrina.eval.feedback",
    "EvalStore": "vitrina.eval.store",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.eval.api import experiments_router as experiments_router
    from vitrina.eval.feedback import record_feedback as record_feedback
    from vitrina.eval.store import EvalStore as EvalStore
