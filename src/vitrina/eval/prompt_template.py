"""Prompt override templates: plain text with named placeholders, nothing else.

A caller of POST /api/experiments supplies these, so a template is hostile input. It is
parsed once and accepted only when every part is literal text or ``{{ name }}`` for a name
in :data:`PLACEHOLDERS`: no attribute or item access, no calls, filters, tags or comments
that hide code. Rendering then goes through Jinja's ``SandboxedEnvironment`` with no
globals, over a fixed dict, so even a template that slipped past the check could reach
nothing but the placeholder strings.

>>> render_template("Rules first.\\n{{ prompt }}", prompt="Q?")
'Rules first.\\nQ?'
>>> check_template("{{ cycler.__init__.__globals__.os.popen('id').read() }}")
Traceback (most recent call last):
...
ValueError: line 1: only plain text and {{ prompt }} are allowed in a prompt template, not a call
(Call)
"""

from __future__ import annotations

import jinja2
from jinja2 import nodes
from jinja2.sandbox import SandboxedEnvironment

PLACEHOLDERS = ("prompt",)
MAX_TEMPLATE_CHARS = 50_000

_KINDS = {
    "Getattr": "an attribute access",
    "Getitem": "an item access",
    "Call": "a call",
    "Filter": "a filter",
    "Test": "a test",
    "Const": "a constant expression",
}


def _environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    env.globals.clear()  # no cycler, joiner, namespace, range, lipsum, dict
    env.filters.clear()
    env.tests.clear()
    return env


def _problem(node: nodes.Node) -> str:
    kind = type(node).__name__
    what = _KINDS.get(
        kind, f"a {kind.lower()} block" if isinstance(node, nodes.Stmt) else "an expression"
    )
    allowed = ", ".join("{{ " + p + " }}" for p in PLACEHOLDERS)
    return (
        f"line {node.lineno}: only plain text and {allowed} are allowed in a prompt "
        f"template, not {what} ({kind})"
    )


def check_template(text: str) -> None:
    """Raise ValueError (with the line) unless `text` is literal text and known placeholders."""
    if len(text) > MAX_TEMPLATE_CHARS:
        raise ValueError(
            f"a prompt template is at most {MAX_TEMPLATE_CHARS} characters, got {len(text)}"
        )
    try:
        tree = _environment().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise ValueError(f"line {exc.lineno}: template syntax error: {exc.message}") from None
    for stmt in tree.body:
        if not isinstance(stmt, nodes.Output):
            raise ValueError(_problem(stmt))
        for part in stmt.nodes:
            if isinstance(part, nodes.TemplateData):
                continue
            if isinstance(part, nodes.Name) and part.ctx == "load" and part.name in PLACEHOLDERS:
                continue
            if isinstance(part, nodes.Name):
                known = ", ".join(PLACEHOLDERS)
                raise ValueError(
                    f"line {part.lineno}: unknown placeholder {{{{ {part.name} }}}}; known: {known}"
                )
            raise ValueError(_problem(part))


def render_template(text: str, **values: str) -> str:
    """Check, then render `text` in the sandbox over exactly the placeholder values."""
    check_template(text)
    fixed = {name: str(values.get(name, "")) for name in PLACEHOLDERS}
    return _environment().from_string(text).render(fixed)
