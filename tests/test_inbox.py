"""`lh memory note|consolidate`: lock-free notes, limits, exactly-once consolidation, concurrency."""

from __future__ import annotations

import hashlib
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle
from lean_harness.memory.intake import inbox
from lean_harness.memory.shard import Entry, parse
from support import lh, snapshot

MEMORY = ".agents/memory"
PENDING = f"{MEMORY}/.pending"


def aws_key_id(seed: int = 5) -> str:
    """An AWS access key id shape, made up at run time (never a real credential)."""
    rng = random.Random(seed)
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def notes(root: Path) -> list[Path]:
    return sorted((root / PENDING).glob("*.md"))


def entries(root: Path, shard: str) -> tuple[Entry, ...]:
    return parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(
            lambda folder: [(folder / f"n{i:03}.md").write_text(f"note {i}\n") for i in range(257)],
            f"{PENDING}: 257 notes, over the limit of 256 in one consolidation; nothing was consolidated; move some"
            ' notes out of the folder, run "lh memory consolidate", then move them back',
            id="too-many",
        ),
        pytest.param(
            lambda folder: (folder / "big.md").write_bytes(b"x" * (1024 * 1024 + 1)),
            f"{PENDING}/big.md: 1048577 bytes, over the limit of 1048576 for a note; nothing was consolidated;"
            " shorten the note or move it out of the folder",
            id="note-too-large",
        ),
        pytest.param(
            lambda folder: [(folder / f"n{i}.md").write_bytes(b"y" * (1024 * 1024)) for i in range(9)],
            f"{PENDING}: the notes hold more than 8388608 bytes, over the limit for one consolidation; nothing was"
            ' consolidated; move some notes out of the folder, run "lh memory consolidate", then move them back',
            id="too-much-in-all",
        ),
    ],
)
def test_a_snapshot_over_its_limits_is_refused_and_every_note_kept(
    project: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    folder = project / PENDING
    folder.mkdir()
    assert callable(make)
    make(folder)
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "consolidate"]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert snapshot(project) == before


def test_a_broken_note_is_kept_and_reported(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = project / PENDING
    folder.mkdir()
    (folder / "a.md").write_text("---\nshard: nowhere\n---\nlost?\n", encoding="utf-8")
    (folder / "b.md").write_text(f"hand-written: key {aws_key_id()}\n", encoding="utf-8")
    (folder / "c.md").write_text("fine\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["memory", "consolidate"]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"{PENDING}/a.md: shard 'nowhere' is not in memory.shards (seed, failures, corrections, insights, conventions,"
        " quirks, personal); change the note's shard line; kept in the inbox",
        f"{PENDING}/b.md: line 1 looks like an AWS access key ID (AKIA********, rule aws-access-key-id); remove it;"
        " kept in the inbox",
    ]
    assert out.splitlines()[-1] == "3 pending note(s): 1 added, 0 already stored, 2 kept"
    assert [p.name for p in notes(project)] == ["a.md", "b.md"]


def test_a_note_edited_after_the_snapshot_is_consolidated_again(project: Path) -> None:
    assert main(["memory", "note", "first version"]) == 0
    (path,) = notes(project)
    memory = handle.open_memory(load(project))
    taken = inbox.snapshot(memory)
    path.write_text(path.read_text("utf-8").replace("first version", "second version"), encoding="utf-8")
    # The entries of the snapshot are written (here: by hand), then the snapshot's notes retired.
    assert main(["memory", "put", "insights", "first version"]) == 0
    inbox._retire(taken, project / PENDING / ".consumed", project / PENDING)
    (back,) = notes(project)
    assert "second version" in back.read_text("utf-8")
    assert main(["memory", "consolidate"]) == 0
    assert [e.text for e in entries(project, "insights")] == ["first version", "second version"]
    assert notes(project) == []


def test_a_marked_note_left_by_a_crash_is_not_consolidated_twice(project: Path) -> None:
    assert main(["memory", "note", "written once"]) == 0
    assert main(["memory", "consolidate"]) == 0
    assert main(["memory", "note", "written once"]) == 0
    (path,) = notes(project)
    # A consolidation killed after marking the note and before removing it leaves exactly this.
    consumed = project / PENDING / ".consumed"
    (consumed / hashlib.sha256(path.read_bytes()).hexdigest()).write_bytes(b"")
    shard_before = (project / MEMORY / "insights.md").read_bytes()
    assert main(["memory", "consolidate"]) == 0
    assert (project / MEMORY / "insights.md").read_bytes() == shard_before
    assert notes(project) == []
    assert list(consumed.iterdir()) == []


WRITER = """
import sys
from lean_harness.cli import main
worker = int(sys.argv[1])
for number in range(int(sys.argv[2])):
    code = main(["memory", "note", f"observation {number} from writer {worker}", "--tag", f"w{worker}"])
    assert code == 0, code
"""


def test_eight_writers_at_once_then_one_consolidation_holds_every_note_once(project: Path) -> None:
    per_writer = 12
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(w), str(per_writer)], cwd=project, stderr=subprocess.PIPE)
        for w in range(8)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    assert len(notes(project)) == 8 * per_writer
    result = lh("memory", "consolidate", cwd=project)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.splitlines()[-1]
        == f"{8 * per_writer} pending note(s): {8 * per_writer} added, 0 already stored, 0 kept"
    )
    texts = sorted(e.text for e in entries(project, "insights"))
    assert texts == sorted(f"observation {n} from writer {w}" for w in range(8) for n in range(per_writer))
    assert notes(project) == []
    assert lh("memory", "index", "--check", cwd=project).returncode == 0
