"""memory/intake/formats/claude_code.py: where Claude Code keeps a project's auto memory."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from support import lh
from test_importing import MEMORY, stored
from test_memory_md import CLAUDE_FOLDERS


def claude_project_name(path: Path) -> str:
    """Claude Code's folder name for a project path: each character but ASCII letters and digits is '-'."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in str(path))


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_from_claude_code_finds_this_projects_auto_memory(project: Path, sources: Path) -> None:
    git("init", "-q", cwd=project)
    folder = Path.home() / ".claude" / "projects" / claude_project_name(project.resolve()) / "memory"
    shutil.copytree(sources / "claude" / "typed", folder)
    result = lh("memory", "import", "--from", "claude-code", cwd=project)
    assert result.returncode == 0, result.stderr
    shown = f"~/.claude/projects/{claude_project_name(project.resolve())}/memory"
    assert result.stdout.splitlines()[0] == (
        f"added corrections/Integration-tests-hit-a-real-database ({shown}/feedback_real_db.md)"
    )
    assert sorted(stored(project)) == sorted(CLAUDE_FOLDERS["typed"])
    marker = json.loads(next((project / MEMORY / ".imports").glob("memory-md-*.json")).read_text("utf-8"))
    assert marker["source"] == "(outside the project)/memory"


def test_from_claude_code_in_a_worktree_reads_the_main_checkouts_memory(project: Path, sources: Path) -> None:
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-qm", "init", cwd=project)
    worktree = project.parent / "feature.tree"
    git("worktree", "add", "-q", str(worktree), cwd=project)
    folder = Path.home() / ".claude" / "projects" / claude_project_name(project.resolve()) / "memory"
    shutil.copytree(sources / "claude" / "metadata", folder)
    result = lh("memory", "import", "--from", "claude-code", "--dry-run", cwd=worktree)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("dry run: memory-md ~/.claude/projects/")
    assert "3 would add" in result.stdout.splitlines()[-1]


def test_from_claude_code_honours_the_config_dir_and_names_where_it_looked(
    project: Path, sources: Path, tmp_path: Path
) -> None:
    config = tmp_path / "claude-config"
    name = claude_project_name(project.resolve())
    missing = lh("memory", "import", "--from", "claude-code", cwd=project, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert missing.returncode == 2
    assert missing.stderr == (
        f"no Claude Code memory for this project at {config / 'projects' / name / 'memory'};"
        " pass the folder itself as SOURCE if it is elsewhere\n"
    )
    shutil.copytree(sources / "claude" / "memory-only", config / "projects" / name / "memory")
    found = lh("memory", "import", "--from", "claude-code", cwd=project, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert found.returncode == 0, found.stderr
    assert sorted(stored(project)) == sorted(CLAUDE_FOLDERS["memory-only"])
    both = lh("memory", "import", "x", "--from", "claude-code", cwd=project)
    assert (both.returncode, both.stderr) == (2, "give a SOURCE to import or --from claude-code, not both or neither\n")
