"""lh memory expand: a digest's entries put back from the archive, or printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import parse
from support import lh, snapshot
from test_archive import MEMORY, archive_entries, aws_key_id, configure, notes, write_shard


def test_expand_refuses_what_it_cannot_restore(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(350, 2)
    old = notes("failures", 8)
    write_shard(project, "failures", old)
    assert main(["memory", "compact"]) == 0
    digest = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    capsys.readouterr()
    assert main(["memory", "expand", "nope"]) == 2
    assert capsys.readouterr().err == (
        'no digest nope in any shard; "lh memory get SHARD" lists the ids (digests are tagged digest)\n'
    )
    assert main(["memory", "expand", old[-1].id]) == 2
    assert capsys.readouterr().err == (
        f"entry {old[-1].id} in shard failures is not a digest; only digests written by"
        ' "lh memory compact" can be expanded\n'
    )
    assert main(["memory", "put", "failures", "reused id", "--id", old[0].id]) == 0
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "expand", digest.id]) == 2
    assert capsys.readouterr().err == (
        f"entry {old[0].id} of digest {digest.id} is in shard failures again, since the compaction; putting it"
        f" back would store it twice: give the newer one another id (lh memory put failures TEXT --id NEW),"
        f' then run "lh memory expand {digest.id}"\n'
    )
    (project / MEMORY / "archive" / "failures.md").unlink()
    assert main(["memory", "expand", digest.id]) == 2
    assert capsys.readouterr().err == (
        f"digest {digest.id} of shard failures: its entries are not in {MEMORY}/archive/failures.md; restore that"
        f" file from git history (git log -- {MEMORY}/archive/failures.md), then run"
        f' "lh memory expand {digest.id}" again\n'
    )
    del before[f"{MEMORY}/archive/failures.md"]
    assert snapshot(project) == before


def test_expand_scans_what_it_puts_back(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(350, 2)
    write_shard(project, "failures", notes("failures", 8))
    assert main(["memory", "compact"]) == 0
    digest = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    path = project / MEMORY / "archive" / "failures.md"
    first = archive_entries(project, "failures")[0]
    path.write_text(path.read_text("utf-8").replace(first.text, first.text + f" {aws_key_id()}"), encoding="utf-8")
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "expand", digest.id]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"refused: {MEMORY}/archive/failures.md: entry {first.id}: line 3 looks like")
    assert err.endswith(
        "; nothing was written. Remove the credential from that entry, or add"
        ' allow-secret="aws-access-key-id" to its header if it is not a secret\n'
    )
    assert snapshot(project) == before


def test_expand_print_shows_the_originals_and_writes_nothing(project: Path) -> None:
    configure(450, 2)
    old = notes("failures", 8)
    write_shard(project, "failures", old)
    assert main(["memory", "compact"]) == 0
    digest = parse((project / MEMORY / "failures.md").read_text("utf-8")).entries[0]
    before = snapshot(project)
    shown = lh("memory", "expand", digest.id, "--print", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (
        f"digest {digest.id} of failures stands for 6 entries, kept in {MEMORY}/archive/failures.md:\n"
        + "".join(f"\n[{e.id}] {e.created}\n{e.text}\n" for e in old[:6])
    )
    data = json.loads(lh("memory", "expand", digest.id, "--print", "--json", cwd=project).stdout)
    assert [e["id"] for e in data["entries"]] == [e.id for e in old[:6]]
    assert data["written"] == []
    assert snapshot(project) == before
