"""memory/leaks.py: credentials in files, folders walked, and text masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.errors import LhError
from lean_harness.memory.leaks import mask_text, scan_paths
from lean_harness.memory.scans import Found
from support import github_token

PAT = ("github-pat", "a GitHub personal access token", "ghp_********")


def test_a_folder_is_walked_and_each_finding_placed_and_a_file_that_is_not_text_named(tmp_path: Path) -> None:
    token = github_token()
    folder = tmp_path / "notes"
    (folder / "deep").mkdir(parents=True)
    (folder / "a.md").write_text(
        '# a\n\n<!-- lh:entry id="k1" created="2026-01-01T00:00:00Z" -->\n'
        f'ci uses {token}\n<!-- /lh:entry id="k1" -->\n',
        encoding="utf-8",
    )
    (folder / "deep" / "b.txt").write_text(f"x\n{token}\n", encoding="utf-8")
    (folder / "c.bin").write_bytes(b"\xff\xfe")
    (folder / "clean.md").write_text("nothing here\n", encoding="utf-8")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "d.txt").write_text(token, encoding="utf-8")  # caches are walked only when asked
    found, skipped = scan_paths([folder], tmp_path)
    assert found == [Found("notes/a.md", 4, 9, *PAT, "k1"), Found("notes/deep/b.txt", 2, 1, *PAT)]
    assert skipped == ["notes/c.bin: not UTF-8 text; skipped"]
    found, _ = scan_paths([folder / "clean.md"], tmp_path, derived=[folder / ".cache"])
    assert found == [Found("notes/.cache/d.txt", 1, 1, *PAT)]


def test_a_path_that_is_not_there_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(LhError) as raised:
        scan_paths([tmp_path / "gone"], tmp_path)
    assert raised.value.message == f"{tmp_path / 'gone'}: no such file or folder"


def test_text_is_masked_but_for_the_rules_it_allows() -> None:
    token = github_token()
    masked, findings = mask_text(f"use {token} now")
    assert (masked, [f.rule for f in findings]) == ("use ghp_******** now", ["github-pat"])
    assert mask_text(f"use {token} now", ["github-pat"]) == (f"use {token} now", [])
