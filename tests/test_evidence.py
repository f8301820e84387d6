"""Evidence anchors: `put --ref`, `lh memory verify [--fix]`, and stale marks, in a real git repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lean_harness.memory.evidence import evidence
from lean_harness.memory.shard import parse
from support import APP, git, lh, snapshot

MEMORY = ".agents/memory"
NOTE = "APP_TIMEOUT defaults to 30 seconds; read in timeout()"


def put(root: Path, *args: str) -> str:
    """Store a note; its id."""
    done = lh("memory", "put", "insights", *args, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    key: str = json.loads(done.stdout)["id"]
    return key


def verify(root: Path, *args: str) -> tuple[int, str]:
    done = lh("memory", "verify", *args, cwd=root)
    assert done.stderr == ""
    return done.returncode, done.stdout


def header(root: Path, shard: str = "insights") -> str:
    text = (root / MEMORY / f"{shard}.md").read_text("utf-8")
    return "\n".join(line for line in text.splitlines() if line.startswith("<!-- lh:entry"))


def digest(*lines: str) -> str:
    """The digest of cited lines, computed here from the rule in the ADR, not by lh."""
    import hashlib

    return hashlib.sha256("\n".join(line.rstrip() for line in lines).encode()).hexdigest()[:16]


def test_a_reference_is_stored_in_the_entry_header_with_the_digest_of_its_lines(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L4-5")
    expected = digest("def timeout():", "    return int(os.environ.get('APP_TIMEOUT', '30'))")
    assert f'refs="src/app.py#L4-5@{expected}"' in header(repo_with_app)
    assert verify(repo_with_app) == (0, "1 reference in 1 entry: 1 fresh, 0 moved, 0 changed, 0 missing\n")
    done = lh("memory", "get", "insights", "--json", cwd=repo_with_app)
    row = json.loads(done.stdout)["entries"][0]
    assert (row["id"], row["stale"]) == (key, False)
    assert row["refs"] == [
        {
            "ref": "src/app.py#L4-5",
            "path": "src/app.py",
            "lines": [4, 5],
            "status": "fresh",
            "now": None,
            "renamed_to": None,
        }
    ]


def test_line_endings_and_trailing_spaces_do_not_make_a_reference_stale(repo_with_app: Path) -> None:
    put(repo_with_app, NOTE, "--ref", "src/app.py#L4-5")
    app = repo_with_app / "src" / "app.py"
    app.write_bytes(app.read_bytes().replace(b"\n", b"  \r\n"))
    assert verify(repo_with_app)[0] == 0
    assert verify(repo_with_app)[1].endswith(": 1 fresh, 0 moved, 0 changed, 0 missing\n")


def session_start(root: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parents[1] / "hooks" / "run.py"), "session-start"],
        cwd=root,
        input=json.dumps({"cwd": str(root), "session_id": "s1"}),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(root)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_hook_says_when_a_cited_file_changed_since_the_last_check(repo_with_app: Path) -> None:
    put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    assert "cite" not in session_start(repo_with_app).split("\n\n")[-1]
    app = repo_with_app / "src" / "app.py"
    app.write_text(APP + "# more\n", "utf-8")  # the cited line is as it was: not changed
    assert "cite" not in session_start(repo_with_app).split("\n\n")[-1]
    app.write_text(APP.replace("'30'", "'60'"), "utf-8")
    assert session_start(repo_with_app).endswith(
        "\n\nlean-harness: 1 file cited by memory notes changed since the notes were last checked;"
        " run `lh memory verify` before trusting notes that cite them.\n"
    )
    app.write_text(APP, "utf-8")
    assert verify(repo_with_app)[0] == 0
    assert "cite" not in session_start(repo_with_app).split("\n\n")[-1]


@pytest.mark.parametrize("commit", [False, True], ids=["staged", "committed"])
def test_a_file_renamed_with_git_mv_is_followed(repo_with_app: Path, commit: bool) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L4-5", "--ref", "src/app.py")
    git(repo_with_app, "mv", "src/app.py", "src/settings.py")
    if commit:
        git(repo_with_app, "commit", "-qm", "rename")
        git(repo_with_app, "mv", "src/settings.py", "src/config.py")
        git(repo_with_app, "commit", "-qm", "rename again")
    target = "src/config.py" if commit else "src/settings.py"
    assert verify(repo_with_app) == (
        0,
        f"insights/{key}: src/app.py (whole file) moved to {target}\n"
        f"insights/{key}: src/app.py#L4-5 (lines 4-5) moved to {target}#L4-5\n"
        "2 references in 1 entry: 0 fresh, 2 moved, 0 changed, 0 missing\n"
        'run "lh memory verify --fix" to re-anchor the moved references\n',
    )
    assert verify(repo_with_app, "--fix")[0] == 0
    assert f'refs="{target}@' in header(repo_with_app)
    assert verify(repo_with_app) == (0, "2 references in 1 entry: 2 fresh, 0 moved, 0 changed, 0 missing\n")
    # the renames git knows are cached until git's state changes: a further rename is seen
    git(repo_with_app, "commit", "-qam", "renamed")
    assert verify(repo_with_app)[0] == 0
    git(repo_with_app, "mv", target, "lib.py")
    assert verify(repo_with_app)[1].splitlines()[0] == f"insights/{key}: {target} (whole file) moved to lib.py"


def test_a_renamed_file_whose_lines_changed_is_changed(repo_with_app: Path) -> None:
    longer = APP + "".join(f"NAME_{n} = {n}\n" for n in range(20))
    (repo_with_app / "src" / "app.py").write_text(longer, "utf-8")
    git(repo_with_app, "commit", "-qam", "longer")
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    git(repo_with_app, "mv", "src/app.py", "src/settings.py")
    (repo_with_app / "src" / "settings.py").write_text(longer.replace("'30'", "'45'"), "utf-8")
    git(repo_with_app, "add", "-A")
    assert verify(repo_with_app)[1].splitlines()[0] == (
        f"insights/{key}: src/app.py#L5 (line 5) changed (the file is now src/settings.py)"
    )


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("../outside.py", "--ref ../outside.py: ../outside.py leads outside the project; cite files inside it"),
        (
            "src/nope.py#L1",
            "--ref src/nope.py#L1: there is no src/nope.py in the project; give a path relative to its root",
        ),
        ("src", "--ref src: src is not a file; cite a file, optionally with #Lstart-end"),
        ("src/app.py#L7-20", "--ref src/app.py#L7-20: src/app.py has 8 lines; cite lines that exist"),
        (
            "src/app.py#L5-2",
            "--ref src/app.py#L5-2: the line range is empty; write PATH#Lstart-end with 1 <= start <= end",
        ),
        ("/etc/hostname", "--ref /etc/hostname: give a path relative to the project root"),
        ("link.py", "--ref link.py: link.py leads outside the project; cite files inside it"),
    ],
    ids=["dotdot", "missing", "folder", "past-end", "empty-range", "absolute", "symlink-out"],
)
def test_references_outside_the_project_or_to_missing_lines_are_refused(
    repo_with_app: Path, ref: str, message: str
) -> None:
    outside = repo_with_app.parent / "outside.py"
    outside.write_text("x = 1\n", "utf-8")
    (repo_with_app / "link.py").symlink_to(outside)
    before = snapshot(repo_with_app)
    done = lh("memory", "put", "insights", NOTE, "--ref", ref, cwd=repo_with_app)
    assert (done.returncode, done.stderr, done.stdout) == (2, message + "\n", "")
    assert snapshot(repo_with_app) == before


def test_put_with_the_same_text_and_new_references_updates_the_entry(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    assert put(repo_with_app, NOTE, "--ref", "src/app.py#L4-5") == key
    assert 'refs="src/app.py#L4-5@' in header(repo_with_app)
    assert put(repo_with_app, NOTE.upper(), "--id", key) == key  # no --ref: the references stay
    assert "src/app.py#L4-5@" in header(repo_with_app)
    assert put(repo_with_app, NOTE, "--id", key, "--no-refs") == key
    assert "refs=" not in header(repo_with_app)


def test_doctor_names_the_stale_entries(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    (repo_with_app / "src" / "app.py").write_text(APP.replace("'30'", "'60'"), "utf-8")
    done = lh("doctor", "--json", cwd=repo_with_app)
    assert done.returncode == 1
    check = next(c for c in json.loads(done.stdout)["checks"] if c["id"] == "evidence")
    assert (check["status"], check["message"], check["fix"]) == (
        "fail",
        f"1 entry cites lines that changed or files that are gone: insights/{key}: src/app.py#L5 changed",
        'lh memory verify, then update each note (lh memory put SHARD "text" --id KEY --ref ...) or delete it',
    )


def test_export_and_import_keep_references_and_their_digests(repo_with_app: Path, tmp_path: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    (repo_with_app / "src" / "app.py").write_text(APP.replace("'30'", "'60'"), "utf-8")
    exported = lh("memory", "export", cwd=repo_with_app).stdout
    row = json.loads(exported)
    assert row["refs"] == [f"src/app.py#L5-5@{digest(APP.splitlines()[4])}"]
    # into a fresh project holding the changed file: the note is still stale there
    other = tmp_path / "other"
    other.mkdir()
    assert lh("init", cwd=other).returncode == 0
    (other / "src").mkdir()
    (other / "src" / "app.py").write_text(APP.replace("'30'", "'60'"), "utf-8")
    source = tmp_path / "notes.jsonl"
    fresh = {"shard": "insights", "text": "RETRIES is 3", "refs": ["src/app.py#L8"]}
    source.write_text(exported + json.dumps(fresh) + "\n", "utf-8")
    done = lh("memory", "import", str(source), cwd=other)
    assert done.returncode == 0, done.stderr
    code, out = verify(other)
    assert (code, out.splitlines()[0]) == (1, f"insights/{key}: src/app.py#L5 (line 5) changed")
    assert out.splitlines()[1] == "2 references in 2 entries: 1 fresh, 0 moved, 1 changed, 0 missing"
    broken = other / "broken.jsonl"
    broken.write_text(json.dumps({"shard": "insights", "text": "x", "refs": ["src/gone.py#L2"]}) + "\n", "utf-8")
    before = snapshot(other)
    done = lh("memory", "import", "broken.jsonl", cwd=other)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        "not imported: broken.jsonl:1: reference src/gone.py#L2-2: there is no src/gone.py in the project;"
        " give a path relative to its root"
    )
    assert snapshot(other) == before


def test_a_digest_keeps_the_references_of_its_sources(repo_with_app: Path) -> None:
    assert lh("config", "set", "memory.keepNewest", "1", cwd=repo_with_app).returncode == 0
    assert lh("config", "set", "memory.tokenBudget", "200", cwd=repo_with_app).returncode == 0
    detail = "\nFound while chasing the flaky upload test on the Windows runners last week, twice." * 3
    first = put(repo_with_app, NOTE + detail, "--ref", "src/app.py#L5", "--tag", "x")
    put(repo_with_app, "RETRIES is 3 and nothing retries twice" + detail, "--ref", "src/app.py#L8")
    time.sleep(1.1)
    put(repo_with_app, "the newest note cites nothing")
    done = lh("memory", "compact", "--force", cwd=repo_with_app)
    assert done.returncode == 0, done.stdout + done.stderr
    entries = parse((repo_with_app / MEMORY / "insights.md").read_text("utf-8")).entries
    digest_entry = next(e for e in entries if e.attr("sources"))
    assert first in (digest_entry.attr("sources") or "")
    assert digest_entry.attr("refs") == " ".join(
        sorted([f"src/app.py#L5-5@{digest(APP.splitlines()[4])}", f"src/app.py#L8-8@{digest('RETRIES = 3')}"])
    )
    (repo_with_app / "src" / "app.py").write_text(APP.replace("'30'", "'60'"), "utf-8")
    code, out = verify(repo_with_app)
    assert (code, out.splitlines()[0]) == (1, f"insights/{digest_entry.id}: src/app.py#L5 (line 5) changed")


def test_merging_a_branch_that_edits_the_cited_code(repo_with_app: Path) -> None:
    git(repo_with_app, "checkout", "-qb", "notes")
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    moved = put(repo_with_app, "RETRIES is 3", "--ref", "src/app.py#L8")
    git(repo_with_app, "add", "-A")
    git(repo_with_app, "commit", "-qm", "notes")
    git(repo_with_app, "checkout", "-q", "main")
    (repo_with_app / "src" / "app.py").write_text("# config\n" + APP.replace("'30'", "'60'"), "utf-8")
    git(repo_with_app, "commit", "-qam", "longer timeout")
    git(repo_with_app, "merge", "-q", "--no-edit", "notes")
    assert lh("memory", "index", cwd=repo_with_app).returncode == 0
    assert verify(repo_with_app) == (
        1,
        f"insights/{key}: src/app.py#L5 (line 5) changed\n"
        f"insights/{moved}: src/app.py#L8 (line 8) moved to src/app.py#L9\n"
        "2 references in 2 entries: 0 fresh, 1 moved, 1 changed, 0 missing\n"
        'run "lh memory verify --fix" to re-anchor the moved references\n'
        '1 stale entry: read the cited code, then update each note (lh memory put SHARD "text" --id KEY'
        " --ref PATH#Lstart-end) or delete it\n",
    )


def test_paths_with_spaces_and_percent_signs_round_trip(repo_with_app: Path) -> None:
    odd = repo_with_app / "docs" / "a b%20#c@d.md"
    odd.parent.mkdir()
    odd.write_text("one\ntwo\n", "utf-8")
    key = put(repo_with_app, "the odd doc says two", "--ref", "docs/a b%20#c@d.md#L2")
    assert f'refs="docs/a%20b%2520%23c%40d.md#L2-2@{digest("two")}"' in header(repo_with_app)
    assert verify(repo_with_app)[0] == 0
    odd.write_text("zero\none\ntwo\n", "utf-8")
    assert verify(repo_with_app)[1].splitlines()[0] == (
        f"insights/{key}: docs/a b%20#c@d.md#L2 (line 2) moved to docs/a b%20#c@d.md#L3"
    )


@pytest.mark.parametrize(
    "value",
    [
        "src/app.py#L1-2",
        "src/app.py@xyz",
        "src/app.py#L0-2@0123456789abcdef",
        'a"b@0123456789abcdef',
        "a%zz@0123456789abcdef",
    ],
)
def test_malformed_stored_references_are_refused(value: str) -> None:
    with pytest.raises(evidence.LhError) as caught:
        evidence.decode(value, "shard.md: entry x")
    assert caught.value.message.startswith(f"shard.md: entry x: reference {value!r} ")


def test_citing_lines_that_hold_a_credential_is_refused(repo_with_app: Path) -> None:
    from test_scan import github_token

    (repo_with_app / "deploy.sh").write_text(f"#!/bin/sh\nexport TOKEN={github_token()}\necho done\n", "utf-8")
    before = snapshot(repo_with_app)
    done = lh("memory", "put", "insights", "deploy exports the bot token", "--ref", "deploy.sh#L2", cwd=repo_with_app)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "refused: --ref deploy.sh#L2: line 2 of deploy.sh looks like a GitHub personal access token"
        " (ghp_********, rule github-pat); nothing was written. Cite other lines, or pass --allow-secret"
        " github-pat if it is not a secret\n"
    )
    assert snapshot(repo_with_app) == before
    assert (
        lh("memory", "put", "insights", "deploy ends with echo", "--ref", "deploy.sh#L3", cwd=repo_with_app).returncode
        == 0
    )


@pytest.mark.parametrize(
    ("inserted", "copy_at"), [(3, 400), (100, 400), (100, 150)], ids=["near", "far", "copy-nearer"]
)
def test_a_moved_range_is_found_at_the_nearest_copy(tmp_path: Path, inserted: int, copy_at: int) -> None:
    body = [f"line {n}" for n in range(1, 501)]
    (tmp_path / "f.txt").write_text("\n".join(body) + "\n", "utf-8")
    anchor = evidence.anchor(tmp_path, "f.txt#L10-12")
    moved = [f"new {n}" for n in range(inserted)] + body
    moved[copy_at - 1 : copy_at + 2] = body[9:12]  # a second copy of the cited lines
    (tmp_path / "f.txt").write_text("\n".join(moved) + "\n", "utf-8")
    found = evidence.check(tmp_path, [anchor])[anchor]
    nearest = min([10 + inserted, copy_at], key=lambda s: (abs(s - 10), s))
    assert (found.status, found.now) == ("moved", evidence.Anchor("f.txt", nearest, nearest + 2, anchor.digest))


def test_the_hook_notices_a_missing_cited_file_that_came_back(repo_with_app: Path) -> None:
    put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    (repo_with_app / "src" / "app.py").unlink()
    assert verify(repo_with_app)[0] == 1
    assert "Stale: 1 entry cites lines that changed or files that are gone" in session_start(repo_with_app)
    (repo_with_app / "src" / "app.py").write_text(APP, "utf-8")
    # INDEX.md still says what the last check found; the session start says the file changed since.
    assert "1 file cited by memory notes changed since the notes were last checked" in session_start(repo_with_app)
    assert verify(repo_with_app)[0] == 0
    back = session_start(repo_with_app)
    assert "Stale:" not in back
    assert "lh memory verify" not in back


def _run_measured(root: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """`lh ARGS` run by a small parent process that reports the largest resident size of its child (KiB)."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'lean_harness', *sys.argv[1:]], capture_output=True, text=True)\n"
        "sys.stderr.write(done.stderr)\n"
        "sys.stdout.write(done.stdout)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(done.returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=root, capture_output=True, text=True, check=False)
    *errors, peak = done.stderr.splitlines()
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, "".join(e + "\n" for e in errors)), int(
        peak
    )


def test_a_cited_file_grown_past_the_cap_checks_as_changed_without_being_read_whole(repo_with_app: Path) -> None:
    key = put(repo_with_app, NOTE, "--ref", "src/app.py#L5")
    with (repo_with_app / "src" / "app.py").open("r+b") as handle:
        handle.truncate(400 * 1024 * 1024)  # sparse: 400 MB that take no disk
    started = time.monotonic()
    done, peak = _run_measured(repo_with_app, "memory", "put", "insights", "an unrelated note")
    assert (done.returncode, done.stderr) == (0, "")
    done, peak_verify = _run_measured(repo_with_app, "memory", "verify")
    elapsed = time.monotonic() - started
    assert max(peak, peak_verify) < 200 * 1024, (peak, peak_verify)  # KiB: far below the file's 400 MB
    assert elapsed < 20
    assert (done.returncode, done.stderr, done.stdout) == (
        1,
        "",
        f"insights/{key}: src/app.py#L5 (line 5) changed\n"
        "1 reference in 1 entry: 0 fresh, 0 moved, 1 changed, 0 missing\n"
        '1 stale entry: read the cited code, then update each note (lh memory put SHARD "text" --id KEY'
        " --ref PATH#Lstart-end) or delete it\n",
    )
