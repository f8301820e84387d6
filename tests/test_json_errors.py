"""Under --json every failure prints the versioned envelope on stdout, the same line on stderr."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from lean_harness.cli import COMMANDS
from support import lh

NO_CONFIG = 'no lean-harness config (.agents/lh.toml) in {root} or above; run "lh init"'
# Every command that accepts --json, and arguments it can run with.
JSON_COMMANDS = [
    ("doctor",),
    ("config", "show"),
    ("memory", "put", "seed", "x"),
    ("memory", "get", "seed"),
    ("memory", "index"),
    ("memory", "status"),
    ("memory", "stats"),
    ("memory", "compact"),
    ("memory", "expand", "abc"),
    ("memory", "scan"),
    ("memory", "lint"),
    ("memory", "import", "notes.jsonl"),
    ("memory", "note", "x"),
    ("memory", "consolidate"),
    ("memory", "review"),
    ("memory", "adopt"),
    ("memory", "verify"),
]


def aws_key_id(seed: int = 7) -> str:
    """A key id in AWS's format, made up at run time (never a real credential)."""
    rng = random.Random(seed)
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def failed(done: object, command: str, code: int) -> str:
    """The one problem of a failure envelope, after checking the envelope, the exit code and stderr."""
    assert done.returncode == code, done.stderr  # type: ignore[attr-defined]
    envelope = json.loads(done.stdout)  # type: ignore[attr-defined]
    assert list(envelope) == ["version", "command", "problems"]
    assert (envelope["version"], envelope["command"]) == (1, command)
    assert len(envelope["problems"]) == 1
    assert done.stderr == envelope["problems"][0] + "\n"  # type: ignore[attr-defined]
    return str(envelope["problems"][0])


def test_the_table_names_every_command_that_accepts_json(tmp_path: Path) -> None:
    listed = {words[:2] if words[0] in ("memory", "config") else words[:1] for words in JSON_COMMANDS}
    commands = [path for path, (_, module) in COMMANDS.items() if module is not None]
    found = {path for path in commands if "--json" in lh(*path, "--help", cwd=tmp_path).stdout}
    assert found == listed | {("init",), ("deinit",)}


@pytest.mark.parametrize("words", JSON_COMMANDS, ids=" ".join)
def test_outside_a_project_every_command_prints_the_envelope(words: tuple[str, ...], tmp_path: Path) -> None:
    done = lh(*words, "--json", cwd=tmp_path)
    command = " ".join(words[:2] if words[0] in ("memory", "config") else words[:1])
    assert failed(done, command, 2) == NO_CONFIG.format(root=tmp_path.resolve().as_posix())


@pytest.mark.parametrize("words", JSON_COMMANDS, ids=" ".join)
def test_an_unknown_option_prints_the_envelope(words: tuple[str, ...], tmp_path: Path) -> None:
    done = lh(*words, "--json", "--bogus", cwd=tmp_path)
    command = " ".join(words[:2] if words[0] in ("memory", "config") else words[:1])
    assert failed(done, command, 2) == "lh: error: unrecognized arguments: --bogus"


def test_a_missing_argument_prints_the_envelope_and_text_keeps_the_usage(tmp_path: Path) -> None:
    done = lh("memory", "put", "--json", cwd=tmp_path)
    assert failed(done, "memory put", 2) == "lh memory put: error: the following arguments are required: SHARD, TEXT"
    text = lh("memory", "put", cwd=tmp_path)
    assert (text.returncode, text.stdout) == (2, "")
    assert text.stderr.startswith("usage: lh memory put ")
    assert text.stderr.endswith("\nlh memory put: error: the following arguments are required: SHARD, TEXT\n")


def test_an_unknown_shard_prints_the_envelope(project: Path) -> None:
    done = lh("memory", "put", "nosuchshard", "x", "--json", cwd=project)
    assert failed(done, "memory put", 2) == (
        "unknown shard 'nosuchshard'; shards in .agents/lh.toml: seed, failures, corrections, insights,"
        ' conventions, quirks, personal (add one with "lh config set memory.shards.nosuchshard DESCRIPTION")'
    )


@pytest.mark.parametrize("words", [("memory", "put", "seed"), ("memory", "note")], ids=["put", "note"])
def test_a_refused_credential_prints_the_envelope_with_exit_1(words: tuple[str, ...], project: Path) -> None:
    done = lh(*words, f"key {aws_key_id()}", "--json", cwd=project)
    problem = failed(done, " ".join(words[:2]), 1)
    assert problem.startswith("refused: ")
    assert aws_key_id() not in done.stdout + done.stderr


def test_init_refusing_a_symlinked_agents_md_prints_the_envelope(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Rules\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").symlink_to("CLAUDE.md")
    done = lh("init", "--agents-md", "--json", cwd=tmp_path)
    assert failed(done, "init", 2) == (
        "AGENTS.md is a symbolic link; lean-harness only manages real files. Replace the link with the file or"
        " folder itself"
    )
    assert not (tmp_path / ".agents").exists()


def test_deinit_purge_without_confirmation_prints_the_envelope(project: Path) -> None:
    done = lh("deinit", "--purge", "--json", cwd=project)
    assert failed(done, "deinit", 2) == "--purge deletes .agents/ and every memory entry in it; add --yes to confirm"
    assert (project / ".agents" / "lh.toml").is_file()
