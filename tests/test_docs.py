"""The docs against the real command line and config schema, both ways, so neither can drift.

docs/reference.md has a heading "### `lh PATH`" per command; the long options named in that
section are the command's, as its argparse parser declares them. A code span or command line
that starts with `lh ` anywhere (reference.md or README.md) names that command's options only.
"""

from __future__ import annotations

import argparse
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from lean_harness import cli

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "docs" / "reference.md"
README = REPO / "README.md"

HEADING = re.compile(r"^(#+) (.*)$", re.MULTILINE)
COMMAND_HEADING = re.compile(r"^`lh((?: [a-z]+)*)`$")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
WORD = re.compile(r"\S+")


def paths() -> list[tuple[str, ...]]:
    """Every command path `lh --help` and its groups list, and the top level itself."""
    return [(), *cli.COMMANDS]


def leaf_parser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    return cli._parser(path)[1]


def long_options(path: tuple[str, ...]) -> set[str]:
    """The long options of a command, `--help` aside (every command has it)."""
    parser = leaf_parser(path)
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--")} - {"--help"}


def positional_names(path: tuple[str, ...]) -> set[str]:
    parser = leaf_parser(path)
    return {
        str(a.metavar or a.dest).upper()
        for a in parser._actions
        if not a.option_strings and not isinstance(a, argparse._SubParsersAction)
    }


def sections(text: str) -> dict[tuple[str, ...], str]:
    """Each command heading's path and the text up to the next heading."""
    found: dict[tuple[str, ...], str] = {}
    headings = list(HEADING.finditer(text))
    for here, after in zip(headings, [*headings[1:], None], strict=True):
        match = COMMAND_HEADING.match(here.group(2))
        if match is None:
            continue
        path = tuple(match.group(1).split())
        assert path not in found, f"two sections for lh {' '.join(path)}"
        found[path] = text[here.end() : after.start() if after else len(text)]
    return found


def command_of(words: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The command path the words after `lh` name (skipping `-C DIR`), and the words after it."""
    path: tuple[str, ...] = ()
    rest = list(words)
    while rest:
        if rest[0] == "-C":
            rest = rest[2:]
            continue
        if (*path, rest[0]) not in cli.COMMANDS:
            break
        path = (*path, rest.pop(0))
    return path, rest


def invocations(text: str) -> list[tuple[str, tuple[str, ...], set[str]]]:
    """Every `lh ...` among the code spans and fenced lines: what was written, its path, its options."""
    pieces = [m.group(1) for m in CODE_SPAN.finditer(FENCE.sub("", text))]
    for block in FENCE.finditer(text):
        pieces += [line.removeprefix("$ ") for line in block.group(1).splitlines()]
    found = []
    for piece in pieces:
        for part in re.split(r"&&|\|\||;|\|", piece):
            words = WORD.findall(part)
            if words[:1] != ["lh"]:
                continue
            path, rest = command_of(words[1:])
            found.append((part.strip(), path, set(OPTION.findall(" ".join(rest)))))
    return found


def is_command_line(text: str) -> bool:
    """Whether a code span or fenced line is a command (of lh or another program), not an option."""
    first = text.removeprefix("$ ").split(" ", 1)[0]
    return " " in text and re.fullmatch(r"[a-z][\w.]*", first) is not None


def outside_command_lines(text: str) -> str:
    """The text without its command lines: options there are `lh`'s (checked apart) or another program's."""
    text = FENCE.sub(lambda m: "\n".join(x for x in m.group(0).splitlines() if not is_command_line(x)), text)
    return CODE_SPAN.sub(lambda m: "" if is_command_line(m.group(1)) else m.group(0), text)


def check_invocations(text: str, name: str) -> None:
    for written, path, options in invocations(text):
        unknown = options - long_options(path) - {"--help"}
        assert not unknown, f"{name}: `{written}` gives lh {' '.join(path)} options it does not have: {sorted(unknown)}"


def test_every_command_has_a_section_and_every_section_is_a_command() -> None:
    documented = set(sections(REFERENCE.read_text("utf-8")))
    assert documented == set(paths()), (
        f"missing: {sorted(set(paths()) - documented)}; not commands: {sorted(documented - set(paths()))}"
    )


@pytest.mark.parametrize("path", paths(), ids=lambda p: " ".join(("lh", *p)))
def test_a_commands_section_names_exactly_its_options(path: tuple[str, ...]) -> None:
    section = sections(REFERENCE.read_text("utf-8"))[path]
    named = set(OPTION.findall(outside_command_lines(section)))
    for _written, spanned, options in invocations(section):
        if spanned == path:
            named |= options
    expected = long_options(path)
    described = set(re.findall(r"^- `(--[a-z][a-z0-9-]*)", section, re.MULTILINE))
    named -= {"--help"}
    command = " ".join(("lh", *path))
    assert named <= expected, f"{command}: documented, but not options: {sorted(named - expected)}"
    assert described == expected, (
        f"{command}: options without their own '- `--option`' line: {sorted(expected - described)}"
    )


@pytest.mark.parametrize("path", paths(), ids=lambda p: " ".join(("lh", *p)))
def test_a_commands_section_names_its_arguments(path: tuple[str, ...]) -> None:
    section = sections(REFERENCE.read_text("utf-8"))[path]
    missing = {name for name in positional_names(path) if not re.search(rf"\b{re.escape(name)}\b", section)}
    assert not missing, f"lh {' '.join(path)}: arguments not named: {sorted(missing)}"


def test_every_lh_command_line_in_the_docs_uses_real_options() -> None:
    check_invocations(REFERENCE.read_text("utf-8"), "docs/reference.md")
    check_invocations(README.read_text("utf-8"), "README.md")


def test_options_outside_command_sections_are_real() -> None:
    text = REFERENCE.read_text("utf-8")
    for section in sections(text).values():
        text = text.replace(section, "")
    every = set().union(*(long_options(p) for p in paths())) | {"--help"}
    for name, prose in (("docs/reference.md", text), ("README.md", README.read_text("utf-8"))):
        stray = set(OPTION.findall(outside_command_lines(prose))) - every
        assert not stray, f"{name} names options no command has: {sorted(stray)}"


def schema_keys(node: dict[str, object], prefix: str = "") -> set[str]:
    """The dotted keys of the schema: each property, and its own properties when it has some."""
    keys: set[str] = set()
    properties = node.get("properties")
    assert isinstance(properties, dict)
    for name, child in properties.items():
        key = f"{prefix}{name}"
        if isinstance(child, dict) and "properties" in child:
            keys |= schema_keys(child, key + ".")
        else:
            keys.add(key)
    return keys


def config_table_keys(text: str) -> set[str]:
    section = text.split("### Config keys", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([A-Za-z.]+)` \|", section, re.MULTILINE))


def test_the_config_table_lists_exactly_the_schemas_keys() -> None:
    schema = json.loads(resources.files("lean_harness.schemas").joinpath("config.schema.json").read_text("utf-8"))
    expected = schema_keys(schema)
    assert "memory.tokenBudget" in expected  # the walk reaches nested keys
    documented = config_table_keys(REFERENCE.read_text("utf-8"))
    missing, extra = sorted(expected - documented), sorted(documented - expected)
    assert documented == expected, f"config keys missing: {missing}; not in the schema: {extra}"


def test_every_config_key_named_in_the_docs_exists() -> None:
    schema = json.loads(resources.files("lean_harness.schemas").joinpath("config.schema.json").read_text("utf-8"))
    keys = schema_keys(schema)
    for doc in (REFERENCE, README):
        named = set(re.findall(r"(?<![\w./-])((?:memory|artifacts)\.[A-Za-z]+)(?![\w/])", doc.read_text("utf-8")))
        assert named <= keys, f"{doc.name} names config keys the schema lacks: {sorted(named - keys)}"


def readme_blocks() -> list[str]:
    return [m.group(1).strip() for m in FENCE.finditer(README.read_text("utf-8"))]


def test_readme_is_short() -> None:
    words = len(README.read_text("utf-8").split())
    assert words <= 1500, f"README.md has {words} words; keep it to 1,500 and move reference to docs/"


def test_readme_opens_with_the_two_set_up_commands() -> None:
    install, tests = readme_blocks()[:2]
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && ")
    assert " && lh init && lh memory put " in install
    assert tests == "python3 -m venv .venv && . .venv/bin/activate && pip install nox && nox"


def test_readmes_test_command_is_what_ci_runs() -> None:
    script = (REPO / ".ci" / "run").read_text("utf-8").splitlines()
    steps = [line.replace(" --quiet", "") for line in script[script.index('cd "$(dirname "$0")/.."') + 1 :] if line]
    assert readme_blocks()[1].split(" && ") == steps


def test_readmes_command_table_lists_every_command_once() -> None:
    rows = re.findall(r"^\| `lh ([a-z ]+)` \|", README.read_text("utf-8"), re.MULTILINE)
    leaves = [" ".join(p) for p, (_, module) in cli.COMMANDS.items() if module is not None]
    assert sorted(rows) == sorted(leaves)
