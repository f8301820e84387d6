"""lh memory adopt (commands/adopt.py): what it adopted and refused, as text and JSON."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from support import lh

MEMORY = Path(".agents/memory")


EPOCH = {"SOURCE_DATE_EPOCH": "1800000000"}  # 2027-01-15T08:00:00Z


def test_adopt_refuses_a_block_holding_a_credential(deploys: Path) -> None:
    secret = "AKIA" + "Q3EGRIOSFODNN7EXAMPLE"[:16]
    path = deploys / MEMORY / "quirks.md"
    original = f"# quirks\n\nSurprises.\n\nThe mirror is slow on Mondays.\n\nold key {secret} do not use\n"
    path.write_text(original, encoding="utf-8")
    done = lh("memory", "adopt", "quirks", cwd=deploys, env=EPOCH)
    key = hashlib.sha256(b"quirks\nThe mirror is slow on Mondays.").hexdigest()[:12]
    assert done.returncode == 1
    assert done.stdout == f"adopted .agents/memory/quirks.md:5 as {key}: The mirror is slow on Mondays.\n"
    assert done.stderr == (
        "refused: .agents/memory/quirks.md:7: the text looks like an AWS access key ID"
        " (AKIA********, rule aws-access-key-id); left as prose:"
        ' remove it, then run "lh memory adopt" again\n'
    )
    assert secret not in done.stdout + done.stderr
    text = path.read_text(encoding="utf-8")
    assert text.endswith(f"\nold key {secret} do not use\n")
    assert f'<!-- lh:entry id="{key}"' in text


def test_json_lists_what_was_adopted_and_written_and_the_refusals_as_problems(deploys: Path) -> None:
    secret = "AKIA" + "Q3EGRIOSFODNN7EXAMPLE"[:16]
    path = deploys / MEMORY / "quirks.md"
    path.write_text(f"# quirks\n\nSurprises.\n\nThe mirror is slow.\n\nold key {secret}\n", encoding="utf-8")
    done = lh("memory", "adopt", "quirks", "--json", cwd=deploys, env=EPOCH)
    key = hashlib.sha256(b"quirks\nThe mirror is slow.").hexdigest()[:12]
    data = json.loads(done.stdout)
    assert (done.returncode, data["command"]) == (1, "memory adopt")
    assert data["adopted"] == [{"shard": "quirks", "line": 5, "id": key, "title": "The mirror is slow."}]
    assert data["written"] == ["quirks"]
    assert data["problems"] == [
        ".agents/memory/quirks.md:7: the text looks like an AWS access key ID (AKIA********, rule aws-access-key-id);"
        ' left as prose: remove it, then run "lh memory adopt" again'
    ]
    assert secret not in done.stdout + done.stderr
