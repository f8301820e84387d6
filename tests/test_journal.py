"""memory/journal.py: all-or-nothing multi-file writes; a journal lh did not write here is never applied."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import lh, snapshot
from test_archive import (
    JOURNAL,
    MEMORY,
    compacted_copy,
    configure,
    memory_files,
    notes,
    write_shard,
)


def test_a_journal_that_arrives_with_a_checkout_is_never_applied(project: Path) -> None:
    for shard in ("seed", "failures", "quirks"):
        assert lh("memory", "put", shard, f"a note in {shard}", cwd=project).returncode == 0
    crafted = {"version": 1, "replace": [], "delete": ["seed.md", "failures.md", "quirks.md"]}
    (project / MEMORY / ".lh-journal").write_text(json.dumps(crafted), encoding="utf-8")
    before = snapshot(project)
    assert lh("memory", "status", cwd=project).returncode == 0
    assert lh("memory", "put", "insights", "another note", cwd=project).returncode == 0
    after = snapshot(project)
    assert {k: v for k, v in after.items() if k in before and "insights" not in k and "INDEX" not in k} == {
        k: v for k, v in before.items() if "insights" not in k and "INDEX" not in k
    }
    doctor = lh("doctor", cwd=project).stdout
    assert f"{MEMORY}/.lh-journal is a journal lh did not write for this folder; it is never applied" in doctor


def test_a_journal_copied_from_another_folder_is_never_applied(project: Path, tmp_path: Path) -> None:
    assert lh("memory", "put", "seed", "a note", cwd=project).returncode == 0
    info = (project / MEMORY).stat()
    journal = project / ".agents/.cache/lh/journal"
    seed = hashlib.sha256((project / MEMORY / "seed.md").read_bytes()).hexdigest()
    record = {"version": 4, "folder": [info.st_dev, info.st_ino], "replace": [], "delete": [["seed.md", seed]]}
    journal.write_text(json.dumps(record), encoding="utf-8")
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    assert lh("memory", "status", cwd=copy).returncode == 0
    assert (copy / MEMORY / "seed.md").exists()
    assert "journal lh did not write for this folder" in lh("doctor", cwd=copy).stdout


def _entry(*replace: object) -> dict[str, object]:
    return {"version": 4, "replace": [list(replace)], "delete": []}


# Journals lh would not write: each stops every command, reader or writer, and changes no file.
@pytest.mark.parametrize(
    ("record", "here"),
    [
        pytest.param(_entry("../lh.toml", ".lh.toml.abcdefgh.tmp", None, "0" * 64), True, id="outside"),
        pytest.param(_entry("failures.md", ".insights.md.abcdefgh.tmp", None, "0" * 64), True, id="other-name"),
        pytest.param(_entry("failures.md", ".failures.md.ABCDEFGH.tmp", None, "0" * 64), True, id="temp-scheme"),
        pytest.param(_entry("failures.md", ".failures.md.abcdefgh.tmp", "not a digest", "0" * 64), True, id="before"),
        pytest.param(_entry("failures.md", ".failures.md.abcdefgh.tmp", "0" * 64, None), True, id="after"),
        pytest.param(_entry("failures.md", ".failures.md.abcdefgh.tmp"), True, id="short"),
        pytest.param({"version": 2, "replace": [], "delete": []}, True, id="version-2"),
        pytest.param({"version": 3, "replace": [], "delete": []}, True, id="version-3"),
        pytest.param({"version": 2, "replace": [["../lh.toml", "x"]]}, False, id="version-2-no-folder-outside"),
    ],
)
def test_a_journal_lh_would_not_write_stops_every_command(project: Path, record: dict[str, object], here: bool) -> None:
    if here:
        info = (project / MEMORY).stat()
        record = {**record, "folder": [info.st_dev, info.st_ino]}
    (project / JOURNAL).parent.mkdir(parents=True, exist_ok=True)
    (project / JOURNAL).write_text(json.dumps(record), "utf-8")
    before = snapshot(project)
    for args in (("memory", "status"), ("memory", "put", "failures", "x"), ("memory", "compact")):
        result = lh(*args, cwd=project)
        assert (result.returncode, result.stderr) == (
            2,
            f"{JOURNAL} is not a journal lh wrote; a write may have been interrupted."
            " Check the memory files with git diff, then delete the journal\n",
        )
    assert snapshot(project) == before


@pytest.mark.parametrize("done", [0, 1, 2, 3], ids=lambda n: f"{n}-renames-done")
def test_a_journal_left_by_a_killed_compaction_is_finished_by_the_next_command(
    project: Path, tmp_path: Path, done: int
) -> None:
    """The state a kill leaves after the commit point: temps, the journal, some renames done."""
    configure(400, 2)
    write_shard(project, "failures", notes("failures", 10))
    assert main(["memory", "index"]) == 0
    old = memory_files(project)
    new = compacted_copy(project, tmp_path)
    changed = sorted(k for k in new if old.get(k) != new[k])
    assert changed == [f"{MEMORY}/INDEX.md", f"{MEMORY}/archive/failures.md", f"{MEMORY}/failures.md"]
    replace = []
    for number, name in enumerate(changed):
        relative = name.removeprefix(MEMORY + "/")
        folder, _, base = relative.rpartition("/")
        temp = (f"{folder}/" if folder else "") + f".{base}.abcd{number:04d}.tmp"
        (project / MEMORY / temp).parent.mkdir(parents=True, exist_ok=True)
        (project / MEMORY / temp).write_bytes(new[name])
        digests = [
            hashlib.sha256(old[name]).hexdigest() if name in old else None,
            hashlib.sha256(new[name]).hexdigest(),
        ]
        replace.append([relative, temp, *digests])
    info = (project / MEMORY).stat()
    journal = {"version": 4, "folder": [info.st_dev, info.st_ino], "replace": replace, "delete": []}
    (project / JOURNAL).write_text(json.dumps(journal), encoding="utf-8")
    for target, temp, _, _ in replace[:done]:
        os.replace(project / MEMORY / temp, project / MEMORY / target)
    assert lh("memory", "status", cwd=project).returncode == 0  # a reader finishes it
    assert memory_files(project) == new
