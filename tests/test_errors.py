"""errors.py: the one error type, its exit codes, and messages made readable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.errors import LhError, Refused, readable
from support import lh


def test_a_message_quoting_a_user_value_drops_escapes_and_cuts_it(project: Path) -> None:
    value = "\x1b[31m\x1b]0;title\x07red" + "a" * 130_000
    cut = "red" + "a" * 196 + "…"  # 200 characters shown, the escapes gone
    done = lh("memory", "scan", value, cwd=project)
    assert (done.returncode, done.stderr) == (2, f"{cut}: File name too long; nothing more was done\n")
    done = lh("memory", "put", "insights", "x", "--ref", value, cwd=project)
    assert (done.returncode, done.stderr) == (
        2,
        f"--ref {cut}: cannot read {cut} (File name too long); cite a readable file\n",
    )
    done = lh("memory", "put", "insights", "x", "--ref", value, "--json", cwd=project)
    assert json.loads(done.stdout)["problems"] == [
        f"--ref {cut}: cannot read {cut} (File name too long); cite a readable file"
    ]


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        pytest.param("no memory directory at .agents/memory", "no memory directory at .agents/memory", id="plain"),
        pytest.param("bad \x1b[31mred\x1b[0m\tvalue\x00", "bad redvalue", id="escapes-and-controls"),
        pytest.param("one\ntwo", "one\ntwo", id="line-feed-kept"),
        pytest.param("at " + "x" * 250 + ": bad", "at " + "x" * 199 + "…: bad", id="long-value-cut"),
    ],
)
def test_a_message_is_made_readable_and_carries_its_exit_code(message: str, shown: str) -> None:
    assert readable(message) == shown
    assert (LhError(message).message, LhError(message).exit_code) == (shown, 2)
    assert (str(Refused(message)), Refused(message).exit_code) == (shown, 1)


def test_a_long_line_keeps_its_end() -> None:
    line = "word " * 500 + "run lh init"
    assert readable(line) == line[:1699] + "…" + line[-300:]
