"""Plugin manifests and hooks: a good plugin passes; each mistake gives a line naming the file and key."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lean_harness import doctor, manifests
from lean_harness.doctor import plugin as plugin_checks

PLUGIN = {"name": "demo-plugin", "version": "1.2.0", "description": "A demo.", "author": {"name": "Someone"}}
MARKETPLACE = {
    "name": "demo-market",
    "owner": {"name": "Someone"},
    "plugins": [{"name": "demo-plugin", "source": "./", "version": "1.2.0"}],
}
HOOKS = {
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": '"${CLAUDE_PLUGIN_ROOT}/hooks/run" start'}]}
        ]
    }
}
SKILL = "---\nname: demo\ndescription: Does one thing.\n---\n\n# Demo\n"


def dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    """A small valid plugin: manifests in both places, one skill, one hook script."""
    root = tmp_path / "demo-plugin"
    for place in ("plugin.json", ".claude-plugin/plugin.json"):
        dump(root / place, PLUGIN)
    for place in ("marketplace.json", ".claude-plugin/marketplace.json"):
        dump(root / place, MARKETPLACE)
    dump(root / "hooks" / "hooks.json", HOOKS)
    script = root / "hooks" / "run"
    script.write_text("#!/bin/sh\necho hi\n", "utf-8")
    script.chmod(0o755)
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_text(SKILL, "utf-8")
    return root


def results(root: Path) -> dict[str, doctor.Result]:
    return {r.id: r for r in plugin_checks.run_plugin(root)}


def test_a_good_plugin_passes(plugin: Path) -> None:
    found = results(plugin)
    assert {k: r.status for k, r in found.items()} == dict.fromkeys(
        ["plugin-json", "marketplace-json", "manifest-copies", "skills", "hooks-json"], "ok"
    )
    assert found["marketplace-json"].message == (
        "marketplace.json, .claude-plugin/marketplace.json: valid, lists demo-plugin 1.2.0"
    )
    assert found["hooks-json"].message == "hooks/hooks.json: valid, 1 command found"


def both(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """Apply `change` to both copies of a manifest."""

    def apply(root: Path) -> None:
        for place in (name, f".claude-plugin/{name}"):
            data = json.loads((root / place).read_text("utf-8"))
            change(data)
            dump(root / place, data)

    return apply


def hooks(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        data = json.loads(json.dumps(HOOKS))
        change(data)
        dump(root / "hooks" / "hooks.json", data)

    return apply


CASES = [
    pytest.param(
        both("plugin.json", lambda d: d.update(name="Demo_Plugin")),
        "plugin-json",
        "plugin.json: at name: 'Demo_Plugin' is not allowed: use lowercase letters, digits and single hyphens"
        " (kebab-case), at most 64 characters",
        id="plugin-name",
    ),
    pytest.param(
        both("plugin.json", lambda d: d.update(version="1.2")),
        "plugin-json",
        "plugin.json: at version: '1.2' is not allowed: use a semantic version such as 1.2.3",
        id="plugin-version",
    ),
    pytest.param(
        both("plugin.json", lambda d: d.update(hooks="./hooks/hooks.json")),
        "plugin-json",
        "plugin.json: at hooks: names the default hooks/hooks.json again, which Claude Code refuses to load;"
        " remove the key",
        id="hooks-declared-again",
    ),
    pytest.param(
        lambda root: (root / ".claude-plugin" / "plugin.json").write_text("{\n  name\n}\n", "utf-8"),
        "plugin-json",
        ".claude-plugin/plugin.json:2:3: not valid JSON: Expecting property name enclosed in double quotes",
        id="not-json",
    ),
    pytest.param(
        both("marketplace.json", lambda d: d.pop("owner")),
        "marketplace-json",
        "marketplace.json: at (top): 'owner' is a required property",
        id="owner-missing",
    ),
    pytest.param(
        both("marketplace.json", lambda d: d["plugins"][0].update(source=".")),
        "marketplace-json",
        "marketplace.json: at plugins.0.source: '.' is not allowed: use a ./ path inside the marketplace"
        ' ("./" for the marketplace\'s own folder) or an object {"source": "github", "repo": "owner/name"},'
        ' {"source": "url", "url": ...}, {"source": "git-subdir", "url": ..., "path": ...},'
        ' {"source": "npm", "package": ...}, {"source": "pip", "package": ...} or {"source": "local", "path": "./..."}',
        id="source-form",
    ),
    pytest.param(
        both("marketplace.json", lambda d: d["plugins"][0].update(name="other")),
        "marketplace-json",
        "marketplace.json: at plugins.0.name: 'other' differs from plugin.json's 'demo-plugin';"
        " make them equal (Codex CLI requires it)",
        id="entry-name",
    ),
    pytest.param(
        both("marketplace.json", lambda d: d["plugins"][0].update(version="1.3.0")),
        "marketplace-json",
        "marketplace.json: at plugins.0.version: '1.3.0' differs from plugin.json's '1.2.0'; make them equal",
        id="entry-version",
    ),
    pytest.param(
        both("marketplace.json", lambda d: d["plugins"].append({"name": "gone", "source": "./plugins/gone"})),
        "marketplace-json",
        "marketplace.json: at plugins.1.source: './plugins/gone' is not a folder in demo-plugin",
        id="source-missing",
    ),
    pytest.param(
        lambda root: dump(root / ".claude-plugin" / "plugin.json", {**PLUGIN, "version": "1.2.1"}),
        "manifest-copies",
        ".claude-plugin/plugin.json differs from plugin.json at version",
        id="copies-differ",
    ),
    pytest.param(
        lambda root: (root / "skills" / "demo" / "SKILL.md").write_text(SKILL.replace("one thing", "it: one"), "utf-8"),
        "skills",
        "skills/demo/SKILL.md:3: ': ' inside a plain value is not valid YAML;"
        ' quote the value ("...") when it contains ": "',
        id="skill-yaml",
    ),
    pytest.param(
        hooks(lambda d: d["hooks"].update(sessionStart=d["hooks"].pop("SessionStart"))),
        "hooks-json",
        "hooks/hooks.json: at hooks: 'sessionStart' is not allowed: not a hook event the clients know"
        " (names are case-sensitive, e.g. SessionStart)",
        id="hook-event",
    ),
    pytest.param(
        hooks(lambda d: d["hooks"]["SessionStart"][0]["hooks"][0].pop("command")),
        "hooks-json",
        "hooks/hooks.json: at hooks.SessionStart.0.hooks.0: 'command' is a required property",
        id="hook-command-missing",
    ),
    pytest.param(
        lambda root: (root / "hooks" / "run").unlink(),
        "hooks-json",
        "hooks/hooks.json: at hooks.SessionStart.0.hooks.0: names ${CLAUDE_PLUGIN_ROOT}/hooks/run,"
        " which is not in the plugin",
        id="hook-file-missing",
    ),
]


@pytest.mark.parametrize(("breaker", "check", "message"), CASES)
def test_each_mistake_names_the_file_and_key(
    plugin: Path, breaker: Callable[[Path], None], check: str, message: str
) -> None:
    breaker(plugin)
    found = results(plugin)[check]
    assert (found.status, found.message) == ("fail", message)
    assert found.fix


@pytest.mark.skipif(os.name != "posix", reason="the executable bit is a POSIX notion")
def test_a_hook_script_must_be_executable(plugin: Path) -> None:
    (plugin / "hooks" / "run").chmod(0o644)
    assert results(plugin)["hooks-json"].message == (
        "hooks/hooks.json: at hooks.SessionStart.0.hooks.0: runs ${CLAUDE_PLUGIN_ROOT}/hooks/run,"
        " which is not executable; chmod +x it"
    )


def test_a_plugin_without_claude_copies_is_warned(plugin: Path) -> None:
    (plugin / ".claude-plugin" / "plugin.json").unlink()
    found = results(plugin)["manifest-copies"]
    assert (found.status, found.message) == (
        "warn",
        "no .claude-plugin/plugin.json: Claude Code and Codex CLI read only that one; copy plugin.json there",
    )


def test_a_folder_without_manifests_fails(tmp_path: Path) -> None:
    found = results(tmp_path)["plugin-json"]
    assert found.message.startswith(f"no plugin.json in {tmp_path.name} (looked in plugin.json, ")


def test_commands_resolve_the_plugin_root(tmp_path: Path) -> None:
    assert manifests.command_problems('sh "${CLAUDE_PLUGIN_ROOT}/missing.sh" x', tmp_path) == [
        "names ${CLAUDE_PLUGIN_ROOT}/missing.sh, which is not in the plugin"
    ]
    assert manifests.command_problems("no-such-program-here --flag", tmp_path) == [
        "runs no-such-program-here, which is not on PATH here"
    ]
