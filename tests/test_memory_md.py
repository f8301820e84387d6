"""memory/intake/formats/memory_md.py: folders of Markdown memory files as agents and people write them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from support import lh
from test_importing import MEMORY, github_token, run_import, stored


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
