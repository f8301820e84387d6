"""Credentials at every boundary: refused on write, masked on read, found by `lh memory scan`."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import github_token, lh, snapshot

MEMORY = ".agents/memory"


def aws_key_id(seed: int = 2) -> str:
    rng = random.Random(seed)
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def hand_write(root: Path, shard: str, entry_id: str, text: str) -> None:
    path = root / MEMORY / f"{shard}.md"
    block = f'\n<!-- lh:entry id="{entry_id}" created="2026-01-02T03:04:05Z" -->\n{text}\n<!-- /lh:entry -->\n'
    path.write_text(path.read_text("utf-8") + block, encoding="utf-8")


def test_a_put_with_a_credential_is_refused_and_nothing_changes(project: Path) -> None:
    secret = aws_key_id()
    before = snapshot(project)
    result = lh("memory", "put", "seed", f"deploy with\nkey {secret} from the vault", cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        "refused: shard seed: line 2 looks like an AWS access key ID (AKIA********, rule aws-access-key-id);"
        " nothing was written. If it is not a secret, pass --allow-secret aws-access-key-id\n"
    )
    assert secret[4:] not in result.stdout + result.stderr
    assert snapshot(project) == before
    cache = project / ".agents/.cache"
    assert all(secret.encode() not in p.read_bytes() for p in cache.rglob("*") if p.is_file())


def test_allow_secret_stores_the_entry_and_records_the_rule(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = aws_key_id()
    assert (
        main(["memory", "put", "seed", f"documented test fixture id {secret}", "--allow-secret", "aws-access-key-id"])
        == 0
    )
    text = (project / MEMORY / "seed.md").read_text("utf-8")
    assert 'allow-secret="aws-access-key-id"' in text
    capsys.readouterr()
    assert main(["memory", "scan"]) == 0
    assert capsys.readouterr().out == "no credentials found\n"


def test_get_masks_a_credential_pasted_by_hand_and_warns(project: Path) -> None:
    token = github_token()
    hand_write(project, "quirks", "pasted", f"CI token is {token} for now")
    result = lh("memory", "get", "quirks", cwd=project)
    assert result.returncode == 0
    assert "CI token is ghp_********" in result.stdout
    assert token[4:] not in result.stdout + result.stderr
    assert result.stderr.startswith("warning: .agents/memory/quirks.md:")
    assert 'run "lh memory scan"' in result.stderr


def test_query_results_are_masked(project: Path) -> None:
    token = github_token(3)
    hand_write(project, "quirks", "pasted", f"release token {token} rotates monthly")
    result = lh("memory", "get", "--query", "release token rotates", "--json", cwd=project)
    data = json.loads(result.stdout)
    assert data["results"][0]["text"] == "release token ghp_******** rotates monthly"
    assert token[4:] not in result.stdout + result.stderr


def test_index_titles_are_masked(project: Path) -> None:
    token = github_token(4)
    hand_write(project, "quirks", "pasted", f"{token} is the bot token")
    assert main(["memory", "index"]) == 0
    index = (project / MEMORY / "INDEX.md").read_text("utf-8")
    assert "- 2026-01-02 quirks: ghp_******** is the bot token" in index
    assert token[4:] not in index


def test_scan_finds_credentials_in_memory_and_in_given_files(project: Path, tmp_path: Path) -> None:
    token = github_token(5)
    hand_write(project, "failures", "leak", f"auth failed with {token}")
    result = lh("memory", "scan", cwd=project)
    assert result.returncode == 1
    assert result.stdout == (
        ".agents/memory/failures.md:6:18: a GitHub personal access token (entry leak): ghp_******** [rule github-pat]\n"
    )
    assert token[4:] not in result.stdout + result.stderr
    other = tmp_path / "notes.txt"
    other.write_text(f"key={aws_key_id(9)}\n", encoding="utf-8")
    data = json.loads(lh("memory", "scan", str(other), "--json", cwd=project).stdout)
    assert [f["rule"] for f in data["findings"]] == ["aws-access-key-id"]
    clean = tmp_path / "clean.md"
    clean.write_text("nothing to see: ${GITHUB_TOKEN}, password: <redacted>\n", encoding="utf-8")
    assert lh("memory", "scan", str(clean), cwd=project).returncode == 0
