"""`lh memory import|export`: each format, validation, idempotency, conflicts, credentials, round trip."""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import Entry, parse
from support import lh, snapshot

MEMORY = ".agents/memory"
FIXTURES = Path(__file__).parent / "fixtures" / "import"


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A copy of the format fixtures, outside the project."""
    target = tmp_path / "sources"
    shutil.copytree(FIXTURES, target)
    return target


def github_token(seed: int = 3) -> str:
    """A token in GitHub's classic format, made up at run time (never a real credential)."""
    rng = random.Random(seed)
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def stored(root: Path) -> dict[str, tuple[str, Entry]]:
    """Every entry in the memory by id, with its shard."""
    found: dict[str, tuple[str, Entry]] = {}
    for path in sorted((root / MEMORY).glob("*.md")):
        if path.name != "INDEX.md":
            found.update({e.id: (path.stem, e) for e in parse(path.read_text("utf-8")).entries})
    return found


def run_import(*args: str) -> int:
    return main(["memory", "import", *args])


@pytest.mark.parametrize(
    ("source", "fmt", "records"),
    [
        pytest.param("jsonl/entries.jsonl", "jsonl", 4, id="jsonl"),
        pytest.param("memory-md", "memory-md", 3, id="memory-md"),
        pytest.param("notes-tree", "notes-tree", 3, id="notes-tree"),
        pytest.param("layered", "layered-jsonl", 3, id="layered-jsonl"),
    ],
)
def test_each_format_is_detected_and_imported_without_touching_the_source(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str], source: str, fmt: str, records: int
) -> None:
    before = snapshot(sources)
    capsys.readouterr()
    assert run_import(str(sources / source), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["version"], data["command"], data["format"], data["records"]) == (1, "memory import", fmt, records)
    assert data["problems"] == []
    assert {o["action"] for o in data["outcomes"]} == {"added"}
    assert snapshot(sources) == before
    assert data["marker"].startswith(f"{MEMORY}/.imports/{fmt}-")
    marker = json.loads((project / data["marker"]).read_text("utf-8"))
    assert marker["source"] == f"(outside the project)/{Path(source).name}"
    assert sorted(marker["records"]) == sorted(o["id"] for o in data["outcomes"])


def test_memory_md_types_go_to_their_shards_with_the_description_first(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "memory-md")) == 0
    entries = stored(project)
    assert {key: shard for key, (shard, _) in entries.items()} == {
        "user_role": "conventions",
        "prefer-uv": "corrections",
        "dashboards": "seed",
    }
    assert entries["prefer-uv"][1].text == (
        "Use uv, not pip, for installs\n\nInstall with `uv pip install -e .`.\n\n"
        "**Why:** pip took minutes on the CI runners.\n**How to apply:** every install in this repository, local or CI."
    )
    assert entries["dashboards"][1].text == "Build times are graphed on the team's Grafana board"
    index = (project / MEMORY / "INDEX.md").read_text("utf-8")
    assert ".imports" not in index
    assert "(1 entry," in index


def test_map_sends_a_type_elsewhere_and_bad_maps_are_named(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(sources / "memory-md")
    capsys.readouterr()
    assert run_import(source, "--map", "feedback") == 2
    assert capsys.readouterr().err == "--map 'feedback': expected KIND=SHARD, for instance feedback=corrections\n"
    assert run_import(source, "--map", "opinion=seed") == 2
    assert capsys.readouterr().err == (
        "--map 'opinion=seed': memory-md has no 'opinion'; it has user, feedback, project, reference\n"
    )
    assert run_import(source, "--map", "feedback=nope") == 2
    assert capsys.readouterr().err.startswith("unknown shard 'nope'; shards in .agents/lh.toml: seed, failures")
    assert run_import(source, "--map", "feedback=quirks") == 0
    assert stored(project)["prefer-uv"][0] == "quirks"


def test_notes_tree_routes_by_frontmatter_topic_and_default(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "notes-tree")) == 0
    entries = stored(project)
    lock = entries["ci.windows-lock"]
    assert (lock[0], lock[1].tags, lock[1].title) == ("insights", ("ci",), "Lock file on Windows runners")
    flaky = entries["failures.flaky-network"]
    assert (flaky[0], flaky[1].tags, flaky[1].created) == ("failures", ("failures", "network"), "2026-03-01T12:00:00Z")
    (pending,) = [e for shard, e in entries.values() if shard == "quirks"]
    assert pending.text == "ruff format and black disagree on one-line docstrings."
    assert not any("index.md" in e.text or e.title == "Notes" for _, e in entries.values())


def test_layered_jsonl_takes_the_last_event_and_unions_tags_and_sources(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "layered")) == 0
    entries = stored(project)
    shard, cache = entries["k-cache"]
    assert shard == "insights"
    assert cache.text == (
        "The token cache is keyed by the SHA-256 of the text.\n\nSources: src/tokens.py, adr/0005-token-counts.md"
    )
    assert (cache.tags, cache.created) == (("cache", "tokens"), "2026-01-11T09:00:00Z")
    assert entries["p-release"][0] == "seed"
    assert entries["l-fsync"][0] == "corrections"


def test_an_id_that_changes_category_is_an_error(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert run_import("../sources/layered-moved") == 2
    assert capsys.readouterr().err == (
        "../sources/layered-moved/memory/plan.jsonl:1: id 'x-moves' is also in lesson"
        " (../sources/layered-moved/memory/lesson.jsonl:1); an id keeps one category: give one of them a new id\n"
        "1 problem in ../sources/layered-moved; nothing was imported. Fix the source and import again\n"
    )
    assert snapshot(project) == before


def test_broken_jsonl_records_are_all_listed_and_nothing_is_written(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert run_import("../sources/jsonl/broken.jsonl") == 2
    where = "../sources/jsonl/broken.jsonl"
    assert capsys.readouterr().err.splitlines() == [
        f"{where}:2: not valid JSON (Expecting ',' delimiter at column 44)",
        f"{where}:3: shard and text are required strings",
        f"{where}:4: unknown field 'tag'; fields are id, shard, text, tags, created, updated, allow_secret,"
        " allow_directive",
        f"{where}:5: shard 'nowhere' is not in memory.shards (seed, failures, corrections, insights, conventions,"
        " quirks); use one of them",
        f"{where}:6: id 'ok-one' is also at {where}:1 with other content; an id is unique in a source",
        f"{where}:7: tag 'two words' is not allowed; use letters, digits and . _ : / + - (at most 48 characters,"
        " starting with a letter or digit)",
        f"{where}:8: created 'yesterday' is not a time; expected a time with a zone, like 2026-01-31T09:00:00Z",
        f"7 problem(s) in {where}; nothing was imported. Fix the source and import again",
    ]
    assert snapshot(project) == before


def test_strict_frontmatter_problems_name_file_and_line(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/memory-md-broken", "--json") == 2
    data = json.loads(capsys.readouterr().out)
    where = "../sources/memory-md-broken"
    assert data["problems"] == [
        f"{where}/kind.md:1: type 'opinion' is not one of user, feedback, project, reference",
        f"{where}/nested.md:1: unknown frontmatter key 'meta'; memory files have name, description and type",
        f"{where}/nested.md:6: an indented line (a nested or continued value) is not supported; use key: value",
        f"{where}/open.md:1: the frontmatter opened here is not closed; add a --- line after it",
        f"{where}/plain.md:1: no frontmatter; a memory file starts with --- and name, description and type lines",
    ]


def test_importing_again_adds_nothing_and_a_changed_source_only_the_difference(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = sources / "jsonl" / "entries.jsonl"
    assert run_import(str(source)) == 0
    first = snapshot(project)
    assert len(stored(project)) == 3
    capsys.readouterr()
    assert run_import(str(source)) == 0
    marker = _marker(project)
    assert capsys.readouterr().out == (
        f"jsonl {source.as_posix()}: 4 record(s); 0 added, 3 already imported, 0 conflict(s), 0 refused;"
        f" recorded in {MEMORY}/.imports/{marker.name}\n"
    )
    assert snapshot(project) == first
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "new-one", "shard": "insights", "text": "added later"}) + "\n")
    assert run_import(str(source)) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"added insights/new-one ({source.as_posix()}:6)"
    assert len(stored(project)) == 4
    assert "new-one" in json.loads(marker.read_text("utf-8"))["records"]


def _marker(root: Path) -> Path:
    (marker,) = (root / MEMORY / ".imports").glob("jsonl-*.json")
    return marker


def test_an_entry_edited_or_deleted_after_import_is_not_brought_back(project: Path, sources: Path) -> None:
    source = str(sources / "jsonl" / "entries.jsonl")
    assert run_import(source) == 0
    path = project / MEMORY / "seed.md"
    path.write_text(path.read_text("utf-8").replace("Run everything with nox", "Run it all with nox"), "utf-8")
    failures = project / MEMORY / "failures.md"
    failures.write_text("# failures\n", encoding="utf-8")
    before = snapshot(project)
    assert run_import(source) == 0
    after = snapshot(project)
    assert {k: v for k, v in after.items() if not k.endswith("INDEX.md")} == {
        k: v for k, v in before.items() if not k.endswith("INDEX.md")
    }


def test_an_id_stored_with_other_content_is_a_conflict_left_alone(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "put", "seed", "Run the tests with pytest directly.", "--id", "nox-sessions"]) == 0
    assert main(["memory", "put", "quirks", "a note", "--id", "lock-binary"]) == 0
    seed_before = (project / MEMORY / "seed.md").read_bytes()
    capsys.readouterr()
    assert run_import("../sources/jsonl/entries.jsonl") == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "conflict: seed/nox-sessions (../sources/jsonl/entries.jsonl:1): the stored entry has other text; left alone",
        "conflict: failures/lock-binary (../sources/jsonl/entries.jsonl:3): the stored entry is in shard quirks;"
        " left alone",
    ]
    assert out.splitlines()[-1].startswith(
        "jsonl ../sources/jsonl/entries.jsonl: 4 record(s); 1 added, 0 already imported, 2 conflict(s), 0 refused;"
    )
    assert (project / MEMORY / "seed.md").read_bytes() == seed_before
    assert run_import("../sources/jsonl/entries.jsonl") == 1  # still reported: nothing was resolved


def test_a_record_with_a_credential_is_refused_and_the_rest_imported(project: Path, sources: Path) -> None:
    token = github_token()
    source = sources / "jsonl" / "entries.jsonl"
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"shard": "seed", "text": f"deploy with\ntoken {token}"}) + "\n")
    result = lh("memory", "import", str(source), cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        f"refused: {source.as_posix()}:6: line 2 looks like a GitHub personal access token (ghp_********,"
        " rule github-pat); not imported\n"
    )
    assert token[4:] not in result.stdout + result.stderr
    assert len(stored(project)) == 3
    for path in project.rglob("*"):
        assert not path.is_file() or token.encode() not in path.read_bytes()


def test_dry_run_says_what_would_happen_and_writes_nothing(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert run_import("../sources/memory-md", "--dry-run") == 0
    assert capsys.readouterr().out == (
        "would add corrections/prefer-uv (../sources/memory-md/feedback_uv.md)\n"
        "would add seed/dashboards (../sources/memory-md/reference_dashboards.md)\n"
        "would add conventions/user_role (../sources/memory-md/user_role.md)\n"
        "dry run: memory-md ../sources/memory-md: 3 record(s); 3 would add, 0 already imported, 0 conflict(s),"
        " 0 refused; nothing was written\n"
    )
    assert snapshot(project) == before


def test_an_unknown_shape_names_the_formats(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert run_import(str(tmp_path / "empty")) == 2
    assert capsys.readouterr().err == (
        f"{(tmp_path / 'empty').as_posix()}: cannot tell the format (it matches no known format);"
        " pass --format memory-md|notes-tree|layered-jsonl\n"
    )


def test_export_then_import_into_an_empty_memory_gives_the_same_entries(
    project: Path, sources: Path, tmp_path: Path
) -> None:
    for source in ("memory-md", "notes-tree", "layered", "jsonl/entries.jsonl"):
        assert run_import(str(sources / source)) == 0
    assert main(["memory", "put", "quirks", "with an allowance", "--tag", "x"]) == 0
    exported = lh("memory", "export", "--output", str(tmp_path / "all.jsonl"), cwd=project)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == f"exported 13 entries to {(tmp_path / 'all.jsonl').as_posix()}\n"
    other = tmp_path / "other"
    other.mkdir()
    assert lh("init", cwd=other).returncode == 0
    imported = lh("memory", "import", str(tmp_path / "all.jsonl"), cwd=other)
    assert imported.returncode == 0, imported.stderr

    def shape(root: Path) -> dict[str, tuple[str, str, tuple[str, ...], str]]:
        return {k: (s, e.created, e.tags, e.text) for k, (s, e) in stored(root).items()}

    assert shape(other) == shape(project)
    again = lh("memory", "export", cwd=other)
    assert again.stdout.encode() == (tmp_path / "all.jsonl").read_bytes()
