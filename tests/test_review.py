"""`lh memory review`: the pairs it finds on labelled notes, the other kinds, its JSON, no writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lean_harness.memory.intake.review import Item, pairs
from support import lh, snapshot


def kinds(*texts: str) -> list[tuple[str, int, int]]:
    found = pairs([Item("s", str(n), t, t) for n, t in enumerate(texts)])
    return [(f.kind, int(f.entries[0].id), int(f.entries[1].id)) for f in found]


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        pytest.param(
            "The main database runs Postgres 14 on the db-01 host.",
            "Since the migration the main database runs Postgres 16 on the db-01 host.",
            "contradiction",
            id="version",
        ),
        pytest.param(
            "Always squash merge pull requests into main.",
            "Never squash merge pull requests into main; keep the commits.",
            "contradiction",
            id="always-never",
        ),
        pytest.param(
            "Feature flags in staging default to enabled for the QA team.",
            "Feature flags in staging default to disabled for the QA team.",
            "contradiction",
            id="enabled-disabled",
        ),
        pytest.param(
            "Use the shared Redis instance for session storage.",
            "Session storage must not use the shared Redis instance.",
            "contradiction",
            id="negation",
        ),
        pytest.param(
            "Flaky upload test: the tmp dir is shared between test workers, so uploads collide.",
            "The upload test is flaky because test workers share one tmp dir and uploads collide.",
            "duplicate",
            id="reworded",
        ),
        pytest.param(
            "Redis evicted session keys under memory pressure on the shared instance.",
            "Deploys to production go out on Tuesdays after the release review.",
            None,
            id="unrelated",
        ),
        pytest.param(
            "The main database runs Postgres 16 on the db-01 host.",
            "Postgres connections go through PgBouncer in transaction mode.",
            None,
            id="one-word-in-common",
        ),
    ],
)
def test_a_labelled_pair_is_found_as_labelled(a: str, b: str, kind: str | None) -> None:
    assert kinds(a, b) == ([(kind, 0, 1)] if kind else [])


def test_a_word_common_in_the_memory_pairs_nothing() -> None:
    notes = [f"The deploy pipeline step {word} runs in its own container" for word in "abcdefghij"]
    assert kinds(*notes)[:1] == [("duplicate", 0, 1)]  # they do say the same
    unrelated = [f"pipeline container: {w} {x} {y}" for w, x, y in zip("abcdef", "ghijkl", "mnopqr", strict=True)]
    assert kinds(*unrelated) == []  # two words in common, both in every note


def test_review_names_every_kind_in_json_and_writes_nothing(project: Path) -> None:
    def put(shard: str, text: str, *more: str) -> str:
        done = lh("memory", "put", shard, text, *more, "--json", cwd=project)
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["id"])

    old = put("seed", "The main database runs Postgres 14 on the db-01 host.")
    new = put("insights", "Since the migration the main database runs Postgres 16 on the db-01 host.")
    (project / "app.py").write_text("print(1)\n")
    cited = put("quirks", "app.py prints one", "--ref", "app.py#L1")
    (project / "app.py").write_text("print(2)\n")
    assert lh("memory", "note", "rotate the logs weekly", cwd=project).returncode == 0
    before = snapshot(project)
    done = lh("memory", "review", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["version"], data["command"], data["problems"]) == (1, "memory review", [])
    found = [(f["kind"], [(e["shard"], e["id"]) for e in f["entries"]]) for f in data["findings"]]
    note = sorted(os.listdir(project / ".agents/memory/.pending"))[0]
    assert found == [
        ("contradiction", [("seed", old), ("insights", new)]),
        ("stale", [("quirks", cited)]),
        ("pending", [("", note)]),
    ]
    assert data["findings"][0]["why"] == "postgres: 14 against 16"
    assert data["findings"][0]["entries"][0]["title"] == "The main database runs Postgres 14 on the db-01 host."
    assert data["findings"][2]["why"] == "pending for less than a minute"
    assert snapshot(project) == before
    text = lh("memory", "review", cwd=project).stdout.splitlines()
    assert text[0] == (
        f"contradiction: seed/{old} The main database runs Postgres 14 on the db-01 host. | insights/{new}"
        " Since the migration the main database runs Postgres 16 on the db-01 host."
    )
    assert text[-1] == "3 findings"


def test_a_pending_note_saved_with_a_bom_and_crlf_reviews_as_a_plain_one(project: Path) -> None:
    done = lh("memory", "put", "seed", "The main database runs Postgres 14 on the db-01 host.", "--json", cwd=project)
    old = json.loads(done.stdout)["id"]
    said = "Since the migration the main database runs Postgres 16 on the db-01 host."
    assert lh("memory", "note", said, "--shard", "insights", cwd=project).returncode == 0
    [note] = (project / ".agents/memory/.pending").iterdir()
    plain = note.read_bytes()
    found = []
    for data in (plain, b"\xef\xbb\xbf" + plain.replace(b"\n", b"\r\n")):
        note.write_bytes(data)
        done = lh("memory", "review", "--json", cwd=project)
        assert done.returncode == 0, done.stderr
        found.append(json.loads(done.stdout)["findings"][0])
    assert found[0] == found[1]
    assert (found[1]["kind"], found[1]["why"]) == ("contradiction", "postgres: 14 against 16")
    assert [(e["shard"], e["id"], e["title"]) for e in found[1]["entries"]] == [
        ("seed", old, "The main database runs Postgres 14 on the db-01 host."),
        ("insights", note.name, said),
    ]
