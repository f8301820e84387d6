"""memory/intake/adopt.py: loose prose made entries in place, every character kept."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from support import lh

MEMORY = Path(".agents/memory")


EPOCH = {"SOURCE_DATE_EPOCH": "1800000000"}  # 2027-01-15T08:00:00Z


def _id(text: str) -> str:
    # adr/0002: an id is the start of the SHA-256 of "shard\ntext".
    return hashlib.sha256(f"deploys\n{text}".encode()).hexdigest()[:12]


def test_adopt_keeps_every_character_in_place(deploys: Path) -> None:
    done = lh("memory", "adopt", "deploys", cwd=deploys, env=EPOCH)
    first = "Rollbacks take ten minutes\nbecause the cache warms slowly."
    second = "- blue/green on Fridays\n- never on holidays"
    third = "## Database\n\nMigrations run before the deploy.\n\n```\nmake migrate\n\nmake deploy\n```"
    a, b, c = _id(first), _id(second), _id(third)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"adopted .agents/memory/deploys.md:9 as {a}: Rollbacks take ten minutes\n"
        f"adopted .agents/memory/deploys.md:12 as {b}: blue/green on Fridays\n"
        f"adopted .agents/memory/deploys.md:15 as {c}: Database\n"
    )
    assert (
        (deploys / MEMORY / "deploys.md").read_text(encoding="utf-8")
        == f"""\
# deploys

How we ship.

<!-- lh:entry id="aaa111" created="2026-11-01T10:00:00Z" tags="ci" -->
Staging deploys need the VPN.
<!-- /lh:entry id="aaa111" -->

<!-- lh:entry id="{a}" created="2027-01-15T08:00:00Z" -->
Rollbacks take ten minutes
because the cache warms slowly.
<!-- /lh:entry id="{a}" -->

<!-- lh:entry id="{b}" created="2027-01-15T08:00:00Z" -->
- blue/green on Fridays
- never on holidays
<!-- /lh:entry id="{b}" -->

<!-- lh:entry id="{c}" created="2027-01-15T08:00:00Z" -->
## Database

Migrations run before the deploy.

```
make migrate

make deploy
```
<!-- /lh:entry id="{c}" -->

<!-- lh:entry id="bbb222" created="2026-11-02T10:00:00Z" sources="x y" -->
Digest of old notes.
<!-- /lh:entry id="bbb222" -->
"""
    )
    before = (deploys / MEMORY / "deploys.md").read_bytes()
    again = lh("memory", "adopt", cwd=deploys, env=EPOCH)
    assert (again.returncode, again.stdout, again.stderr) == (0, "no loose prose to adopt\n", "")
    assert (deploys / MEMORY / "deploys.md").read_bytes() == before
    assert lh("memory", "index", "--check", cwd=deploys).returncode == 0
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    row = next(s for s in status["shards"] if s["name"] == "deploys")
    assert (row["entries"], row["prose_tokens"], row["prose_lines"]) == (5, 0, [])


def test_adopt_keeps_crlf_and_a_missing_final_newline(deploys: Path) -> None:
    path = deploys / MEMORY / "quirks.md"
    path.write_bytes(b"# quirks\r\n\r\nSurprises.\r\n\r\nWindows paths need quoting.")
    done = lh("memory", "adopt", "quirks", cwd=deploys, env=EPOCH)
    key = hashlib.sha256(b"quirks\nWindows paths need quoting.").hexdigest()[:12]
    assert done.returncode == 0
    assert path.read_bytes() == (
        b"# quirks\r\n\r\nSurprises.\r\n\r\n"
        + f'<!-- lh:entry id="{key}" created="2027-01-15T08:00:00Z" -->\r\n'.encode()
        + b"Windows paths need quoting.\r\n"
        + f'<!-- /lh:entry id="{key}" -->'.encode()
    )
