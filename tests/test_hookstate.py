"""hookstate.py: the hooks' records and their one JSON reader."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_harness import hookstate
from support import hook_python, lh

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _read(loads: Callable[[str], object], text: str) -> str:
    try:
        return repr(loads(text))  # repr: NaN is not equal to itself
    except ValueError:
        return "refused"


def _same(text: str) -> None:
    assert _read(hookstate.loads, text) == _read(json.loads, text)


@given(JSON, st.sampled_from(["", " ", "\n", "\t\r\n "]), st.booleans())
def test_loads_reads_every_json_value_as_json_loads_does(value: object, space: str, ascii_only: bool) -> None:
    text = space + json.dumps(value, ensure_ascii=ascii_only) + space
    assert hookstate.loads(text) == json.loads(text) == value


@given(st.text(alphabet='{}[]":,0123456789.eE+-truefalsnul \\\t\n\u00e9\ufeffNaInfiy', max_size=30))
def test_loads_refuses_what_json_loads_refuses(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{} {}",
        '{"a": 1} x',
        "\ufeff{}",
        '{"a": "line\nbreak"}',  # a raw control character in a string: strict JSON refuses it
        '{"a": 1,}',
        "[1, 2",
        '"\\ud800"',
        "1e999",
        "-0",
        '{"a": 1, "a": 2}',
        '{"x": "\\u00e9\\n\\"q\\""}',
    ],
)
def test_loads_agrees_with_json_loads_at_the_edges(text: str) -> None:
    _same(text)


def test_loads_reads_the_constants_json_loads_reads() -> None:
    assert hookstate.loads("[NaN, Infinity, -Infinity]")[1:] == [math.inf, -math.inf]  # type: ignore[index]
    assert math.isnan(hookstate.loads("[NaN]")[0])  # type: ignore[index]


def test_a_hook_reads_its_event_without_importing_json() -> None:
    code = (
        "import sys; from lean_harness import hookstate;"
        "assert hookstate.loads(sys.stdin.read()) == {'cwd': '/p', 'n': [1, 2.5, None]};"
        "print(sorted(m for m in sys.modules if m in ('json', 're') or m.startswith(('json.', 're.'))))"
    )
    done = hook_python(code, stdin='{"cwd": "/p", "n": [1, 2.5, null]}')
    assert done.stdout.strip() == "[]"


def test_a_prompt_no_note_matches_is_read_without_json_or_re(tmp_path: Path) -> None:
    """The prompt hook runs on every turn: a prompt that finds nothing loads neither `json` nor `re`."""
    project = tmp_path / "project"
    project.mkdir()
    assert lh("init", cwd=project).returncode == 0
    assert lh("memory", "put", "quirks", "The CI runners have no GPU; CUDA tests skip.", cwd=project).returncode == 0
    code = (
        "import sys; from lean_harness import hooks; hooks.main(['prompt-submit']);"
        "sys.stderr.write(repr(sorted(m for m in sys.modules if m in ('json', 're'))))"
    )
    event = json.dumps({"session_id": "s", "cwd": str(project), "prompt": "Rename the checkout button, please."})
    runs = [hook_python(code, project, event) for _ in range(2)]  # the first of a session records what it saw
    assert (runs[1].stdout, runs[1].stderr) == ("", "[]")
