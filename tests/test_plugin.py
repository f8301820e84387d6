"""The plugin as the clients read it: manifests, skills and hooks of this repository."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from lean_harness import __version__

REPO = Path(__file__).resolve().parents[1]
MANIFESTS = ("plugin.json", "marketplace.json")
SKILLS = sorted(p.parent for p in (REPO / "skills").glob("*/SKILL.md"))
NAME_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
SKILL_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
HOOK_EVENTS = {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"}


def manifest(name: str) -> dict[str, object]:
    data = json.loads((REPO / name).read_text("utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("name", MANIFESTS)
def test_each_client_reads_the_same_bytes_from_a_real_file(name: str) -> None:
    root, claude = REPO / name, REPO / ".claude-plugin" / name
    assert not root.is_symlink()
    assert not claude.is_symlink()
    assert root.read_bytes() == claude.read_bytes(), f"{name} and .claude-plugin/{name} differ: copy {name} over it"


def test_the_plugin_is_named_and_versioned_as_the_package() -> None:
    plugin, market = manifest("plugin.json"), manifest("marketplace.json")
    entries = market["plugins"]
    assert isinstance(entries, list)
    assert len(entries) == 1
    entry = entries[0]
    assert plugin["name"] == entry["name"] == "lean-harness"
    assert plugin["version"] == entry["version"] == __version__, (
        f"set the version in plugin.json and marketplace.json to {__version__} (src/lean_harness/__init__.py)"
    )
    assert entry["source"] == "./"
    owner = market["owner"]
    assert isinstance(owner, dict)
    assert owner["name"]
    assert "hooks" not in plugin  # hooks/hooks.json is read by default; declaring it again is a load error


@pytest.mark.parametrize("name", ["plugin.json", "marketplace.json"])
def test_names_are_kebab_case_within_64_characters(name: str) -> None:
    data = manifest(name)
    names = [data["name"]]
    if name == "marketplace.json":
        names += [p["name"] for p in data["plugins"]]  # type: ignore[attr-defined]
    for value in names:
        assert isinstance(value, str)
        assert NAME_RE.fullmatch(value)
        assert len(value) <= 64


def frontmatter(path: Path) -> tuple[dict[str, str], str]:
    """The flat frontmatter of a SKILL.md (key: value lines, quoted or not) and its body."""
    text = path.read_text("utf-8")
    assert text.startswith("---\n"), f"{path}: no frontmatter"
    head, _, body = text[4:].partition("\n---\n")
    fields: dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        flat = bool(colon) and key == key.strip() and value.startswith(" ")
        assert flat, f"{path}: not a flat key: value line: {line}"
        value = value.strip()
        if value.startswith('"'):
            value = json.loads(value)
        else:
            plain = ": " not in value and " #" not in value
            assert plain, f"{path}: quote the value of {key}: it holds ': ' or ' #'"
        fields[key] = value
    return fields, body


def test_the_four_skills_are_there() -> None:
    assert [p.name for p in SKILLS] == ["lh-doctor", "memory-compaction", "memory-consolidation", "project-memory"]


def test_the_consolidate_command_is_only_started_by_the_user() -> None:
    fields, body = frontmatter(REPO / "commands" / "consolidate.md")
    assert fields["disable-model-invocation"] == "true"
    assert "lh memory consolidate --plan --review --json" in body
    assert "lh memory consolidate --apply" in body
    hooks = (REPO / "hooks" / "hooks.json").read_text()
    assert "consolidate" not in hooks


@pytest.mark.parametrize("folder", SKILLS, ids=lambda p: p.name)
def test_skills_follow_the_agent_skills_rules(folder: Path) -> None:
    fields, body = frontmatter(folder / "SKILL.md")
    assert set(fields) <= SKILL_FIELDS
    assert fields["name"] == folder.name
    assert NAME_RE.fullmatch(fields["name"])
    assert len(fields["name"]) <= 64
    assert 1 <= len(fields["description"]) <= 1024
    assert len(fields.get("compatibility", "")) <= 500
    assert len(body.splitlines()) < 500
    for target in re.findall(r"\]\(([^)#]+)\)", body):
        linked = folder / target
        assert linked.is_file(), f"{folder.name}: link to missing {target}"
        assert linked.parent in (folder, folder / "references"), f"{folder.name}: {target} is more than one level deep"


@pytest.mark.parametrize("folder", SKILLS, ids=lambda p: p.name)
def test_skills_pass_the_reference_validator(folder: Path) -> None:
    skills_ref = pytest.importorskip("skills_ref", reason="the skills-ref package is in the test dependency group")
    assert skills_ref.validate(folder) == []


def test_hooks_use_known_events_and_name_commands_that_exist() -> None:
    data = json.loads((REPO / "hooks" / "hooks.json").read_text("utf-8"))
    assert set(data["hooks"]) == HOOK_EVENTS
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                assert set(handler) == {"type", "command", "timeout", "statusMessage"}
                assert handler["statusMessage"].startswith("lean-harness: ")
                assert handler["type"] == "command"
                words = shlex.split(handler["command"].replace("${CLAUDE_PLUGIN_ROOT}", str(REPO)))
                assert words[0] == "sh"
                assert Path(words[1]).is_file()


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
@pytest.mark.parametrize("path", ["bin/lh", "hooks/lh-hook"])
def test_launchers_are_executable(path: str) -> None:
    assert os.access(REPO / path, os.X_OK)
