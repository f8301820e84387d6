"""memory/evidence/stale.py: stale entries marked wherever they are shown, moved references re-anchored."""

from __future__ import annotations

import json
from pathlib import Path

from lean_harness.memory.shard import parse
from support import APP, git, lh, snapshot
from test_evidence import MEMORY, NOTE, digest, header, put, session_start, verify


def insert_above(path: Path, text: str) -> None:
    path.write_text(text + path.read_text("utf-8"), "utf-8")


def test_lines_moved_by_edits_above_them_are_moved_and_fix_re_anchors_them(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L4-5")
    insert_above(repo_with_app / "src" / "app.py", "# a header comment\n# and another\n")
    before = snapshot(repo_with_app)
    assert verify(repo_with_app) == (
        0,
        f"insights/{key}: src/app.py#L4-5 (lines 4-5) moved to src/app.py#L6-7\n"
        "1 reference in 1 entry: 0 fresh, 1 moved, 0 changed, 0 missing\n"
        'run "lh memory verify --fix" to re-anchor the moved references\n',
    )
    assert snapshot(repo_with_app) == before  # read-only without --fix
    code, out = verify(repo_with_app, "--fix")
    assert (code, out.splitlines()[0]) == (
        0,
        f"insights/{key}: src/app.py#L4-5 (lines 4-5) re-anchored at src/app.py#L6-7",
    )
    assert "src/app.py#L6-7@" in header(repo_with_app)
    assert verify(repo_with_app) == (0, "1 reference in 1 entry: 1 fresh, 0 moved, 0 changed, 0 missing\n")
    index = (repo_with_app / MEMORY / "INDEX.md").read_text("utf-8")
    assert lh("memory", "index", "--check", cwd=repo_with_app).returncode == 0, index


def test_changed_lines_make_the_entry_stale_everywhere(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    other = put(repo_with_app, "RETRIES is 3", "--ref", "src/app.py#L8")
    app = repo_with_app / "src" / "app.py"
    app.write_text(APP.replace("'30'", "'60'"), "utf-8")
    assert verify(repo_with_app) == (
        1,
        f"insights/{key}: src/app.py#L5 (line 5) changed\n"
        "2 references in 2 entries: 1 fresh, 0 moved, 1 changed, 0 missing\n"
        '1 stale entry: read the cited code, then update each note (lh memory put SHARD "text" --id KEY'
        " --ref PATH#Lstart-end) or delete it\n",
    )
    rows = {
        r["id"]: r for r in json.loads(lh("memory", "get", "insights", "--json", cwd=repo_with_app).stdout)["entries"]
    }
    assert (rows[key]["stale"], rows[key]["refs"][0]["status"]) == (True, "changed")
    assert (rows[other]["stale"], rows[other]["refs"][0]["status"]) == (False, "fresh")
    text = lh("memory", "get", "insights", "--ids", cwd=repo_with_app).stdout
    assert text.startswith(f"[{key} ")
    assert text.splitlines()[0].endswith(' [stale: src/app.py#L5 changed; run "lh memory verify"]')
    query = json.loads(lh("memory", "get", "--query", "APP_TIMEOUT", "--json", cwd=repo_with_app).stdout)
    assert [(r["id"], r["stale"]) for r in query["results"]] == [(key, True)]
    # INDEX.md says so once it is regenerated, and the session-start hook says so
    assert lh("memory", "index", cwd=repo_with_app).returncode == 0
    index = (repo_with_app / MEMORY / "INDEX.md").read_text("utf-8")
    assert (
        "Stale: 1 entry cites lines that changed or files that are gone; run `lh memory verify` before trusting"
        " them.\n" in index
    )
    hook = session_start(repo_with_app)
    assert hook.count("lh memory verify") == 1  # INDEX.md's line, not repeated by the hook
    assert "Stale: 1 entry cites lines that changed or files that are gone" in hook
    # fixing a note is one command; verify then reports it fresh
    assert put(repo_with_app, NOTE.replace("30", "60"), "--id", key, "--ref", "src/app.py#L5") == key
    assert verify(repo_with_app) == (0, "2 references in 2 entries: 2 fresh, 0 moved, 0 changed, 0 missing\n")


def test_fix_re_anchors_moved_references_only(repo_with_app: Path) -> None:
    moved = put(repo_with_app, "RETRIES is 3", "--ref", "src/app.py#L8")
    changed = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    app = repo_with_app / "src" / "app.py"
    app.write_text("# top\n" + APP.replace("'30'", "'60'"), "utf-8")
    before = {e.id: e for e in parse((repo_with_app / MEMORY / "insights.md").read_text("utf-8")).entries}
    code, out = verify(repo_with_app, "--fix")
    assert code == 1
    assert out.splitlines()[:2] == [
        f"insights/{moved}: src/app.py#L8 (line 8) re-anchored at src/app.py#L9",
        f"insights/{changed}: src/app.py#L5 (line 5) changed",
    ]
    after = {e.id: e for e in parse((repo_with_app / MEMORY / "insights.md").read_text("utf-8")).entries}
    assert after[changed].raw == before[changed].raw
    assert after[moved].attr("refs") == f"src/app.py#L9-9@{digest('RETRIES = 3')}"
    assert after[moved].text == before[moved].text


def test_an_entry_without_references_is_never_stale(repo_with_app: Path) -> None:
    put(repo_with_app, "a note about nothing in particular")
    (repo_with_app / "src" / "app.py").unlink()
    assert verify(repo_with_app) == (0, "0 references in 0 entries: 0 fresh, 0 moved, 0 changed, 0 missing\n")


def test_a_merge_of_two_branches_that_both_re_anchored_a_note_keeps_every_reference(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    git(repo_with_app, "add", "-A")
    git(repo_with_app, "commit", "-qm", "note")
    git(repo_with_app, "checkout", "-qb", "code")
    insert_above(repo_with_app / "src" / "app.py", "# config\n# loaded once\n")
    assert verify(repo_with_app, "--fix")[0] == 0
    git(repo_with_app, "commit", "-qam", "comments, note re-anchored")
    git(repo_with_app, "checkout", "-q", "main")
    assert put(repo_with_app, NOTE, "--ref", "src/app.py#L5", "--ref", "src/app.py#L8") == key
    git(repo_with_app, "commit", "-qam", "note cites RETRIES too")
    git(repo_with_app, "merge", "-q", "--no-edit", "code")
    assert lh("memory", "index", cwd=repo_with_app).returncode == 0
    five, eight = digest(APP.splitlines()[4]), digest("RETRIES = 3")
    (entry,) = parse((repo_with_app / MEMORY / "insights.md").read_text("utf-8")).entries
    assert entry.attr("refs") == f"src/app.py#L5-5@{five} src/app.py#L7-7@{five} src/app.py#L8-8@{eight}"
    assert verify(repo_with_app) == (
        0,
        f"insights/{key}: src/app.py#L5 (line 5) moved to src/app.py#L7\n"
        f"insights/{key}: src/app.py#L8 (line 8) moved to src/app.py#L10\n"
        "3 references in 1 entry: 1 fresh, 2 moved, 0 changed, 0 missing\n"
        'run "lh memory verify --fix" to re-anchor the moved references\n',
    )
    assert verify(repo_with_app, "--fix")[0] == 0
    assert f'refs="src/app.py#L7-7@{five} src/app.py#L10-10@{eight}"' in header(repo_with_app)


def test_a_hand_edited_refs_attribute_that_cannot_be_read_makes_the_entry_stale_not_memory_unusable(
    repo_with_app: Path,
) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    shard = repo_with_app / MEMORY / "insights.md"
    text = shard.read_text("utf-8")
    start = text.index('refs="') + len('refs="')
    shard.write_text(text[:start] + "src/app.py#L5" + text[text.index('"', start) :], "utf-8")
    assert lh("memory", "index", cwd=repo_with_app).returncode == 0
    assert verify(repo_with_app) == (
        1,
        f".agents/memory/insights.md: entry {key}: reference 'src/app.py#L5' is malformed; expected"
        " PATH#Lstart-end@digest; fix the attribute by hand,"
        f' or run "lh memory put insights TEXT --id {key} --ref ..."\n'
        "0 references in 1 entry: 0 fresh, 0 moved, 0 changed, 0 missing\n"
        '1 stale entry: read the cited code, then update each note (lh memory put SHARD "text" --id KEY'
        " --ref PATH#Lstart-end) or delete it\n",
    )
    assert "Stale: 1 entry cites" in (repo_with_app / MEMORY / "INDEX.md").read_text("utf-8")
    assert put(repo_with_app, "another note") != key  # writes still work
    assert put(repo_with_app, NOTE, "--id", key, "--ref", "src/app.py#L5") == key
    assert verify(repo_with_app) == (0, "1 reference in 1 entry: 1 fresh, 0 moved, 0 changed, 0 missing\n")
