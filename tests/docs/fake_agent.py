"""A scripted stand-in for a coding-agent CLI (cursor-agent, claude -p, codex exec).

Called like the real ones: the prompt is the last argument. It finds the target path in
the prompt ("Write the document to this file ...: PATH") and acts by FAKE_AGENT_MODE:
ok (write a document naming the measure), slow (sleep past any limit), nofile (write
nothing), wrongname (write a document that names another measure), fail (exit 3), flood
(print far more than the runner keeps). FAKE_AGENT_ARGV, when set, is a file where the
argument list (minus the prompt) is written, so tests can check the exact command.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path


def main() -> int:
    prompt = sys.argv[-1]
    if os.environ.get("FAKE_AGENT_ARGV"):
        Path(os.environ["FAKE_AGENT_ARGV"]).write_text(json.dumps(sys.argv[1:-1]), encoding="utf-8")
    mode = os.environ.get("FAKE_AGENT_MODE", "ok")
    target = Path(
        re.search(
            r"Write the document to this file \(create or overwrite it\): (.+)", prompt
        ).group(1)
    )
    measure = re.search(r"DAX measure \[(.+?)\] \(table", prompt).group(1)
    if mode == "slow":
        time.sleep(60)
    if mode == "fail":
        print("agent: quota exceeded")
        return 3
    if mode == "flood":
        sys.stdout.write("x" * 5_000_000)
    if mode == "nofile":
        return 0
    name = "Something Else" if mode == "wrongname" else measure
    facts = "facts present" if "## Facts" in prompt else "no facts"
    target.write_text(f"# [{name}]\n\nWritten by the fake agent ({facts}).\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
