"""The real clients install the plugin: Claude Code and Copilot CLI from npm, pinned, offline.

`nox -s clients` installs the pinned clients into a temporary prefix and runs this file with
LEAN_HARNESS_CLIENTS_BIN pointing at their `bin/`; elsewhere these tests are skipped. Each runs
with a throwaway HOME and no login, against a clean copy of the repository (its git files).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lean_harness import __version__

REPO = Path(__file__).resolve().parents[1]
CLIENTS_BIN = os.environ.get("LEAN_HARNESS_CLIENTS_BIN", "")
pytestmark = pytest.mark.skipif(not CLIENTS_BIN, reason="run by nox -s clients, which installs the real clients")
# Claude Code lists a plugin's slash commands (commands/*.md) among its skills.
SKILL_COUNT = len(list((REPO / "skills").glob("*/SKILL.md")))
CLAUDE_SKILLS = SKILL_COUNT + len(list((REPO / "commands").glob("*.md")))


def client(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": CLIENTS_BIN + os.pathsep + os.environ["PATH"],
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    done = subprocess.run(
        list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"{shlex.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture
def clean_copy(tmp_path: Path) -> Path:
    """The repository's git files (tracked, and new ones not ignored) in a fresh folder."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    copy = tmp_path / "lean-harness"
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


@pytest.mark.parametrize("name", ["plugin.json", "marketplace.json"])
def test_claude_validates_the_manifests_strictly(name: str, clean_copy: Path) -> None:
    done = client("claude", "plugin", "validate", "--strict", f".claude-plugin/{name}", cwd=clean_copy)
    assert "Validation passed" in done.stdout


def run_hook(command: str, event: dict[str, str], plugin_root: str, project: Path, extra: dict[str, str]) -> str:
    """A hook's command as the client runs it: through a shell, the plugin root set and expanded."""
    # The user's Python, not this virtualenv's: the hooks must work without lean-harness installed.
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != venv_bin)
    done = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(event),
        cwd=project,
        env={**os.environ, "PATH": path, "CLAUDE_PLUGIN_ROOT": plugin_root, **extra},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def check_hooks(plugin_root: str, tmp_path: Path, env: dict[str, str], read: Callable[[str], str]) -> None:
    """Run the installed copy's hooks with the variables the client sets; `read` is how it reads stdout."""
    project = tmp_path / "project"
    project.mkdir()
    for args in (["init"], ["memory", "put", "quirks", "the CI box has no GPU"]):
        subprocess.run([sys.executable, "-m", "lean_harness", *args], cwd=project, check=True, capture_output=True)
    config = json.loads((Path(plugin_root) / "hooks" / "hooks.json").read_text("utf-8"))["hooks"]
    assert set(config) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"}
    command = {event: groups[0]["hooks"][0]["command"] for event, groups in config.items()}
    event = {"session_id": "ci", "cwd": str(project)}

    def run(name: str, **fields: str) -> str:
        return read(run_hook(command[name], {**event, **fields}, plugin_root, project, env))

    started = run("SessionStart", source="startup")
    index = (project / ".agents" / "memory" / "INDEX.md").read_text("utf-8")
    assert started.startswith("Project memory (lean-harness): every entry (the memory fits")
    assert "\nthe CI box has no GPU\n" in started
    assert index.rstrip() in started
    assert run("UserPromptSubmit") == ""
    with (project / ".agents" / "memory" / "seed.md").open("a", encoding="utf-8") as handle:
        handle.write("\nedited by hand\n")
    assert ".agents/memory/seed.md" in run("UserPromptSubmit")
    assert run("SessionStart", source="compact").rstrip().endswith("and the state of the current task.")


def plain(stdout: str) -> str:
    return stdout


def additional_context(stdout: str) -> str:
    return str(json.loads(stdout)["additionalContext"]) if stdout else ""


def test_claude_installs_the_plugin_from_its_marketplace(clean_copy: Path, tmp_path: Path) -> None:
    client("claude", "plugin", "marketplace", "add", str(clean_copy), cwd=tmp_path)
    client("claude", "plugin", "install", "lean-harness@lean-harness", cwd=tmp_path)
    listed = json.loads(client("claude", "plugin", "list", "--json", cwd=tmp_path).stdout)
    ours = [p for p in listed if p["id"] == "lean-harness@lean-harness"]
    assert len(ours) == 1
    assert ours[0]["version"] == __version__
    assert ours[0]["enabled"] is True
    assert not ours[0].get("errors")
    details = client("claude", "plugin", "details", "lean-harness@lean-harness", cwd=tmp_path).stdout
    assert f"Skills ({CLAUDE_SKILLS})" in details
    assert "Hooks (4)  SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure" in details
    root = ours[0]["installPath"]
    check_hooks(root, tmp_path, {"CLAUDE_PROJECT_DIR": str(tmp_path / "project")}, plain)


def test_copilot_installs_the_plugin_and_its_skills(clean_copy: Path, tmp_path: Path) -> None:
    client("copilot", "plugin", "marketplace", "add", str(clean_copy), cwd=tmp_path)
    done = client("copilot", "plugin", "install", "lean-harness@lean-harness", cwd=tmp_path)
    assert f"Installed {SKILL_COUNT} skills." in done.stdout
    listed = json.loads(client("copilot", "plugin", "list", "--json", cwd=tmp_path).stdout)
    ours = [p for p in listed if p["name"] == "lean-harness"]
    assert len(ours) == 1
    assert (ours[0]["version"], ours[0]["enabled"]) == (__version__, True)
    # A local marketplace is loaded live: the installed copy is the marketplace folder itself.
    root = ours[0].get("installedFrom") or str(clean_copy)
    env = {"PLUGIN_ROOT": root, "COPILOT_PLUGIN_ROOT": root, "CLAUDE_PROJECT_DIR": str(tmp_path / "project")}
    check_hooks(root, tmp_path, env, additional_context)


def test_codex_installs_the_plugin_from_its_marketplace(clean_copy: Path, tmp_path: Path) -> None:
    client("codex", "plugin", "marketplace", "add", str(clean_copy), cwd=tmp_path)
    done = client("codex", "plugin", "add", "lean-harness@lean-harness", cwd=tmp_path)
    assert "Added plugin `lean-harness` from marketplace `lean-harness`." in done.stdout
    listed = json.loads(client("codex", "plugin", "list", "--json", cwd=tmp_path).stdout)["installed"]
    ours = [p for p in listed if p["pluginId"] == "lean-harness@lean-harness"]
    assert len(ours) == 1
    assert (ours[0]["version"], ours[0]["installed"], ours[0]["enabled"]) == (__version__, True, True)
    root = done.stdout.split("Installed plugin root: ", 1)[1].strip()
    assert (Path(root) / "pyproject.toml").is_file()  # a complete Python project: pipx install ROOT works
    review = codex_hook_review(tmp_path)
    assert review["warnings"] == review["errors"] == []
    hooks = {hook["eventName"]: hook for hook in review["hooks"] if hook["pluginId"] == "lean-harness@lean-harness"}
    launcher = '"' + str(Path(root) / "hooks" / "lh-hook") + '"'  # ${CLAUDE_PLUGIN_ROOT} filled in by Codex
    shown = {
        name: (hook["command"], hook["matcher"], hook["timeoutSec"], hook["statusMessage"], hook["trustStatus"])
        for name, hook in hooks.items()
    }
    assert shown == {
        "sessionStart": (
            f"sh {launcher} session-start",
            "startup|resume|clear|compact",
            10,
            "lean-harness: reading the memory index",
            "untrusted",
        ),
        "userPromptSubmit": (
            f"sh {launcher} prompt-submit",
            None,
            10,
            "lean-harness: checking memory files for changes",
            "untrusted",
        ),
        "postToolUse": (  # Codex has no PostToolUseFailure: a failed command comes as a PostToolUse
            f"sh {launcher} tool-use",
            "Read|Edit|Write|MultiEdit|NotebookEdit|Bash|apply_patch|view|edit|create",
            10,
            "lean-harness: looking for memory notes on this tool call",
            "untrusted",
        ),
    }
    env = {"PLUGIN_ROOT": root, "PLUGIN_DATA": str(tmp_path / "data"), "CLAUDE_PLUGIN_DATA": str(tmp_path / "data")}
    check_hooks(root, tmp_path, env, str.strip)


def codex_hook_review(cwd: Path) -> dict[str, Any]:
    """What Codex's /hooks review lists for `cwd`, asked of its app server as its own UI asks."""
    server = subprocess.Popen(
        [str(Path(CLIENTS_BIN) / "codex"), "app-server"],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout or ()], daemon=True).start()
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "ci", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    try:
        assert server.stdin is not None
        server.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        server.stdin.flush()
        while True:
            message = json.loads(lines.get(timeout=120))
            if message.get("id") == 2:
                data: dict[str, Any] = message["result"]["data"][0]
                return data
    finally:
        server.kill()
        server.wait(timeout=60)
