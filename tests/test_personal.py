"""The personal scope: shards in `.agents/memory.local/` that git ignores and INDEX.md never lists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import killed_at, lh

REPO = Path(__file__).resolve().parents[1]
ROLE = "---\nname: my role\ndescription: Staff SRE who reads diffs on a phone\ntype: user\n---\nPrefers zsh.\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(project: Path, tmp_path: Path) -> Path:
    """An initialised project in git with a user memory imported from a Claude Code style folder."""
    git(project, "init", "-q")
    source = tmp_path / "found"
    source.mkdir()
    (source / "user_role.md").write_text(ROLE, "utf-8")
    (source / "build.md").write_text("---\nname: build\ntype: project\n---\nRun make to build.\n", "utf-8")
    assert main(["memory", "import", str(source)]) == 0
    return project


def test_an_imported_user_memory_is_never_staged_and_a_query_finds_it(repo: Path) -> None:
    git(repo, "add", "-A")
    staged = git(repo, "diff", "--cached", "--name-only").split()
    assert ".agents/memory/seed.md" in staged
    assert [name for name in staged if "memory.local" in name] == []
    assert (repo / ".agents/memory.local/personal.md").read_text("utf-8").count("Staff SRE") == 1
    found = lh("memory", "get", "--query", "SRE phone", cwd=repo)
    assert found.stdout.splitlines()[0].startswith("[personal/my-role] score ")
    assert "Staff SRE" not in (repo / ".agents/memory/INDEX.md").read_text("utf-8")
    assert "personal" not in (repo / ".agents/memory/INDEX.md").read_text("utf-8")


def test_put_writes_there_and_status_shows_where(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = (repo / ".agents/memory/INDEX.md").read_bytes()
    assert main(["memory", "put", "personal", "Answers in Swedish when asked in Swedish"]) == 0
    assert (repo / ".agents/memory/INDEX.md").read_bytes() == index  # nothing shared changed
    capsys.readouterr()
    assert main(["memory", "status", "--json"]) == 0
    rows = {s["name"]: s for s in json.loads(capsys.readouterr().out)["shards"]}
    assert (rows["personal"]["path"], rows["personal"]["entries"]) == (".agents/memory.local/personal.md", 2)
    assert main(["memory", "index", "--check"]) == 0


def test_export_leaves_it_out_unless_asked(repo: Path) -> None:
    shared = [json.loads(line)["shard"] for line in lh("memory", "export", cwd=repo).stdout.splitlines()]
    every = [json.loads(line)["shard"] for line in lh("memory", "export", "--personal", cwd=repo).stdout.splitlines()]
    assert (shared, every) == (["seed"], ["seed", "personal"])


def test_doctor_fails_when_git_does_not_ignore_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ignore = repo / ".gitignore"
    ignore.write_text(ignore.read_text("utf-8").replace(".agents/memory.local/\n", ""), "utf-8")
    capsys.readouterr()
    assert main(["doctor", "--json"]) == 1
    check = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["id"] == "git-ignore")
    assert (
        check["message"] == "the personal memory is not ignored by git (tried .agents/memory.local/lh-doctor-probe.md)"
    )


def session_start(repo: Path) -> str:
    payload = json.dumps({"session_id": "s-1", "cwd": str(repo), "hook_event_name": "SessionStart"})
    return subprocess.run(
        [sys.executable, "-S", str(REPO / "hooks" / "run.py"), "session-start"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=repo,
        env={**os.environ, "CLAUDE_PLUGIN_ROOT": str(REPO)},
        check=True,
    ).stdout


def test_session_start_shows_the_owner_their_entries(repo: Path) -> None:
    whole = session_start(repo)  # the memory fits memory.indexTokenBudget: every entry, theirs too, whole
    assert "\n\n[personal/my-role]\nStaff SRE who reads diffs on a phone\n\nPrefers zsh.\n\n# Project memory" in whole
    assert "Personal memory" not in whole
    assert main(["memory", "put", "seed", " ".join(f"step{n} of the release" for n in range(150))]) == 0
    assert session_start(repo).endswith(
        "\n\nPersonal memory (in memory.local/, which git ignores; yours only):\n"
        "- [personal/my-role] Staff SRE who reads diffs on a phone\n"
    )


def test_a_shard_in_both_scopes_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (project / ".agents/lh.toml").open("a", encoding="utf-8") as handle:
        handle.write('\n[memory.personalShards]\nseed = "mine"\n')
    capsys.readouterr()
    assert main(["memory", "status"]) == 2
    assert capsys.readouterr().err == (
        ".agents/lh.toml: at memory.personalShards: seed is also in memory.shards; give it another name\n"
    )


# Runs lh, killing it as it renames its first file into either memory folder: after the journal is written.
AFTER_COMMIT_POINT = """
import os, signal, sys, runpy
replace = os.replace
def killing(source, target, *args, **kwargs):
    if "/.agents/memory" in str(target).replace(os.sep, "/"):
        os.kill(os.getpid(), signal.SIGKILL)
    return replace(source, target, *args, **kwargs)
os.replace = killing
sys.argv = ["lh", *sys.argv[1:]]
runpy.run_module("lean_harness", run_name="__main__")
"""


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL needs POSIX")
def test_an_import_killed_after_its_commit_point_is_finished_in_both_scopes(project: Path, tmp_path: Path) -> None:
    source = tmp_path / "found"
    source.mkdir()
    (source / "user_role.md").write_text(ROLE, "utf-8")
    (source / "build.md").write_text("---\nname: build\ntype: project\n---\nRun make to build.\n", "utf-8")
    assert killed_at(0, project, AFTER_COMMIT_POINT, "memory", "import", str(source)) == -9
    assert (project / ".agents/.cache/lh/journal").exists()
    assert lh("memory", "status", cwd=project).returncode == 0  # a reader replays the journal first
    assert "Staff SRE" in (project / ".agents/memory.local/personal.md").read_text("utf-8")
    assert "Run make to build." in (project / ".agents/memory/seed.md").read_text("utf-8")
    assert not (project / ".agents/.cache/lh/journal").exists()
    again = lh("memory", "import", str(source), cwd=project)
    marker = next((project / ".agents/memory/.imports").glob("memory-md-*.json")).name
    assert again.stdout == (
        f"memory-md {source.as_posix()}: 2 record(s); 0 added, 2 already imported, 0 conflict(s), 0 refused;"
        f" recorded in .agents/memory/.imports/{marker}\n"
    )


def test_a_stale_personal_entry_leaves_index_md_as_it_was(repo: Path) -> None:
    (repo / "app.py").write_text("first = 1\nsecond = 2\n", "utf-8")
    assert main(["memory", "put", "personal", "I keep app.py short", "--ref", "app.py#L1"]) == 0
    index = (repo / ".agents/memory/INDEX.md").read_bytes()
    (repo / "app.py").write_text("changed = 1\nsecond = 2\n", "utf-8")
    assert main(["memory", "index"]) == 0
    assert (repo / ".agents/memory/INDEX.md").read_bytes() == index
    assert "[stale: app.py#L1" in lh("memory", "get", "personal", cwd=repo).stdout


def test_a_superseded_personal_entry_stays_personal(repo: Path) -> None:
    """Superseding in a personal shard writes the shard and its archive in the personal folder only."""
    assert main(["memory", "put", "personal", "--id", "old", "I keep my notes in Dvorak layout"]) == 0
    assert main(["memory", "put", "personal", "--id", "new", "I type Colemak now", "--supersedes", "old"]) == 0
    shared = [p for p in (repo / ".agents/memory").rglob("*.md") if "Dvorak" in p.read_text("utf-8")]
    assert shared == []
    assert "Dvorak" in (repo / ".agents/memory.local/archive/personal.md").read_text("utf-8")
    assert "Colemak" in (repo / ".agents/memory.local/personal.md").read_text("utf-8")
    assert not (repo / ".agents/memory/personal.md").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all", ".agents/memory.local") == ""
    printed = lh("memory", "expand", "old", "--print", cwd=repo).stdout
    assert "superseded by new (.agents/memory.local/archive/personal.md)" in printed


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL needs POSIX")
@pytest.mark.parametrize(
    ("memory_dir", "personal", "renamed"),  # renamed: what the path of the first rename to kill at holds
    [("", ".agents/memory.local", "/.agents/memory"), (".", ".local", "/.local/")],
)
def test_a_personal_supersede_killed_after_its_commit_point_is_finished(
    repo: Path, memory_dir: str, personal: str, renamed: str
) -> None:
    if memory_dir:  # the memory dir at the project's root keeps its personal folder in the project
        assert main(["config", "set", "memory.dir", memory_dir]) == 0
    assert main(["memory", "put", "personal", "--id", "old", "I keep my notes in Dvorak layout"]) == 0
    args = ("memory", "put", "personal", "--id", "new", "I type Colemak now", "--supersedes", "old")
    assert killed_at(0, repo, AFTER_COMMIT_POINT.replace("/.agents/memory", renamed), *args) == -9
    assert (repo / ".agents/.cache/lh/journal").exists()
    assert lh("memory", "status", cwd=repo).returncode == 0  # a reader replays the journal first
    assert not (repo / ".agents/.cache/lh/journal").exists()
    assert "Dvorak" in (repo / personal / "archive/personal.md").read_text("utf-8")
    assert "Colemak" in (repo / personal / "personal.md").read_text("utf-8")
    shared = [p for p in repo.rglob("*.md") if not p.is_relative_to(repo / personal)]
    assert not [p for p in shared if "Dvorak" in p.read_text("utf-8")]


def test_a_memory_dir_at_the_project_root_keeps_the_personal_scope_inside_the_project(project: Path) -> None:
    assert main(["config", "set", "memory.dir", "."]) == 0
    assert ".local/\n" in (project / ".gitignore").read_text("utf-8")  # before any personal note is written
    assert main(["memory", "put", "personal", "--id", "mine", "I review diffs on a phone"]) == 0
    assert "I review diffs on a phone" in (project / ".local/personal.md").read_text("utf-8")
    assert sorted(p.name for p in project.parent.iterdir()) == [project.name]
    assert lh("init", cwd=project).returncode == 0
    assert ".local/\n" in (project / ".gitignore").read_text("utf-8")
