"""Entries added to a shard (adr/0033-whole-shard-writes.md): the shard is written whole, what
was there (prose typed by hand, its line endings) is kept byte for byte, a kill at any step leaves
the old shard or the old shard and the whole entry, and summaries kept up to date from the added
entries match a count from scratch.

Every case runs `lh` as a real process on real files; the kill cases stop it with SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness.memory.shard import parse
from support import killed_at, lh

MEMORY = ".agents/memory"
JOURNAL = ".agents/.cache/lh/journal"
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

# How a shard may end before a put adds to it: lh's own ending, loose prose typed without a
# final newline, Windows line endings, and Windows line endings cut after a CR.
SHAPES = {
    "lf": b"# failures\n\nFailures seen here.\n",
    "no-final-newline": b"# failures\n\nFailures seen here.\n\nprose typed by hand, no newline at the end",
    "crlf": b"# failures\r\n\r\nFailures seen here.\r\n\r\nprose with windows endings\r\n",
    "crlf-cut": b"# failures\r\n\r\nFailures seen here.\r\n\r\nprose cut after its CR\r",
}


def entry_texts(root: Path) -> list[str]:
    """The texts of every entry in the shards and the archive."""
    found = []
    for path in sorted((root / MEMORY).rglob("*.md")):
        if path.name != "INDEX.md" and ".pending" not in path.parts:
            found += [e.text for e in parse(path.read_text("utf-8"), str(path)).entries]
    return found


def cold_index(root: Path) -> str:
    """INDEX.md as a count from scratch makes it: every cache deleted, every shard read again."""
    copy = root.parent / f"{root.name}-cold"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    shutil.rmtree(copy / ".agents" / ".cache")
    assert lh("memory", "index", cwd=copy).returncode == 0
    return (copy / MEMORY / "INDEX.md").read_text("utf-8")


def shaped(root: Path, shape: str) -> bytes:
    """The failures shard given `shape`, then two notes put into it; its bytes after them."""
    (root / MEMORY / "failures.md").write_bytes(SHAPES[shape])
    for text in ("earlier note: the lock file stays after a crash", "earlier note: fsync the folder too"):
        assert lh("memory", "put", "failures", text, cwd=root).returncode == 0
    return (root / MEMORY / "failures.md").read_bytes()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_put_adds_after_the_bytes_that_were_there(project: Path, shape: str) -> None:
    before = shaped(project, shape)
    path = project / MEMORY / "failures.md"
    env = {"SOURCE_DATE_EPOCH": "1767225600"}
    result = lh("memory", "put", "failures", "a new note\nwith two lines", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    after = path.read_bytes()
    assert after.startswith(before)
    key = result.stdout.split()[1]
    lines = [
        f'<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" -->',
        "a new note",
        "with two lines",
        f'<!-- /lh:entry id="{key}" -->',
    ]
    newline = "\r\n" if shape.startswith("crlf") else "\n"
    added = after[len(before) :].decode("utf-8")
    assert added == newline + "".join(line + newline for line in lines)
    assert entry_texts(project)[-1] == "a new note\nwith two lines"
    assert (project / MEMORY / "INDEX.md").read_text("utf-8") == cold_index(project)


def test_a_shard_edited_by_hand_between_two_puts_keeps_the_edit(project: Path) -> None:
    assert lh("memory", "put", "quirks", "first: git on windows turns LF into CRLF", cwd=project).returncode == 0
    path = project / MEMORY / "quirks.md"
    edited = path.read_bytes().replace(b"# quirks", b"# quirks\n\nA paragraph added by hand.") + b"tail typed by hand"
    path.write_bytes(edited)
    assert lh("memory", "put", "quirks", "second: the CI image has no git-lfs", cwd=project).returncode == 0
    assert path.read_bytes().startswith(edited + b"\n\n")
    assert entry_texts(project) == ["first: git on windows turns LF into CRLF", "second: the CI image has no git-lfs"]
    assert (project / MEMORY / "INDEX.md").read_text("utf-8") == cold_index(project)


def test_puts_on_two_branches_then_a_switch_keep_the_summary_true(project: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    assert lh("memory", "put", "insights", "on main: retries need jitter", cwd=project).returncode == 0
    git("add", "-A")
    git("commit", "-q", "-m", "main")
    git("checkout", "-q", "-b", "other")
    for text in ("on other: the cache key needs the python version", "on other: pin the runner image"):
        assert lh("memory", "put", "insights", text, cwd=project).returncode == 0
    git("add", "-A")
    git("commit", "-q", "-m", "other")
    git("checkout", "-q", "main")
    assert lh("memory", "put", "insights", "on main again: logs rotate at 10 MB", cwd=project).returncode == 0
    assert entry_texts(project) == ["on main: retries need jitter", "on main again: logs rotate at 10 MB"]
    assert (project / MEMORY / "INDEX.md").read_text("utf-8") == cold_index(project)


def test_a_shard_changed_without_its_stat_showing_it_is_read_again_before_the_put(project: Path) -> None:
    assert lh("memory", "put", "seed", "first: the build needs python 3.11", cwd=project).returncode == 0
    path = project / MEMORY / "seed.md"
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    assert lh("memory", "status", cwd=project).returncode == 0  # the summary now trusts the file's stat
    info = path.stat()
    same_size = path.read_bytes().replace(b"python 3.11", b"python 3.12")
    path.write_bytes(same_size)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert [path.stat().st_size, path.stat().st_mtime_ns, path.stat().st_ino] == [
        info.st_size,
        info.st_mtime_ns,
        info.st_ino,
    ]
    assert lh("memory", "put", "seed", "second: the tests need git", cwd=project).returncode == 0
    assert path.read_bytes().startswith(same_size)
    assert entry_texts(project) == ["first: the build needs python 3.12", "second: the tests need git"]
    assert (project / MEMORY / "INDEX.md").read_text("utf-8") == cold_index(project)


# -- kills at every step --------------------------------------------------------------------------

# Runs lh, killing it with SIGKILL at its KILL_AT-th rename, link, unlink, fsync or write; a
# write it is killed at is torn first: half of its bytes reach the file.
KILLER = """
import os, signal, sys, runpy
limit, count = int(os.environ["KILL_AT"]), [0]
def due():
    count[0] += 1
    return count[0] == limit
def wrap(call):
    def killing(*args, **kwargs):
        if due():
            os.kill(os.getpid(), signal.SIGKILL)
        return call(*args, **kwargs)
    return killing
write = os.write
def torn(fd, data):
    if due():
        write(fd, bytes(data[: len(data) // 2]))
        os.kill(os.getpid(), signal.SIGKILL)
    return write(fd, data)
os.replace, os.rename, os.link, os.unlink, os.fsync = map(wrap, (os.replace, os.rename, os.link, os.unlink, os.fsync))
os.write = torn
sys.argv = ["lh", *sys.argv[1:]]
runpy.run_module("lean_harness", run_name="__main__")
"""


@POSIX_ONLY
@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_kill_at_any_step_of_a_put_leaves_the_old_shard_or_the_whole_entry(
    project: Path, tmp_path: Path, shape: str
) -> None:
    assert lh("config", "set", "memory.keepNewest", "1", cwd=project).returncode == 0
    before = shaped(project, shape)
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine)
    note = "lesson: a torn append must never parse as something else"
    path = project / MEMORY / "failures.md"
    step = 0
    while True:
        step += 1
        shutil.rmtree(project)
        shutil.copytree(pristine, project)
        if killed_at(step, project, KILLER, "memory", "put", "failures", note) != -9:
            break  # the put ran to the end before its step-th change: every step was tried
        status = lh("memory", "status", cwd=project)  # finishes what the kill left, if anything
        assert status.returncode == 0, (step, status.stderr)
        after = path.read_bytes()
        assert after.startswith(before), step
        added = parse(after[len(before) :].decode("utf-8"), "added")
        assert [e.text for e in added.entries] in ([], [note]), step
        assert not "".join(b for b in added.blocks if isinstance(b, str)).strip(), step
        assert lh("memory", "compact", "--force", cwd=project).returncode in (0, 1), step
        again = lh("memory", "put", "failures", note, cwd=project)
        assert again.returncode == 0, (step, again.stderr)
        stored = entry_texts(project)
        assert stored.count(note) == 1 or (stored.count(note) == 0 and note in "\n".join(stored)), (step, stored)
        # INDEX.md is fresh, or stale and said to be (a kill before it was written): `index` repairs it.
        assert lh("memory", "index", "--check", cwd=project).returncode in (0, 1), step
        assert lh("memory", "index", cwd=project).returncode == 0, step
        assert (project / MEMORY / "INDEX.md").read_text("utf-8") == cold_index(project), step
    assert step > 8


# Kills lh as it renames a new shard over the old one, after its temp file is written whole.
AT_RENAME = """
import os, signal, sys, runpy
replace = os.replace
def killing(source, target, *args, **kwargs):
    if str(target).endswith("failures.md"):
        os.kill(os.getpid(), signal.SIGKILL)
    return replace(source, target, *args, **kwargs)
os.replace = killing
sys.argv = ["lh", *sys.argv[1:]]
runpy.run_module("lean_harness", run_name="__main__")
"""


@POSIX_ONLY
def test_a_put_killed_before_its_rename_leaves_the_old_shard_and_a_temp_file_swept_later(project: Path) -> None:
    before = shaped(project, "lf")
    path = project / MEMORY / "failures.md"
    assert killed_at(0, project, AT_RENAME, "memory", "put", "failures", "a note never renamed in") == -9
    assert path.read_bytes() == before
    temps = [p for p in (project / MEMORY).iterdir() if p.name.startswith(".failures.md.") and p.suffix == ".tmp"]
    assert len(temps) == 1
    assert not (project / JOURNAL).exists()  # one file: its rename is the commit point
    os.utime(temps[0], (1_700_000_000, 1_700_000_000))
    assert lh("memory", "put", "failures", "the next note", cwd=project).returncode == 0
    assert not temps[0].exists()
    assert entry_texts(project)[-2:] == ["earlier note: fsync the folder too", "the next note"]


SHARD_OPENS = (  # `lh ARGS` run with an audit hook; prints how often failures.md was opened
    "import sys; from lean_harness.cli import main; seen = []\n"
    "sys.addaudithook(lambda e, a: seen.append(a) if e == 'open' and str(a[0]).endswith('failures.md') else None)\n"
    "code = main(sys.argv[1:]); print(code, len(seen))"
)


def shard_opens(root: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SHARD_OPENS, *args], cwd=root, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()[-1]


def test_a_shard_is_read_once_for_a_summary_and_once_for_a_put_without_its_ids_listing(tmp_path: Path) -> None:
    assert lh("init", cwd=tmp_path).returncode == 0
    assert lh("memory", "put", "failures", "first note: the lock file stays", cwd=tmp_path).returncode == 0
    shards = tmp_path / ".agents/.cache/lh/shards"
    shutil.rmtree(shards)
    assert shard_opens(tmp_path, "memory", "status") == "0 1"  # summarized from the bytes it digested
    hour_ago = os.stat(tmp_path / MEMORY / "failures.md").st_mtime - 3600
    os.utime(tmp_path / MEMORY / "failures.md", (hour_ago, hour_ago))
    shutil.rmtree(shards)
    assert lh("memory", "status", cwd=tmp_path).returncode == 0  # a summary the file's stat vouches for
    (shards / "failures.ids").unlink()
    # one read for the write, one by the journal, which refuses to write over a shard changed since
    assert shard_opens(tmp_path, "memory", "put", "failures", "second note: fsync the folder") == "0 2"
    assert (shards / "failures.ids").read_text("utf-8").count("\n") == 3  # its digest, then both entries
