"""memory/intake/formats/frontmatter.py: the YAML subset memory files and SKILL.md open with."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lean_harness.memory.intake.formats import frontmatter
from support import lh
from test_importing import run_import, stored


def test_frontmatter_outside_the_subset_is_read_leniently_and_named(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/memory-md-broken", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    where = "../sources/memory-md-broken"
    assert data["problems"] == []
    assert data["warnings"] == [
        f"{where}/MEMORY.md: links to files that do not exist: missing.md (line 3)",
        f"{where}/kind.md: type 'opinion' is not one of"
        " user, feedback, project, reference, decision, convention, context, technical, handoff,"
        " investigation, proposal, specification, architecture; imported to the"
        " default shard",
        f"{where}/open.md:1: the frontmatter is not closed; add a --- line after it; the whole file was read as text",
        f"{where}: frontmatter keys not imported: meta (nested.md)",
    ]
    entries = stored(project)
    assert {key: shard for key, (shard, _) in entries.items()} == {
        "MEMORY-top": "insights",
        "kind": "insights",
        "nested": "seed",
        "open": "insights",
        "plain": "insights",
    }
    assert entries["MEMORY-top"][1].text == "- [Missing](missing.md)"  # the lines linking to files are not kept
    assert entries["open"][1].text == ("open\n\n---\nname: open\ndescription: the block is never closed\ntype: user")
    assert entries["plain"][1].text == "plain\n\nJust a note without frontmatter."


@pytest.mark.parametrize(
    ("text", "fields", "body", "problems"),
    [
        pytest.param(
            "---\nname: a\nmetadata:\n  type: user\n  node_type: memory\n---\nbody",
            {"name": "a", "metadata": {"type": "user", "node_type": "memory"}},
            "body",
            [],
            id="metadata",
        ),
        pytest.param("---\ndescription: Use it: now\n---\n", {"description": "Use it: now"}, "", [], id="colon"),
        pytest.param(
            "---\nname: a\nname: b\n---\n", {"name": "b"}, "", [(3, "name appears twice; the last one was read")]
        ),
        pytest.param(
            "---\ntags:\n  - x\nname: a\n---\n",
            {"name": "a"},
            "",
            [(3, "expected an indented key: value line (one level of nesting, as metadata has); tags was not read")],
            id="list",
        ),
        pytest.param(
            "---\nSome prose\n---\nmore prose", {}, "---\nSome prose\n---\nmore prose", [], id="thematic-breaks"
        ),
        pytest.param(
            "---\nname: a\nno close",
            {},
            "---\nname: a\nno close",
            [(1, "the frontmatter is not closed; add a --- line after it; the whole file was read as text")],
            id="unclosed",
        ),
    ],
)
def test_lenient_frontmatter_reads_what_it_can_and_names_the_rest(
    text: str, fields: dict[str, object], body: str, problems: list[tuple[int, str]]
) -> None:
    front = frontmatter.split(text, lenient=True)
    assert (front.fields, front.body, list(front.problems)) == (fields, body, problems)
    assert frontmatter.split(text).problems != () or text.startswith("---\nname: a\nmetadata")


def test_a_frontmatter_value_continued_over_many_lines_imports_in_linear_time(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- [uv](uv.md)\n", "utf-8")
    history = "".join(f"    step {i} of the migration\n" for i in range(80_000))
    text = (
        "---\nname: uv\nmetadata:\n  description: Prefer uv over pip\n  type: feedback\n  history: begun\n"
        f"{history}---\n\nuv resolves in seconds.\n"
    )
    (folder / "uv.md").write_text(text, "utf-8")
    assert len(text) > 2_000_000
    started = time.monotonic()
    done = lh("memory", "import", str(folder), cwd=project)
    elapsed = time.monotonic() - started
    assert (done.returncode, done.stderr) == (
        0,
        f"warning: {folder}: frontmatter keys not imported: metadata.history (uv.md)\n",
    )
    assert elapsed < 10, elapsed
    assert stored(project)["uv"] == ("corrections", stored(project)["uv"][1])
    assert stored(project)["uv"][1].text == "Prefer uv over pip\n\nuv resolves in seconds."
