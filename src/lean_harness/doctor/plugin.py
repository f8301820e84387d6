"""The plugin checks (`lh doctor --plugin DIR`): manifests, their copies, skills and hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lean_harness import manifests
from lean_harness import skills as skill_rules
from lean_harness.doctor import Check, Result, Verdict, apply, listed
from lean_harness.errors import LhError


def plugin_json(folder: Path) -> Verdict:
    """Each copy of plugin.json is valid JSON and matches the plugin schema."""
    copies, problems = manifests.load(folder, manifests.PLUGIN_PLACES)
    if not copies and not problems:
        return Verdict(
            "fail",
            f"no plugin.json in {folder.name} (looked in {', '.join(manifests.PLUGIN_PLACES)})",
            f'add {manifests.CLAUDE_PLUGIN} with at least {{"name": "{folder.name.lower()}"}}',
        )
    for copy in copies:
        problems += manifests.validate(copy, "plugin")
        hooks = copy.data.get("hooks") if isinstance(copy.data, dict) else None
        if hooks in ("./hooks/hooks.json", "hooks/hooks.json"):
            problems.append(
                f"{copy.path}: at hooks: names the default {manifests.HOOKS} again, which Claude Code refuses"
                " to load; remove the key"
            )
    names = ", ".join(c.path for c in copies)
    return listed(problems, "edit the file as the line says", f"{names}: valid")


def marketplace_json(folder: Path) -> Verdict:
    """marketplace.json is valid, lists this plugin under its own name and version, and its sources exist."""
    copies, problems = manifests.load(folder, manifests.MARKETPLACE_PLACES)
    if not copies and not problems:
        return Verdict("skip", "no marketplace.json: nothing to check")
    plugins, _ = manifests.load(folder, manifests.PLUGIN_PLACES)
    plugin: dict[str, Any] = next((c.data for c in plugins if isinstance(c.data, dict)), {})
    name, version = plugin.get("name"), plugin.get("version")
    for copy in copies:
        problems += manifests.validate(copy, "marketplace")
        problems += manifests.missing_sources(copy, folder)
        if not isinstance(name, str):
            continue
        found = manifests.entry_for(copy, name, folder, folder)
        if found is None:
            problems.append(f'{copy.path}: no entry lists plugin {name} (with "source": "./")')
            continue
        number, entry = found
        if entry.get("name") != name:
            problems.append(
                f"{copy.path}: at plugins.{number}.name: {entry.get('name')!r} differs from plugin.json's {name!r};"
                " make them equal (Codex CLI requires it)"
            )
        if version is not None and entry.get("version") not in (None, version):
            problems.append(
                f"{copy.path}: at plugins.{number}.version: {entry.get('version')!r} differs from"
                f" plugin.json's {version!r}; make them equal"
            )
    names = ", ".join(c.path for c in copies)
    return listed(problems, "edit the file as the line says", f"{names}: valid, lists {name} {version or ''}".rstrip())


def manifest_copies(folder: Path) -> Verdict:
    """The copies each client reads (root, .github/plugin/, .claude-plugin/, ...) are equal."""
    problems: list[str] = []
    warnings: list[str] = []
    seen: list[str] = []
    for places, claude in (
        (manifests.PLUGIN_PLACES, manifests.CLAUDE_PLUGIN),
        (manifests.MARKETPLACE_PLACES, ".claude-plugin/marketplace.json"),
    ):
        copies, _ = manifests.load(folder, places)
        if not copies:
            continue
        seen += [c.path for c in copies]
        problems += manifests.differences(copies)
        if all(c.path != claude for c in copies):
            warnings.append(f"no {claude}: Claude Code and Codex CLI read only that one; copy {copies[0].path} there")
    if not seen:
        return Verdict("skip", "no manifests to compare")
    ok = f"{', '.join(seen)} agree" if len(seen) > 1 else f"one copy: {seen[0]}"
    fix = "make the copies byte-identical (copy one over the others)"
    return listed([*problems, *warnings], fix, ok, "fail" if problems else "warn")


def skills(folder: Path) -> Verdict:
    """Every skills/*/SKILL.md follows the Agent Skills specification."""
    found = skill_rules.find(folder)
    if not found:
        return Verdict("skip", "no skills/ folder")
    problems: list[str] = []
    warnings: list[str] = []
    for skill in found:
        for problem in skill_rules.check(skill, f"skills/{skill.name}"):
            (warnings if problem.warning else problems).append(problem.message)
    ok = f"{len(found)} skills follow the Agent Skills specification"
    return listed([*problems, *warnings], "edit the SKILL.md", ok, "fail" if problems else "warn")


def hooks_json(folder: Path) -> Verdict:
    """hooks/hooks.json has a valid structure, known events, and names commands that exist."""
    copies, problems = manifests.load(folder, (manifests.HOOKS,))
    if not copies and not problems:
        return Verdict("skip", f"no {manifests.HOOKS}")
    commands = manifests.hook_commands(copies[0].data) if copies else []
    for copy in copies:
        problems += manifests.validate(copy, "hooks")
    for where, command in commands:
        problems += [f"{manifests.HOOKS}: at {where}: {p}" for p in manifests.command_problems(command, folder)]
    return listed(
        problems,
        "edit the file as the line says; commands resolve ${CLAUDE_PLUGIN_ROOT} to the plugin folder",
        f"{manifests.HOOKS}: valid, {len(commands)} command{'' if len(commands) == 1 else 's'} found",
    )


CHECKS: tuple[Check[Path], ...] = (plugin_json, marketplace_json, manifest_copies, skills, hooks_json)


def run_plugin(folder: Path) -> list[Result]:
    """The plugin checks for the plugin in `folder`."""
    if not folder.is_dir():
        raise LhError(f"{folder.as_posix()}: no such folder; give lh doctor --plugin the plugin's folder")
    return apply(CHECKS, folder.resolve())
