"""lh memory stats: how often each entry reached the agent, per shard."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import lh


def put(root: Path, shard: str, text: str) -> str:
    done = lh("memory", "put", shard, text, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    key: str = json.loads(done.stdout)["id"]
    return key


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project


def test_the_text_view_draws_a_bar_per_shard(repo: Path) -> None:
    put(repo, "failures", "test_lock hangs on Windows: open the lock file in binary mode")
    put(repo, "quirks", "git stash drops untracked files unless given -u")
    assert lh("memory", "get", "failures", cwd=repo).returncode == 0
    out = lh("memory", "stats", cwd=repo).stdout.splitlines()
    assert out[0] == "shard     used           entries  unused tokens"
    assert out[1].startswith("failures  [##########]    1/1     0")
    assert out[2].startswith("quirks    [..........]    0/1     ")
