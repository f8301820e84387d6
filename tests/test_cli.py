"""The command line as a user drives it: real `lh` processes, help, versions, JSON, exit codes."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness import __version__
from lean_harness.cli import COMMANDS, main
from support import lh

SUBCOMMANDS = [
    [],
    ["init"],
    ["demo"],
    ["config"],
    ["config", "show"],
    ["config", "set"],
    ["config", "schema"],
    ["memory"],
    ["memory", "put"],
    ["memory", "get"],
    ["memory", "index"],
    ["memory", "status"],
    ["memory", "scan"],
    ["memory", "lint"],
]


def test_version(tmp_path: Path) -> None:
    result = lh("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == f"lh {__version__}\n"


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=lambda w: " ".join(w) or "lh")
def test_every_command_has_help(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*words, "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("usage: lh")


def test_a_whole_session_through_real_processes(tmp_path: Path) -> None:
    assert lh("init", cwd=tmp_path).returncode == 0
    added = lh("memory", "put", "failures", "flaky: test_merge races the lock", "--tag", "ci", "--json", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    data = json.loads(added.stdout)
    assert data["version"] == 1
    assert data["command"] == "memory put"
    assert data["action"] == "added"
    assert data["problems"] == []
    got = lh("memory", "get", "failures", cwd=tmp_path)
    assert "flaky: test_merge races the lock" in got.stdout
    assert lh("memory", "index", "--check", cwd=tmp_path).returncode == 0
    status = json.loads(lh("memory", "status", "--json", cwd=tmp_path).stdout)
    assert status["total_tokens"] == data["total_tokens"]
    shown = json.loads(lh("config", "show", "--json", cwd=tmp_path).stdout)
    assert shown["config"]["memory"]["dir"] == ".agents/memory"
    assert lh("config", "set", "memory.keepNewest", "3", cwd=tmp_path).returncode == 0
    schema = json.loads(lh("config", "schema", cwd=tmp_path).stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_dash_c_runs_in_another_folder(tmp_path: Path) -> None:
    assert lh("-C", str(tmp_path), "init", cwd=Path.cwd()).returncode == 0
    assert (tmp_path / ".agents/lh.toml").is_file()


def test_user_errors_are_one_line_without_traceback(tmp_path: Path) -> None:
    result = lh("memory", "status", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    result = lh("memory", "put", cwd=tmp_path)
    assert result.returncode == 2
    assert "the following arguments are required: SHARD, TEXT" in result.stderr


def test_non_utf8_stdin_is_refused(tmp_path: Path) -> None:
    assert lh("init", cwd=tmp_path).returncode == 0
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "lean_harness", "memory", "put", "seed", "-"],
        cwd=tmp_path,
        input=b"caf\xe9",
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == b"standard input is not valid UTF-8; nothing was written\n"


def test_init_json(tmp_path: Path) -> None:
    data = json.loads(lh("init", "--json", cwd=tmp_path).stdout)
    assert data["command"] == "init"
    assert ".agents/lh.toml" in data["created"]


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_registered_command_has_a_module_or_children(path: tuple[str, ...]) -> None:
    module_name = COMMANDS[path][1]
    if module_name is None:
        assert any(other[: len(path)] == path and len(other) == len(path) + 1 for other in COMMANDS)
        return
    module = importlib.import_module(f"lean_harness.commands.{module_name}")
    assert callable(getattr(module, "add_arguments", print))  # only a command with options declares them
    assert callable(module.run)


def test_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(path[0] in out for path in COMMANDS)


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    probe = (
        "import sys; from lean_harness.cli import main; main(['-C', sys.argv[1], 'memory', 'status']);"
        " print(sorted(m for m in sys.modules if m.startswith('lean_harness.commands.')))"
    )
    assert lh("init", cwd=tmp_path).returncode == 0
    result = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=False)
    assert result.stdout.splitlines()[-1] == "['lean_harness.commands.status']"


def test_scan_of_an_empty_path_is_an_error(project: Path) -> None:
    done = lh("memory", "scan", "", cwd=project)
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        "lh memory scan: PATH is empty; give a file or folder, or no PATH to scan the memory\n",
        "",
    )
