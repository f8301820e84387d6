"""lh memory verify: each reference that moved, changed or is gone, as text and JSON; exit 1 on stale entries."""

from __future__ import annotations

import json
from pathlib import Path

from support import git, lh
from test_evidence import NOTE, put, verify


def test_a_deleted_file_is_missing(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    git(repo_with_app, "rm", "-q", "src/app.py")
    git(repo_with_app, "commit", "-qm", "drop app")
    assert verify(repo_with_app) == (
        1,
        f"insights/{key}: src/app.py#L5 (line 5) missing (the file is gone)\n"
        "1 reference in 1 entry: 0 fresh, 0 moved, 0 changed, 1 missing\n"
        '1 stale entry: read the cited code, then update each note (lh memory put SHARD "text" --id KEY'
        " --ref PATH#Lstart-end) or delete it\n",
    )
    done = lh("memory", "verify", "--json", cwd=repo_with_app)
    data = json.loads(done.stdout)
    assert done.returncode == 1
    assert (data["stale"], data["counts"]) == (
        [f"insights/{key}"],
        {"fresh": 0, "moved": 0, "changed": 0, "missing": 1},
    )
