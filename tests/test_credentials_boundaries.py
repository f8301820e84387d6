"""Credentials outside entry text: error messages, the config, caches and entry headers."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support import github_token, lh

REPO = Path(__file__).resolve().parents[1]

MEMORY = ".agents/memory"


def all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            ("memory", "get", "{token}"),
            "shard 'ghp_********' is not a shard name",
            id="unknown-shard",
        ),
        pytest.param(
            ("memory", "get", "--limit", "{token}"),
            "lh memory get: error: argument --limit: 'ghp_********' is not a whole number of 1 or more",
            id="argparse-type",
        ),
        pytest.param(
            ("{token}",),
            "lh: error: argument COMMAND: invalid choice: 'ghp_********'",
            id="argparse-choice",
        ),
    ],
)
def test_error_messages_mask_a_credential_they_quote(project: Path, args: tuple[str, ...], expected: str) -> None:
    token = github_token(11)
    result = lh(*(a.format(token=token) for a in args), cwd=project)
    assert result.returncode == 2
    assert expected in result.stderr
    assert token[4:] not in result.stdout + result.stderr


def test_short_safe_values_stay_quoted(project: Path) -> None:
    result = lh("memory", "get", "nosuchshard", cwd=project)
    assert result.returncode == 2
    assert "'nosuchshard'" in result.stderr


def test_json_problems_mask_a_credential_they_quote(project: Path, tmp_path: Path) -> None:
    token = github_token(12)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"shard": "quirks", "text": "x", token: 1}) + "\n", encoding="utf-8")
    result = lh("memory", "import", "--format", "jsonl", str(source), "--json", cwd=project)
    assert token[4:] not in result.stdout + result.stderr
    problems = json.loads(result.stdout)["problems"]
    assert len(problems) == 1
    assert "unknown field 'ghp_********'" in problems[0]


def test_scan_and_doctor_cover_the_config_file(project: Path) -> None:
    token = github_token(13)
    config = project / ".agents/lh.toml"
    config.write_text(config.read_text("utf-8") + f"\n# deploy token {token}\n", encoding="utf-8")
    scanned = lh("memory", "scan", cwd=project)
    assert scanned.returncode == 1
    assert scanned.stdout.startswith(".agents/lh.toml:")
    assert "a GitHub personal access token: ghp_******** [rule github-pat]" in scanned.stdout
    doctor = lh("doctor", "--json", cwd=project)
    assert token[4:] not in scanned.stdout + scanned.stderr + doctor.stdout + doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]} if "checks" in doctor.stdout else {}
    assert any(".agents/lh.toml" in json.dumps(c) and "github-pat" in json.dumps(c) for c in checks.values())


@pytest.mark.parametrize("where", ["text", "tag", "id", "cited path"])
def test_caches_never_hold_a_credential_written_by_hand(project: Path, where: str) -> None:
    token = github_token(14)
    path = project / MEMORY / "quirks.md"
    (project / "docs").mkdir()
    (project / "docs" / f"{token}.md").write_text("notes\n", encoding="utf-8")
    key, tag, text, refs = {
        "text": ("pasted", "bot", token, ""),
        "tag": ("pasted", token.lower(), "x", ""),
        "id": (token, "bot", "x", ""),
        "cited path": ("pasted", "bot", "x", f' refs="docs/{token}.md#L1-1@{"0" * 16}"'),
    }[where]
    head = f'<!-- lh:entry id="{key}" created="2026-01-02T03:04:05Z" tags="{tag}"{refs} -->'
    path.write_text(f"{path.read_text('utf-8')}\n{head}\nbot uses {text} daily\n<!-- /lh:entry -->\n", "utf-8")
    assert lh("memory", "index", cwd=project).returncode == 0
    found = lh("memory", "get", "--query", "bot uses daily", "--json", cwd=project)
    results = json.loads(found.stdout)["results"] if found.returncode == 0 else []
    # the search index leaves out an entry whose id or tags hold one; a masked text is still found
    assert [r["id"] for r in results] == ([] if where in ("tag", "id") else ["pasted"])
    assert lh("memory", "status", cwd=project).returncode == 0
    for hook, event in (
        ("session-start", {}),
        ("prompt-submit", {"prompt": "why does the bot run daily, what uses it?"}),
    ):
        subprocess.run(
            ["sh", str(REPO / "hooks" / "lh-hook"), hook],
            input=json.dumps({"cwd": str(project), "session_id": "s1", **event}),
            env={**os.environ, "CLAUDE_PLUGIN_ROOT": str(REPO)},
            cwd=project,
            capture_output=True,
            text=True,
            check=True,
        )
    assert lh("memory", "get", "quirks", cwd=project).returncode == 0
    assert lh("memory", "verify", cwd=project).returncode in (0, 1)
    cache = all_bytes(project / ".agents/.cache") + (project / ".agents/events.ndjson").read_bytes()
    assert cache
    assert token.encode() not in cache
    assert token[4:].lower().encode() not in cache
    assert token[4:20].encode() not in cache
    scanned = lh("memory", "scan", cwd=project)
    assert scanned.returncode == 1
    assert [line.split(":")[0] for line in scanned.stdout.splitlines()] == [".agents/memory/quirks.md"]


def test_scan_reports_a_credential_in_an_entry_header_without_printing_it(project: Path) -> None:
    token = github_token(15)
    path = project / MEMORY / "quirks.md"
    block = f'\n<!-- lh:entry id="{token}" created="2026-01-02T03:04:05Z" tags="x" -->\nplain\n<!-- /lh:entry -->\n'
    path.write_text(path.read_text("utf-8") + block, encoding="utf-8")
    scanned = lh("memory", "scan", cwd=project)
    assert scanned.returncode == 1
    assert "(entry ghp_********): ghp_******** [rule github-pat]" in scanned.stdout
    assert token[4:] not in scanned.stdout + scanned.stderr
