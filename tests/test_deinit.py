"""lh deinit: every block lh wrote goes, every line of the user's stays, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import lh, snapshot

USER = {
    ".gitignore": b"node_modules/\n*.log\n",
    ".gitattributes": b"*.png binary\r\n",
    "AGENTS.md": b"# Agents\n\nRun the tests first.\n",
    "CLAUDE.md": b"\xef\xbb\xbf# Claude\n\nno trailing newline",
}


def test_deinit_leaves_the_users_files_as_they_were_before_init(tmp_path: Path) -> None:
    for name, data in USER.items():
        (tmp_path / name).write_bytes(data)
    assert lh("init", "--agents-md", cwd=tmp_path).returncode == 0
    assert all((tmp_path / name).read_bytes() != data for name, data in USER.items())
    done = lh("deinit", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "removed the lean-harness block from .gitignore\n"
        "removed the lean-harness block from .gitattributes\n"
        "removed the lean-harness block from AGENTS.md\n"
        "removed the lean-harness block from CLAUDE.md\n"
        'kept .agents/ (config and memory); "lh deinit --purge" deletes it\n'
    )
    for name, data in USER.items():
        if name == "CLAUDE.md":  # lh gave the last line its newline; the block's blank line goes
            assert (tmp_path / name).read_bytes() == data + b"\n"
        else:
            assert (tmp_path / name).read_bytes() == data
    assert (tmp_path / ".agents" / "lh.toml").is_file()


def test_user_lines_after_a_block_are_kept_where_they_are(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("a\n", encoding="utf-8")
    assert lh("init", cwd=tmp_path).returncode == 0
    path = tmp_path / ".gitignore"
    path.write_text(path.read_text("utf-8") + "b\n", encoding="utf-8")
    assert lh("deinit", cwd=tmp_path).returncode == 0
    assert path.read_text("utf-8") == "a\n\nb\n"


def test_files_lh_created_are_deleted_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    assert lh("init", "--agents-md", cwd=tmp_path).returncode == 0
    first = lh("deinit", "--json", cwd=tmp_path)
    assert json.loads(first.stdout) == {
        "version": 1,
        "command": "deinit",
        "root": tmp_path.resolve().as_posix(),
        "cleaned": [],
        "deleted": [".gitignore", ".gitattributes", "AGENTS.md"],
        "emptied": [],
        "kept": [".agents/"],
        "problems": [],
    }
    before = snapshot(tmp_path)
    again = lh("deinit", cwd=tmp_path)
    assert again.stdout == (
        "no lean-harness block here; nothing changed\n"
        'kept .agents/ (config and memory); "lh deinit --purge" deletes it\n'
    )
    assert snapshot(tmp_path) == before


def test_purge_needs_yes_without_a_terminal_and_then_deletes_the_memory_wherever_it_is(project: Path) -> None:
    assert main(["config", "set", "memory.dir", "notes/memory"]) == 0
    (project / "notes").mkdir()
    (project / ".agents" / "memory").rename(project / "notes" / "memory")
    (project / ".agents" / "memory.local").rename(project / "notes" / "memory.local")
    before = snapshot(project)
    refused = lh("deinit", "--purge", cwd=project)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "--purge deletes .agents/, notes/memory.local/, notes/memory/ and every memory entry in it; add --yes"
        " to confirm\n"
    )
    assert snapshot(project) == before
    done = lh("deinit", "--purge", "--yes", cwd=project)
    assert done.stdout == (
        "deleted .gitignore\ndeleted .gitattributes\ndeleted .agents/\ndeleted notes/memory.local/\n"
        "deleted notes/memory/\n"
    )
    assert sorted(p.name for p in project.iterdir()) == ["notes"]
    assert lh("deinit", "--purge", "--yes", cwd=project).stdout == "no lean-harness block here; nothing changed\n"


def test_a_symlinked_file_is_refused_and_nothing_changes(project: Path) -> None:
    (project / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    before = snapshot(project)
    done = lh("deinit", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "CLAUDE.md is a symbolic link; lean-harness only manages real files. Replace the link with the file or"
        " folder itself\n"
    )
    assert snapshot(project) == before


def test_purge_takes_only_lh_files_from_a_memory_dir_the_user_shares(project: Path) -> None:
    assert main(["config", "set", "memory.dir", "docs"]) == 0
    assert main(["config", "set", "memory.cacheDir", "build/cache"]) == 0
    (project / ".agents" / "memory").rename(project / "docs")
    (project / ".agents" / "memory.local").rename(project / "docs.local")
    (project / "docs" / "guide.md").write_text("# Our guide\n", encoding="utf-8")
    (project / "build").mkdir(exist_ok=True)
    assert main(["memory", "put", "seed", "the build needs make"]) == 0
    assert main(["memory", "put", "personal", "--id", "old", "I keep my notes in Dvorak layout"]) == 0
    assert main(["memory", "put", "personal", "--id", "new", "I type Colemak now", "--supersedes", "old"]) == 0
    (project / "docs.local" / "mine.txt").write_text("my own list\n", encoding="utf-8")
    (project / "build" / "cache" / "other.bin").write_bytes(b"not ours")
    done = lh("deinit", "--purge", "--yes", cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "deleted .gitignore\ndeleted .gitattributes\ndeleted .agents/\n"
        "deleted lean-harness's files from docs.local/; kept the folder for the other files in it\n"
        "deleted lean-harness's files from docs/; kept the folder for the other files in it\n"
        "deleted lean-harness's files from build/cache/; kept the folder for the other files in it\n"
    )
    assert sorted(p.name for p in (project / "docs.local").iterdir()) == ["mine.txt"]  # the archive is lh's too
    assert sorted(p.name for p in (project / "docs").iterdir()) == ["guide.md"]
    assert sorted(p.name for p in (project / "build" / "cache").iterdir()) == ["other.bin"]


@pytest.mark.skipif(os.name == "nt", reason="a pseudo-terminal needs POSIX")
@pytest.mark.parametrize(("answer", "code"), [("n", 2), ("y", 0)])
def test_purge_asks_at_a_terminal(answer: str, code: int, project: Path) -> None:
    controller, terminal = os.openpty()
    try:
        os.write(controller, f"{answer}\n".encode())
        done = subprocess.run(
            [sys.executable, "-m", "lean_harness", "deinit", "--purge"],
            cwd=project,
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(controller)
        os.close(terminal)
    assert done.returncode == code, done.stderr
    assert done.stdout.startswith("delete .agents/ with every memory entry in it? [y/N] ")
    assert (project / ".agents").exists() is (answer == "n")
    if answer == "n":
        assert done.stderr == "nothing was changed\n"


def test_purge_leaves_every_file_lh_did_not_write_in_the_folders_it_shares(project: Path) -> None:
    assert main(["config", "set", "memory.dir", "docs"]) == 0
    assert main(["config", "set", "memory.cacheDir", "tools"]) == 0
    (project / ".agents" / "memory").rename(project / "docs")
    (project / ".agents" / "memory.local").rename(project / "docs.local")
    assert main(["memory", "put", "seed", "the build needs make"]) == 0
    assert main(["memory", "get", "--query", "build"]) == 0
    users = {
        "docs/guide.md": "# Our guide\n",
        "docs/archive/2019-roadmap.md": "# Old roadmap\n",
        "docs/archive/seed.txt": "not a shard archive\n",
        "docs/.imports/notes.txt": "our import notes\n",
        "docs/.pending/todo.md": "our own to-do list\n",
        "docs/.pending/.consumed/readme.txt": "ours\n",
        "tools/lh/build.sh": "#!/bin/sh\nmake\n",
        "tools/lh/settings.json": '{"ours": true}\n',
        "tools/format.py": "print('ours')\n",
        ".agents/skills/review/SKILL.md": "---\nname: review\n---\nReview code.\n",
    }
    for name, text in users.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    done = lh("deinit", "--purge", "--yes", cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    left = {p.relative_to(project).as_posix(): p.read_text(encoding="utf-8") for p in project.rglob("*") if p.is_file()}
    assert left == users
    assert not (project / ".agents" / "lh.toml").exists()
    assert "kept the folder for the other files in it" in done.stdout
