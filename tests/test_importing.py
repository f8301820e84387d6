"""`lh memory import|export`: each format, validation, idempotency, conflicts, credentials, round trip."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import string
import subprocess
import time
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.intake.formats import frontmatter
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
    for path in sorted([*(root / MEMORY).glob("*.md"), *(root / f"{MEMORY}.local").glob("*.md")]):
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
        "user_role": "personal",
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
        "--map 'opinion=seed': memory-md has no 'opinion'; it has"
        " user, feedback, project, reference, decision, convention, context, technical, handoff,"
        " investigation, proposal, specification, architecture\n"
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


def test_an_id_that_changes_category_is_refused_whole_naming_both_places(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/layered-moved") == 1
    assert capsys.readouterr().err == (
        "not imported: ../sources/layered-moved/memory/plan.jsonl:1: id 'x-moves' is also in lesson"
        " (../sources/layered-moved/memory/lesson.jsonl:1); an id keeps one category: give one of them a new id\n"
    )
    assert "x-moves" not in stored(project)


def test_broken_jsonl_records_are_each_reported_and_the_good_ones_imported(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/jsonl/broken.jsonl") == 1
    where = "../sources/jsonl/broken.jsonl"
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"not imported: {where}:2: not valid JSON (Expecting ',' delimiter at column 44)",
        f"not imported: {where}:3: shard and text are required strings",
        f"not imported: {where}:4: unknown field 'tag'; fields are id, shard, text, tags, created, updated,"
        " allow_secret, allow_directive, refs",
        f"not imported: {where}:5: shard 'nowhere' is not in memory.shards (seed, failures, corrections, insights,"
        " conventions, quirks, personal); use one of them",
        f"not imported: {where}:6: id 'ok-one' is also at {where}:1 with other content; an id is unique in a source",
        f"not imported: {where}:7: tag 'two words' is not allowed; use letters, digits and . _ : / + - (at most 48"
        " characters, starting with a letter or digit)",
        f"not imported: {where}:8: created 'yesterday' is not a time; expected a time with a zone, like"
        " 2026-01-31T09:00:00Z",
    ]
    assert out == (
        f"added seed/ok-one ({where}:1)\n"
        f"jsonl {where}: 4 record(s); 1 added, 0 already imported, 0 conflict(s), 0 refused,"
        f" 7 problem(s) (fix them and import again); recorded in {MEMORY}/.imports/{_marker(project).name}\n"
    )
    assert sorted(stored(project)) == ["ok-one"]


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
        "would add personal/user_role (../sources/memory-md/user_role.md)\n"
        "dry run: memory-md ../sources/memory-md: 3 record(s); 3 would add, 0 already imported, 0 conflict(s),"
        " 0 refused; nothing was written\n"
    )
    assert snapshot(project) == before


def test_an_unknown_shape_names_the_formats(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert run_import(str(tmp_path / "empty")) == 2
    assert capsys.readouterr().err == (
        f"{(tmp_path / 'empty').as_posix()}: cannot tell the format (no Markdown or jsonl in it);"
        " pass --format jsonl|memory-md|notes-tree|layered-jsonl\n"
    )


def test_export_then_import_into_an_empty_memory_gives_the_same_entries(
    project: Path, sources: Path, tmp_path: Path
) -> None:
    for source in ("memory-md", "notes-tree", "layered", "jsonl/entries.jsonl"):
        assert run_import(str(sources / source)) == 0
    assert main(["memory", "put", "quirks", "with an allowance", "--tag", "x"]) == 0
    exported = lh("memory", "export", "--personal", "--output", str(tmp_path / "all.jsonl"), cwd=project)
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
    again = lh("memory", "export", "--personal", cwd=other)
    assert again.stdout.encode() == (tmp_path / "all.jsonl").read_bytes()


# Memory folders in the shapes agents and people write (tests/fixtures/import/claude): the ids and
# shards each import gives. Ids with a hash are names that keep no ASCII, or two files whose names
# give one id; the hash is of the name, or of the file's path in the folder.
CLAUDE_FOLDERS = {
    "typed": {
        "user_role": "personal",
        "Integration-tests-hit-a-real-database": "corrections",
        "Merge-freeze": "seed",
        "Pipeline-bugs-tracker": "seed",
    },
    "metadata": {
        "Lockfile-policy": "corrections",
        "Flaky-websocket-test": "seed",
        "Staging-credentials-location": "seed",
    },
    "extra-keys": {"release-checklist": "seed", "logging-format": "personal"},
    "plain-topics": {"MEMORY-Build": "insights", "debugging": "insights", "api-conventions": "insights"},
    "subfolders": {
        "MEMORY-Memory": "insights",
        "queue-choice": "seed",
        "decisions.monorepo": "insights",
        "commit-messages": "corrections",
        "error-handling": "corrections",
    },
    "memory-only": {"MEMORY-Environment": "insights", "MEMORY-Gotchas": "insights", "MEMORY-Preferences": "insights"},
    "non-latin": {"0e776c7fc5d0": "seed", "b759f8390db5": "corrections", "5cabfb19c54e": "personal"},
    "quoting": {"deploy": "seed", "style": "corrections", "ports": "seed"},
    "stray-files": {"caching": "seed", "README": "insights"},
    "collisions": {
        "Prefer-uv": "corrections",
        "prefer-uv": "corrections",
        "conventions-879275bae6a0": "seed",
        "conventions-1cfd6a78a189": "seed",
    },
    "lists-and-anchors": {"browser-matrix": "seed", "retry-policy": "corrections"},
    "windows": {"line-endings": "seed", "paths": "insights"},
}


def paragraphs(path: Path) -> list[str]:
    """The paragraphs of a memory file's body (after a closed frontmatter), without index link lines."""
    text = path.read_bytes().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0] == "---" and "---" in lines[1:]:
        lines = lines[lines.index("---", 1) + 1 :]
    if path.name == "MEMORY.md":
        lines = [line for line in lines if not (line.startswith("- [") and ".md)" in line)]
    return [p.strip("\n") for p in "\n".join(lines).split("\n\n") if p.strip() and not p.strip().startswith("#")]


@pytest.mark.parametrize("folder", sorted(CLAUDE_FOLDERS))
def test_memory_folders_as_written_import_every_file(project: Path, sources: Path, folder: str) -> None:
    assert run_import(str(sources / "claude" / folder)) == 0
    entries = stored(project)
    assert {key: shard for key, (shard, _) in entries.items()} == CLAUDE_FOLDERS[folder]
    everything = "\n".join(entry.text for _, entry in entries.values())
    for path in sorted((sources / "claude" / folder).rglob("*.md")):
        for paragraph in paragraphs(path):
            assert paragraph in everything, (path.name, paragraph)


def test_imported_memory_is_found_by_words_of_its_file(project: Path, sources: Path) -> None:
    for folder in ("metadata", "subfolders", "non-latin", "memory-only"):
        assert run_import(str(sources / "claude" / folder)) == 0
    for query, key in [
        ("pnpm lockfile integrity", "Lockfile-policy"),
        ("Redis Streams job queue", "queue-choice"),
        ("Форматирование ruff", "5cabfb19c54e"),
        ("alembic enum migrations", "MEMORY-Gotchas"),
    ]:
        found = lh("memory", "get", "--query", query, "--json", cwd=project)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["results"][0]["id"] == key, query


def test_quoted_folded_and_colon_values_are_read_as_written(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "claude" / "quoting")) == 0
    entries = stored(project)
    assert entries["deploy"][1].text == (
        "Deploy: run make release from a clean checkout, then watch the rollout dashboard\n\n"
        "The release target refuses a dirty tree."
    )
    assert entries["style"][1].text == (
        "Prefer small functions with early returns; nested conditionals beyond two levels get refactored.\n\n"
        "Reviewers block on deep nesting."
    )
    assert entries["ports"][1].text == 'Local ports: API on 8080, worker metrics on 9102, "admin" UI on 3001'


def test_keys_and_values_lh_does_not_read_are_named_in_warnings(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/claude/lists-and-anchors") == 0
    where = "../sources/claude/lists-and-anchors"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {where}/browsers.md:6: expected an indented key: value line (one level of nesting, as metadata"
        " has); browsers was not read",
        f"warning: {where}/browsers.md:8: a value starting with '&' (a YAML indicator lh does not read);"
        " defaults was not read",
        f"warning: {where}/retries.md:7: a second level of nesting is not read; metadata.related was not read",
        f"warning: {where}: frontmatter keys not imported: metadata.originSessionId (retries.md)",
    ]


def test_each_bad_file_is_named_and_every_good_one_imported_then_a_fix_adds_only_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# Memory\n- [Good](good.md)\n- [Outside](../../etc/hosts)\n", "utf-8")
    (folder / "good.md").write_text("---\nname: good\ndescription: Builds run on Python 3.12\ntype: project\n---\n")
    (folder / "latin1.md").write_bytes("---\nname: latin\ndescription: café\n---\n".encode("latin-1"))
    (folder / "conflict.md").write_text("Deploys go through\n<<<<<<< HEAD\nthe old script\n", "utf-8")
    (folder / "secret.md").write_text(f"The deploy token is {github_token()}\n", "utf-8")
    (folder / "named.md").write_text(f"---\nname: {github_token(5)}\ndescription: a token as a name\n---\n")
    (tmp_path / "private.md").write_text("not part of the folder\n", "utf-8")
    (folder / "linked.md").symlink_to(tmp_path / "private.md")
    capsys.readouterr()
    assert run_import(str(folder)) == 1
    shown = folder.as_posix()
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"warning: {shown}/MEMORY.md: links out of the folder, not followed: ../../etc/hosts (line 3)",
        f"warning: {shown}: not Markdown memory files, not imported: linked.md (a link out of the folder)",
        f"refused: {shown}/named.md: the id looks like a GitHub personal access token (ghp_********, rule"
        " github-pat); not imported",
        f"refused: {shown}/secret.md: line 3 looks like a GitHub personal access token (ghp_********, rule"
        " github-pat); not imported",
        f"not imported: {shown}/conflict.md: line 4 starts like a git conflict marker; indent it or put it in a"
        " code span",
        f"not imported: {shown}/latin1.md:3: not valid UTF-8 (byte 32); re-save it as UTF-8",
    ]
    assert out.splitlines()[:2] == [
        f"added insights/MEMORY-Memory ({shown}/MEMORY.md:1)",  # the line linking out is MEMORY.md's own text
        f"added seed/good ({shown}/good.md)",
    ]
    assert sorted(stored(project)) == ["MEMORY-Memory", "good"]
    for path in project.rglob("*"):
        assert not path.is_file() or github_token(5).encode() not in path.read_bytes()
    assert github_token(5)[4:] not in out + err
    (folder / "conflict.md").write_text("Deploys go through the old script\n", "utf-8")
    (folder / "latin1.md").write_text("---\nname: latin\ndescription: café\n---\n", "utf-8")
    (folder / "secret.md").unlink()
    (folder / "named.md").unlink()
    (folder / "linked.md").unlink()
    assert run_import(str(folder)) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"added insights/conflict ({shown}/conflict.md)",
        f"added insights/latin ({shown}/latin1.md)",
    ]
    assert sorted(stored(project)) == ["MEMORY-Memory", "conflict", "good", "latin"]


def test_layered_events_with_categories_references_and_unknown_fields(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/layered-rich") == 1
    where = "../sources/layered-rich/memory"
    fields = "fields are id, text, category, tags, refs, source_refs, created"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {where}/knowledge.jsonl: field 'confidence' is not imported (line(s) 1, 2); {fields}",
        f"warning: {where}/knowledge.jsonl: field 'session' is not imported (line(s) 2); {fields}",
        f"not imported: {where}/lesson.jsonl:2: category 'plan' differs from its file's (lesson); an id keeps one"
        " category: move the event to its category's file or give it a new id",
        f"not imported: {where}/path.jsonl:1: tags must be a list of strings",
        f"not imported: {where}/plan.jsonl:2: id 'k-pool' is also in knowledge ({where}/knowledge.jsonl:3);"
        " an id keeps one category: give one of them a new id",
    ]
    entries = stored(project)
    assert {key: shard for key, (shard, _) in entries.items()} == {
        "k-retry": "insights",
        "l-fixtures": "corrections",
        "x-path-ok": "conventions",
        "p-release": "seed",
    }
    retry = entries["k-retry"][1]
    assert retry.text == (
        "The HTTP client retries idempotent requests three times with backoff.\n\n"
        "Sources: src/http/client.py, docs/http.md"
    )
    assert (retry.tags, retry.created) == (("http", "retry"), "2026-02-01T10:00:00Z")
    assert entries["p-release"][1].created == "2026-03-01T07:00:00Z"


def test_an_unreadable_event_holds_back_the_ids_of_its_file(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "layered" / "memory"
    folder.mkdir(parents=True)
    (folder / "knowledge.jsonl").write_text(
        '{"id": "k-one", "text": "first text"}\n{"id": "k-one", "text": "second text"\n', "utf-8"
    )
    (folder / "lesson.jsonl").write_text('{"id": "l-one", "text": "a lesson"}\n', "utf-8")
    capsys.readouterr()
    assert run_import(str(tmp_path / "layered")) == 1
    shown = folder.as_posix()
    assert capsys.readouterr().err.splitlines() == [
        f"not imported: {shown}/knowledge.jsonl: 1 id(s) held back until the lines above are fixed: a later event"
        " may change them",
        f"not imported: {shown}/knowledge.jsonl:2: not valid JSON (Expecting ',' delimiter at column 38)",
    ]
    assert sorted(stored(project)) == ["l-one"]


def claude_project_name(path: Path) -> str:
    """Claude Code's folder name for a project path: each character but ASCII letters and digits is '-'."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in str(path))


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_from_claude_code_finds_this_projects_auto_memory(project: Path, sources: Path) -> None:
    git("init", "-q", cwd=project)
    folder = Path.home() / ".claude" / "projects" / claude_project_name(project.resolve()) / "memory"
    shutil.copytree(sources / "claude" / "typed", folder)
    result = lh("memory", "import", "--from", "claude-code", cwd=project)
    assert result.returncode == 0, result.stderr
    shown = f"~/.claude/projects/{claude_project_name(project.resolve())}/memory"
    assert result.stdout.splitlines()[0] == (
        f"added corrections/Integration-tests-hit-a-real-database ({shown}/feedback_real_db.md)"
    )
    assert sorted(stored(project)) == sorted(CLAUDE_FOLDERS["typed"])
    marker = json.loads(next((project / MEMORY / ".imports").glob("memory-md-*.json")).read_text("utf-8"))
    assert marker["source"] == "(outside the project)/memory"


def test_from_claude_code_in_a_worktree_reads_the_main_checkouts_memory(project: Path, sources: Path) -> None:
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-qm", "init", cwd=project)
    worktree = project.parent / "feature.tree"
    git("worktree", "add", "-q", str(worktree), cwd=project)
    folder = Path.home() / ".claude" / "projects" / claude_project_name(project.resolve()) / "memory"
    shutil.copytree(sources / "claude" / "metadata", folder)
    result = lh("memory", "import", "--from", "claude-code", "--dry-run", cwd=worktree)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("dry run: memory-md ~/.claude/projects/")
    assert "3 would add" in result.stdout.splitlines()[-1]


def test_from_claude_code_honours_the_config_dir_and_names_where_it_looked(
    project: Path, sources: Path, tmp_path: Path
) -> None:
    config = tmp_path / "claude-config"
    name = claude_project_name(project.resolve())
    missing = lh("memory", "import", "--from", "claude-code", cwd=project, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert missing.returncode == 2
    assert missing.stderr == (
        f"no Claude Code memory for this project at {config / 'projects' / name / 'memory'};"
        " pass the folder itself as SOURCE if it is elsewhere\n"
    )
    shutil.copytree(sources / "claude" / "memory-only", config / "projects" / name / "memory")
    found = lh("memory", "import", "--from", "claude-code", cwd=project, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert found.returncode == 0, found.stderr
    assert sorted(stored(project)) == sorted(CLAUDE_FOLDERS["memory-only"])
    both = lh("memory", "import", "x", "--from", "claude-code", cwd=project)
    assert (both.returncode, both.stderr) == (2, "give a SOURCE to import or --from claude-code, not both or neither\n")


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


def test_a_notes_tree_note_keeps_its_own_keys_strict_and_names_others(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "repo" / ".agents" / "notes" / "ci"
    notes.mkdir(parents=True)
    (notes / "index.md").write_text("# CI\n", "utf-8")
    (notes / "cache.md").write_text("---\nauthor: dana\nreviewed:\n- yes\n---\nThe cache key includes the lockfile.\n")
    (notes / "flow.md").write_text("---\ntags: [ci, cache]\n---\nA flow list of tags.\n", "utf-8")
    (notes / "rule.md").write_text("---\nNot frontmatter but prose\n---\nbetween two rules.\n", "utf-8")
    capsys.readouterr()
    assert run_import(str(tmp_path / "repo")) == 1
    where = f"{(tmp_path / 'repo').as_posix()}/.agents/notes/ci"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {where}/cache.md:4: a list is not read; reviewed was not read",
        f"warning: {where}/cache.md: frontmatter keys not imported (notes may have id, shard, tags, created): author",
        f"not imported: {where}/flow.md:2: a value starting with '[' (a YAML indicator lh does not read); tags was"
        " not read",
    ]
    entries = stored(project)
    assert sorted(entries) == ["ci.cache", "ci.rule"]
    assert entries["ci.cache"][1].text == "The cache key includes the lockfile."
    assert entries["ci.rule"][1].text == "---\nNot frontmatter but prose\n---\nbetween two rules."


def test_a_memory_files_times_date_its_entry(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dated"
    folder.mkdir()
    (folder / "a.md").write_text("---\nname: a\ndescription: dated\ncreated: 2026-02-14\nupdated: 2026-04-01\n---\n")
    (folder / "b.md").write_text(
        "---\nname: b\ndescription: modified only\nmetadata:\n  modified: 2026-09-03T00:00:00.000Z\n---\n"
    )
    (folder / "c.md").write_text("---\nname: c\ndescription: a date in words\ndate: last week\n---\n")
    capsys.readouterr()
    assert run_import(str(folder), "--format", "memory-md") == 0
    assert capsys.readouterr().err == f"warning: {folder.as_posix()}: frontmatter keys not imported: date (c.md)\n"
    entries = stored(project)
    assert (entries["a"][1].created, entries["a"][1].attr("updated")) == (
        "2026-02-14T00:00:00Z",
        "2026-04-01T00:00:00Z",
    )
    assert (entries["b"][1].created, entries["b"][1].attr("updated")) == ("2026-09-03T00:00:00Z", None)


def test_memory_md_sections_follow_the_same_markdown_rules_as_shard_prose(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(
        "  # Builds\nBuilds run on Python 3.12.\n~~~\n```\n# not a heading inside the fence\n~~~\n"
        "   ## Deploys\nDeploys go through the release job.\n",
        "utf-8",
    )
    assert run_import(str(folder)) == 0
    entries = stored(project)
    assert sorted(entries) == ["MEMORY-Builds", "MEMORY-Deploys"]
    assert entries["MEMORY-Builds"][1].text == (
        "  # Builds\nBuilds run on Python 3.12.\n~~~\n```\n# not a heading inside the fence\n~~~"
    )
    assert entries["MEMORY-Deploys"][1].text == "   ## Deploys\nDeploys go through the release job."


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


def test_a_memory_md_index_linking_out_of_the_folder_is_not_read(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (tmp_path / "private.md").write_text("# Private\nThe staging password rotates on Mondays\n", "utf-8")
    (folder / "MEMORY.md").symlink_to(tmp_path / "private.md")
    (folder / "good.md").write_text("---\nname: good\ndescription: Builds run on Python 3.12\ntype: project\n---\n")
    capsys.readouterr()
    assert run_import(str(folder)) == 0
    shown = folder.as_posix()
    out, err = capsys.readouterr()
    assert err == f"warning: {shown}: not Markdown memory files, not imported: MEMORY.md (a link out of the folder)\n"
    assert out.splitlines()[0] == f"added seed/good ({shown}/good.md)"
    assert sorted(stored(project)) == ["good"]
    for path in project.rglob("*"):
        assert not path.is_file() or b"staging password" not in path.read_bytes(), path


def test_jsonl_references_outside_the_project_are_refused_as_put_refuses_them(project: Path, tmp_path: Path) -> None:
    digest = "0123456789abcdef"
    rows = [
        {"shard": "insights", "text": "absolute", "refs": [f"/etc/hostname@{digest}"]},
        {"shard": "insights", "text": "escaped", "refs": [f"%2Fetc%2Fhostname#L1-1@{digest}"]},
        {"shard": "insights", "text": "parent", "refs": [f"../outside.py#L1-2@{digest}"]},
        {"shard": "insights", "text": "inner parent", "refs": [f"src/..%2F..%2Foutside.py@{digest}"]},
        {"shard": "insights", "text": "kept", "refs": [f"src/./app.py#L1-1@{digest}"]},
    ]
    source = tmp_path / "refs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    done = lh("memory", "import", str(source), cwd=project)
    shown = source.as_posix()
    assert (done.returncode, done.stderr) == (
        1,
        f"not imported: {shown}:1: refs: reference /etc/hostname@{digest}: give a path relative to the project root\n"
        f"not imported: {shown}:2: refs: reference %2Fetc%2Fhostname#L1-1@{digest}: give a path relative to the"
        " project root\n"
        f"not imported: {shown}:3: refs: reference ../outside.py#L1-2@{digest}: ../outside.py leads outside the"
        " project; cite files inside it\n"
        f"not imported: {shown}:4: refs: reference src/..%2F..%2Foutside.py@{digest}: src/../../outside.py leads"
        " outside the project; cite files inside it\n",
    )
    entries = stored(project)
    assert [e.text for _, e in entries.values()] == ["kept"]
    assert [e.attr("refs") for _, e in entries.values()] == [f"src/app.py#L1-1@{digest}"]
    put = lh("memory", "put", "insights", "a note", "--ref", "../outside.py#L1-2", cwd=project)
    assert put.stderr == "--ref ../outside.py#L1-2: ../outside.py leads outside the project; cite files inside it\n"


# One small folder per shape found in public memory folders, written here in the same shapes:
# (files, the entries it must give as (shard, id, a line of the text), warnings it must name).
SHAPES = [
    pytest.param(
        {"a.md": "---\nname: uv only\ndescription: Packages: uv, never pip\ntype: feedback\n---\nbody one\n"},
        [("corrections", "uv-only", "Packages: uv, never pip")],
        [],
        id="colon-in-plain-value",
    ),
    pytest.param(
        {"a.md": '---\nname: quoted\ndescription: "say \\"ship it\\" twice"\n---\nbody\n'},
        [("insights", "quoted", 'say "ship it" twice')],
        [],
        id="escaped-quotes",
    ),
    pytest.param(
        {"a.md": "---\nname: nested type\nmetadata: \n  type: feedback\n  created: 2025-03-04 10:20:30\n---\nx\n"},
        [("corrections", "nested-type", "nested type")],
        [],
        id="metadata-with-trailing-space-and-naive-timestamp",
    ),
    pytest.param(
        {"a.md": "---\nname: inline\ntags: [ci, build]\nmeta2: {k: v}\n---\nthe inline body\n"},
        [("insights", "inline", "the inline body")],
        [
            "a.md:3: a value starting with '[' (a YAML indicator lh does not read); tags was not read",
            "a.md:4: a value starting with '{' (a YAML indicator lh does not read); meta2 was not read",
        ],
        id="inline-list-and-mapping",
    ),
    pytest.param(
        {
            "a.md": "---\nname: one\ntype: Decision\n---\nx\n",
            "b.md": "---\nname: two\ntype: handoff\n---\ny\n",
            "c.md": "---\nname: three\ntype: Architecture\n---\nz\n",
        },
        [("conventions", "one", "one"), ("insights", "two", "two"), ("seed", "three", "three")],
        [],
        id="types-beyond-the-four",
    ),
    pytest.param(
        {"a.md": "---\ntitle: Rollout plan\n---\nstaged by region\n"},
        [("insights", "Rollout-plan", "Rollout plan")],
        [],
        id="title-instead-of-name",
    ),
    pytest.param(
        {"a.md": "<!-- generated -->\n<!-- keep -->\n---\nname: commented\ntype: project\n---\nafter comments\n"},
        [("seed", "commented", "after comments")],
        [],
        id="html-comments-before-frontmatter",
    ),
    pytest.param(
        {"a.md": "---\nname: blocks\n---\nfirst part\n\n---\n\nsecond part\n\n---\nthird part\n"},
        [("insights", "blocks", "third part")],
        [],
        id="many-rule-blocks",
    ),
    pytest.param(
        {"a.md": "---\r\nname: crlf\r\ntype: reference\r\n---\r\nwindows lines\r\n"},
        [("seed", "crlf", "windows lines")],
        [],
        id="crlf",
    ),
    pytest.param(
        {"a.md": "---\nname: cut\n---\ntext cut in a character caf\u00e9".encode()[:-1]},
        [("insights", "cut", "text cut in a character caf\ufffd")],
        ["a.md:4: a UTF-8 character cut short (byte 45); read as U+FFFD"],
        id="truncated-utf-8",
    ),
    pytest.param(
        {"a.md": "# 笔记\n\n第一行\n".encode() + "截断".encode()[:-1] + "\n第三行\n".encode()},
        [("insights", "a", "第三行")],
        ["a.md:4: a UTF-8 character cut short (byte 23); read as U+FFFD"],
        id="utf-8-cut-inside-a-line",
    ),
    pytest.param(
        {"log.md": "".join(f"## Day {n}\n\n{'observed the cache miss ' * 80}day{n}\n\n" for n in range(20))},
        [("insights", f"log-Day-{n}", f"## Day {n}") for n in range(20)],
        [],
        id="a-long-file-is-read-by-sections",
    ),
    pytest.param(
        {"部署.md": "---\nname: 部署流程\ndescription: 先构建再发布\n---\n正文\n"},
        [("insights", hashlib.sha256("部署".encode()).hexdigest()[:12], "先构建再发布")],
        [],
        id="name-without-latin-letters",
    ),
    pytest.param(
        {"MEMORY.md": "# Index\n\n- [Gone](gone.md)\n", "kept.md": "not linked from the index\n"},
        [("insights", "MEMORY-Index", "- [Gone](gone.md)"), ("insights", "kept", "not linked from the index")],
        ["MEMORY.md: links to files that do not exist: gone.md (line 3)"],
        id="index-links-to-missing-and-misses-files",
    ),
    pytest.param(
        {
            "reviewer/MEMORY.md": "# Reviewer\n\nReview diffs line by line.\n\n- [Tips](tips.md)\n",
            "reviewer/tips.md": "---\nname: tips\ndescription: check migrations\n---\nx\n",
            "planner/MEMORY.md": "- [Plan](plan.md)\n",
            "planner/plan.md": "plain plan note\n",
        },
        [
            ("insights", "reviewer.MEMORY-Reviewer", "Review diffs line by line."),
            ("insights", "tips", "check migrations"),
            ("insights", "planner.plan", "plain plan note"),
        ],
        [],
        id="per-agent-subfolders-with-their-indexes",
    ),
    pytest.param(
        {
            "MEMORY.md": "# Task group\n\nscope: build scripts\n",
            "memory_summary.md": "## User preferences\n\nterse answers\n",
            "raw_memories.md": "# Raw\n\nraw observation\n",
            "rollout_summaries/2025-01-02-x.md": "thread_id: 1\n\nrollout finding\n",
        },
        [
            ("insights", "MEMORY-Task-group", "scope: build scripts"),
            ("insights", "memory_summary", "terse answers"),
            ("insights", "raw_memories", "raw observation"),
            ("insights", "rollout_summaries.2025-01-02-x", "rollout finding"),
        ],
        [],
        id="codex-generated-memories",
    ),
]


@pytest.mark.parametrize(("files", "entries", "warnings"), SHAPES)
def test_real_file_shapes_are_read_or_named(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str | bytes],
    entries: list[tuple[str, str, str]],
    warnings: list[str],
) -> None:
    folder = tmp_path / "found"
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode()
        (folder / name).write_bytes(data)
    capsys.readouterr()
    assert run_import(str(folder)) == 0
    err = capsys.readouterr().err
    for warning in warnings:
        assert f"warning: {folder.as_posix()}/{warning}" in err.splitlines()
    assert "Traceback" not in err
    found = stored(project)
    assert sorted(found) == sorted(key for _, key, _ in entries)
    for shard, key, line in entries:
        assert found[key][0] == shard
        assert line in found[key][1].text.split("\n")
