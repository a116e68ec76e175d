"""A scripted stand-in for a coding-agent CLI (cursor-agent, claude -p, codex exec).

Called like the real ones: the prompt is the last argument. It finds the answer path in the
prompt (the English or the Russian line naming the file) and acts by FAKE_AGENT_MODE:
ok (write a document naming the measure), slow (sleep past any limit), nofile (write
nothing), wrongname (write a document that names another measure), fail (exit 3), flood
(print far more than the runner keeps), invent (a document that names a procedure, a table
and a percentage the facts do not hold), honest (a document built only from the facts),
stray (an honest answer, plus a file written at FAKE_AGENT_STRAY, e.g. into the output
folder). FAKE_AGENT_ARGV, when set, is a file where the argument list (minus the prompt) is
written; FAKE_AGENT_PROMPT, a file where the prompt is written.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

_PATH = re.compile(
    r"(?:Write the document to this file \(create or overwrite it\)|"
    r"Запиши документ в этот файл \(создай или перезапиши его\)): (.+)"
)


def honest(prompt: str, measure: str) -> str:
    """Only what the facts say: the heading, the rules explanation and the formula."""
    facts = prompt.split("\n## ", 1)[1]
    explained = re.search(
        r"## (?:What it computes|Что вычисляет)\n\n(.*?)\n\n## ", facts, re.DOTALL
    )
    formula = re.search(r"```dax\n.*?\n```", facts, re.DOTALL)
    return (
        f"# [{measure}]\n\n{explained.group(1) if explained else ''}\n\n"
        f"{formula.group(0) if formula else ''}\n"
    )


def main() -> int:
    prompt = sys.argv[-1]
    if os.environ.get("FAKE_AGENT_ARGV"):
        Path(os.environ["FAKE_AGENT_ARGV"]).write_text(json.dumps(sys.argv[1:-1]), encoding="utf-8")
    if os.environ.get("FAKE_AGENT_PROMPT"):
        try:
            Path(os.environ["FAKE_AGENT_PROMPT"]).write_text(prompt, encoding="utf-8")
        except OSError as exc:  # confined: the test reads the prompt another way
            print(f"cannot keep the prompt: {exc}")
    mode = os.environ.get("FAKE_AGENT_MODE", "ok")
    target = Path(_PATH.search(prompt).group(1))
    measure = re.search(r"`# \[(.+?)\]`", prompt).group(1)
    if mode == "slow":
        time.sleep(60)
    if mode == "fail":
        print("agent: quota exceeded")
        return 3
    if mode == "flood":
        sys.stdout.write("x" * 5_000_000)
    if mode == "nofile":
        return 0
    if mode == "stray":
        try:
            Path(os.environ["FAKE_AGENT_STRAY"]).write_text("stray\n", encoding="utf-8")
        except OSError as exc:
            print(f"stray write blocked: {exc}")
    if mode in ("honest", "stray"):
        text = honest(prompt, measure)
    elif mode == "invent":
        text = (
            f"# [{measure}]\n\nThe procedure dw.LoadEverything fills dw.SecretTable every night; "
            "about 37% of the customers are counted.\n"
        )
    else:
        name = "Something Else" if mode == "wrongname" else measure
        facts = "facts present" if ("## Facts" in prompt or "## Факты" in prompt) else "no facts"
        text = f"# [{name}]\n\nWritten by the fake agent ({facts}).\n"
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
