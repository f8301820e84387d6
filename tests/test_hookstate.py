"""hookstate.py: the hooks' records and their one JSON reader."""

from __future__ import annotations

import json
import math
import random
import string
import zlib
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
        "sys.stderr.write(repr(sorted(m for m in sys.modules if m in ('json', 're', 'zlib'))))"
    )
    event = json.dumps({"session_id": "s", "cwd": str(project), "prompt": "Rename the checkout button, please."})
    runs = [hook_python(code, project, event) for _ in range(2)]  # the first of a session records what it saw
    assert (runs[1].stdout, runs[1].stderr) == ("", "[]")


@given(st.text(max_size=300))
def test_a_session_tag_is_the_crc32_of_the_ids_first_256_characters(session: str) -> None:
    assert hookstate.session_tag(session) == f"{zlib.crc32(session[:256].encode('utf-8', 'replace')):08x}"


def test_a_session_id_shaped_like_a_credential_is_kept_in_no_name_and_no_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert lh("init", cwd=project).returncode == 0
    note = "FluxCapacitorError in warp_core: the GPU driver wedges; reset it with nvidia-smi -r"
    assert lh("memory", "put", "failures", "--id", "flux", note, cwd=project).returncode == 0
    rng = random.Random(7)
    session = "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    failed = {"hook_event_name": "PostToolUseFailure", "error": "Exit code 1\nwarp_core.FluxCapacitorError: GPU"}
    asked = {"prompt": "why does warp_core raise FluxCapacitorError on the GPU?"}
    for name, event in (("session-start", {}), ("prompt-submit", asked), ("tool-use", failed)):
        code = f"from lean_harness import hooks; hooks.main([{name!r}])"
        hook_python(code, project, json.dumps({"session_id": session, "cwd": str(project), **event}))
    old = project / ".agents/.cache/lh/hooks/seen" / session  # as an older lh named a session's record
    old.write_text("seed.md 1 2 3\n", encoding="utf-8")
    hook_python(
        "from lean_harness import hooks; hooks.main(['session-start'])", project, json.dumps({"cwd": str(project)})
    )
    tag = f"{zlib.crc32(session.encode()):08x}"
    records = sorted(
        p.relative_to(project / ".agents/.cache/lh/hooks").as_posix() for p in project.rglob("*/hooks/*/*")
    )
    default = f"{zlib.crc32(b'default'):08x}"  # the second start named no session
    assert records == sorted(f"{kind}/{name}" for kind in ("handed", "seen") for name in (tag, default))
    files = [p for p in project.rglob("*") if p.is_file()]
    assert [p for p in files if session[3:] in p.as_posix() or session[3:].encode() in p.read_bytes()] == []
