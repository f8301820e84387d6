"""The pointer block in AGENTS.md and CLAUDE.md: added once, refreshed in place, symlinks refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness import pointer
from lean_harness.errors import LhError


def test_a_project_without_either_file_gets_a_new_agents_md(tmp_path: Path) -> None:
    assert pointer.write(tmp_path) == [pointer.PointerResult("AGENTS.md", "created")]
    assert (tmp_path / "AGENTS.md").read_text("utf-8") == pointer.block()
    assert not (tmp_path / "CLAUDE.md").exists()


def test_the_block_is_appended_after_the_users_text_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Our rules\n\nUse tabs.\n", encoding="utf-8")
    assert pointer.write(tmp_path) == [pointer.PointerResult("CLAUDE.md", "updated")]
    first = (tmp_path / "CLAUDE.md").read_bytes()
    assert first.decode() == "# Our rules\n\nUse tabs.\n\n" + pointer.block()
    assert pointer.write(tmp_path) == [pointer.PointerResult("CLAUDE.md", "unchanged")]
    assert (tmp_path / "CLAUDE.md").read_bytes() == first


def test_both_files_get_the_block_when_both_exist(tmp_path: Path) -> None:
    for name in ("AGENTS.md", "CLAUDE.md"):
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    assert [r.path for r in pointer.write(tmp_path)] == ["AGENTS.md", "CLAUDE.md"]


def test_an_old_block_is_replaced_in_place_and_the_lines_around_it_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text(f"before\n{pointer.START}\nold words\n{pointer.END}\nafter\n", encoding="utf-8")
    assert pointer.write(tmp_path, "notes/memory") == [pointer.PointerResult("AGENTS.md", "updated")]
    assert path.read_text("utf-8") == "before\n" + pointer.block("notes/memory") + "after\n"


def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"# Rules\r\n")
    pointer.write(tmp_path)
    data = path.read_bytes()
    assert data == b"# Rules\r\n\r\n" + pointer.block().replace("\n", "\r\n").encode()
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_a_symlinked_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    with pytest.raises(LhError) as caught:
        pointer.write(tmp_path)
    assert caught.value.message == (
        "CLAUDE.md is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself"
    )
    assert (tmp_path / "AGENTS.md").read_text("utf-8") == "# Rules\n"
