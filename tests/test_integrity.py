"""Integrity under concurrent writers, SIGKILL, git merges and hostile input (docs/reliability.md).

Everything here runs real processes on the real lock and real git in temporary folders.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.init import ATTRIBUTES_START, BLOCK_END
from lean_harness.memory.shard import derive_id, parse
from support import killed_at, lh, snapshot

MEMORY = ".agents/memory"
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="uses flock and SIGKILL")


def texts(root: Path, shard: str) -> list[str]:
    """The entry texts of a shard, with those compaction moved to its archive."""
    found = [e.text for e in parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries]
    archive = root / MEMORY / "archive" / f"{shard}.md"
    if archive.exists():
        found += [e.text for e in parse(archive.read_text("utf-8")).entries]
    return found


def every_shard_parses(root: Path) -> None:
    for path in sorted((root / MEMORY).glob("*.md")):
        if path.name != "INDEX.md":
            parse(path.read_text("utf-8"), path.name)


def popen_lh(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lean_harness", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


# -- concurrent writers -------------------------------------------------------------------------

WORKER = """
import sys
from lean_harness.cli import main
worker, count = int(sys.argv[1]), int(sys.argv[2])
for number in range(count):
    code = main(["memory", "put", "failures", f"worker {worker} note {number}: the retry loop hides a race"])
    if code != 0:
        sys.exit(f"put {number} of worker {worker} exited {code}")
"""


def test_eight_writers_of_a_hundred_puts_store_all_eight_hundred(project: Path) -> None:
    """8 processes x 100 puts to one shard: 800 entries and a consistent INDEX.md.

    Each worker is ONE Python process that calls `lean_harness.cli.main` 100 times, so the 8
    processes contend on the real lock 800 times without paying 800 interpreter start-ups; the
    test below runs a separate `lh` process per put.
    """
    env = {**os.environ, "LH_LOCK_TIMEOUT": "60"}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(w), "100"], cwd=project, env=env, stderr=subprocess.PIPE, text=True
        )
        for w in range(8)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=240)
        assert worker.returncode == 0, err
    stored = texts(project, "failures")
    assert len(stored) == 800
    assert sorted(stored) == sorted(
        f"worker {w} note {n}: the retry loop hides a race" for w in range(8) for n in range(100)
    )
    assert lh("memory", "index", "--check", cwd=project).returncode == 0
    status = json.loads(lh("memory", "status", "--json", cwd=project).stdout)
    assert {s["name"]: s["entries"] for s in status["shards"]}["failures"] == 800
    assert status["index"]["fresh"] is True


def test_separate_lh_processes_per_put_store_every_entry(project: Path) -> None:
    """4 threads each start 10 `lh memory put` processes, one per note, all at once."""

    def run(worker: int) -> list[int]:
        return [
            lh(
                "memory", "put", "quirks", f"process {worker}.{n}", cwd=project, env={"LH_LOCK_TIMEOUT": "60"}
            ).returncode
            for n in range(10)
        ]

    with ThreadPoolExecutor(4) as pool:
        codes = [code for codes in pool.map(run, range(4)) for code in codes]
    assert codes == [0] * 40
    assert sorted(texts(project, "quirks")) == sorted(f"process {w}.{n}" for w in range(4) for n in range(10))
    assert lh("memory", "index", "--check", cwd=project).returncode == 0


# -- crashes --------------------------------------------------------------------------------------


def _has_compact() -> bool:
    try:
        main(["memory", "compact", "--help"])
    except SystemExit as stop:
        return stop.code == 0
    return True


@pytest.mark.slow
@POSIX_ONLY
def test_sigkill_at_random_moments_loses_no_acknowledged_entry(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 SIGKILLs at random moments of `put`, `lh memory index` and `lh memory compact`.

    The delay is drawn from 0 to 1.2 times a put measured every 40 kills, so kills land during start-up, during
    the writes and after a clean exit. After each kill every shard parses, every put that exited 0
    is stored, and INDEX.md is fresh or detectably stale, which `lh memory index` repairs.
    """
    commands = [["memory", "index"]] + ([["memory", "compact"]] if _has_compact() else [])
    if len(commands) > 1:
        assert main(["config", "set", "memory.tokenBudget", "200"]) == 0  # so that compactions merge
    capsys.readouterr()
    rng = random.Random(20260131)

    def measured_span(round_: int) -> float:
        """1.2 times the median of three whole puts now (the machine's load changes during the run)."""
        durations = []
        for number in range(3):
            started = time.monotonic()
            assert lh("memory", "put", "seed", f"calibration {round_}.{number}", cwd=project).returncode == 0
            durations.append(time.monotonic() - started)
        return 1.2 * sorted(durations)[1]

    acknowledged: dict[str, list[str]] = {"failures": [], "insights": []}
    for number in range(200):
        if number % 40 == 0:
            span = measured_span(number)
        if rng.random() < 0.75:
            shard = rng.choice(sorted(acknowledged))
            words = [rng.choice(["lock", "kill", "fsync", "rename"]) for _ in range(18)]
            # Two lines, so that a digest shrinks the note and compactions merge (one-line notes stay).
            text = f"note {number}: " + " ".join(words[:6]) + "\ndetail: " + " ".join(words[6:])
            process = popen_lh("memory", "put", shard, text, cwd=project)
        else:
            shard, text = "", ""
            process = popen_lh(*rng.choice(commands), cwd=project)
        time.sleep(rng.uniform(0, span))
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        if process.returncode == 0 and shard:
            acknowledged[shard].append(text)
        if len(commands) > 1 and number % 40 == 39:
            # A compaction left to finish now and then, so that later kills meet digests and archives.
            assert lh("memory", "compact", cwd=project).returncode in (0, 1)
        every_shard_parses(project)
        for name, expected in acknowledged.items():
            assert set(expected) <= set(texts(project, name)), f"an acknowledged entry of {name} is gone"
        check = main(["memory", "index", "--check"])
        assert check in (0, 1)
        if check == 1:
            assert main(["memory", "index"]) == 0
            assert main(["memory", "index", "--check"]) == 0
    capsys.readouterr()
    assert sum(len(v) for v in acknowledged.values()) > 0  # some puts finished before their kill
    if len(commands) > 1:
        assert (project / MEMORY / "archive").is_dir()  # compactions merged entries


# -- merges ---------------------------------------------------------------------------------------


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stdout}{result.stderr}"
    return result


def put(root: Path, *args: str, epoch: int | None = None) -> None:
    env = {"SOURCE_DATE_EPOCH": str(epoch)} if epoch is not None else None
    result = lh("memory", "put", *args, cwd=root, env=env)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def repo(project: Path) -> Path:
    """The project as a git repository with one commit on main."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "commit.gpgsign", "false")
    put(project, "failures", "base: the cache key ignored the encoding", "--id", "e1", epoch=1_000_000)
    put(project, "failures", "base: tests flaked on the shared tmp dir", "--id", "e2", epoch=1_000_100)
    put(project, "failures", "base: a third note", epoch=1_000_200)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    return project


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def test_gitattributes_give_the_memory_files_the_union_driver(repo: Path) -> None:
    text = (repo / ".gitattributes").read_text("utf-8")
    assert text == (
        f"{ATTRIBUTES_START}\n.agents/memory/*.md merge=union text eol=lf\n"
        f".agents/memory/archive/*.md merge=union text eol=lf\n{BLOCK_END}\n"
    )
    for path in (f"{MEMORY}/failures.md", f"{MEMORY}/INDEX.md", f"{MEMORY}/archive/failures.md"):
        out = git(repo, "check-attr", "merge", "eol", "--", path).stdout
        assert out == f"{path}: merge: union\n{path}: eol: lf\n"


def test_gitattributes_block_keeps_the_users_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitattributes").write_text("*.png binary\r\n", encoding="utf-8")
    assert main(["init"]) == 0
    text = (tmp_path / ".gitattributes").read_bytes()
    assert (
        text
        == (
            f"*.png binary\r\n\r\n{ATTRIBUTES_START}\r\n.agents/memory/*.md merge=union text eol=lf\r\n"
            f".agents/memory/archive/*.md merge=union text eol=lf\r\n{BLOCK_END}\r\n"
        ).encode()
    )
    before = snapshot(tmp_path)
    assert main(["init"]) == 0
    assert snapshot(tmp_path) == before


def test_branches_adding_and_updating_entries_merge_without_conflict(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "topic")
    put(repo, "failures", "topic: the lock file was opened in text mode", epoch=2_000_000)
    put(repo, "quirks", "topic: tar on macOS lacks --wildcards", epoch=2_000_010)
    commit(repo, "topic 1")
    git(repo, "checkout", "-q", "main")
    put(repo, "failures", "main: pip needs --no-build-isolation", epoch=2_000_005)
    put(repo, "quirks", "main: the proxy strips auth headers", epoch=2_000_015)
    commit(repo, "main 1")
    git(repo, "checkout", "-q", "topic")
    put(repo, "failures", "topic: a multi-line note\nabout the proxy\n- and a list", epoch=2_000_020)
    put(repo, "failures", "base: the cache key ignored the encoding name", "--id", "e1", epoch=2_000_030)
    commit(repo, "topic 2")
    git(repo, "checkout", "-q", "main")
    put(repo, "failures", "main: another multi-line note\nabout the runner\n- with its own list", epoch=2_000_025)
    put(repo, "failures", "base: tests flaked on the shared tmp dir; use tmp_path", "--id", "e2", epoch=2_000_035)
    commit(repo, "main 2")

    git(repo, "merge", "-q", "--no-edit", "topic")
    assert "<<<<<<<" not in (repo / MEMORY / "failures.md").read_text("utf-8")
    assert lh("memory", "index", "--check", cwd=repo).returncode == 1
    assert lh("memory", "index", cwd=repo).returncode == 0
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0
    assert sorted(texts(repo, "failures")) == sorted(
        [
            "base: the cache key ignored the encoding name",
            "base: tests flaked on the shared tmp dir; use tmp_path",
            "base: a third note",
            "topic: the lock file was opened in text mode",
            "main: pip needs --no-build-isolation",
            "topic: a multi-line note\nabout the proxy\n- and a list",
            "main: another multi-line note\nabout the runner\n- with its own list",
        ]
    )
    assert sorted(texts(repo, "quirks")) == [
        "main: the proxy strips auth headers",
        "topic: tar on macOS lacks --wildcards",
    ]
    status = json.loads(lh("memory", "status", "--json", cwd=repo).stdout)
    assert {s["name"]: s["entries"] for s in status["shards"]}["failures"] == 7


def test_multi_line_notes_sharing_lines_that_union_interleaves_are_reported(repo: Path) -> None:
    """The limit of the union driver: two notes added on two branches that share a line (here a
    blank line and a list item) can come out interleaved. lh names the place and changes nothing;
    both texts are in the file for the person who merged to separate."""
    git(repo, "checkout", "-q", "-b", "topic")
    put(repo, "failures", "topic: a note\n\nwith a blank line\n\n- and a list", epoch=2_000_020)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    put(repo, "failures", "main: a note\n\nwith a blank line\n\n- and a list", epoch=2_000_025)
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "topic")
    shard = (repo / MEMORY / "failures.md").read_text("utf-8")
    assert "topic: a note" in shard
    assert "main: a note" in shard
    before = snapshot(repo)
    result = lh("memory", "index", cwd=repo)
    assert result.returncode == 2
    assert result.stderr.startswith(".agents/memory/failures.md:")
    assert result.stderr.endswith(" is not closed before the next entry starts\n")
    assert snapshot(repo) == before


@pytest.mark.parametrize("more", [False, True], ids=["alone", "with-other-entries"])
def test_the_same_text_added_on_both_branches_ends_up_once(repo: Path, more: bool) -> None:
    git(repo, "checkout", "-q", "-b", "topic")
    put(repo, "failures", "both found it: the runner has no IPv6", "--tag", "ci", epoch=3_000_000)
    if more:
        put(repo, "failures", "topic only", epoch=3_000_001)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    if more:
        put(repo, "failures", "main only", epoch=3_000_002)
    put(repo, "failures", "both found it: the runner has no IPv6", "--tag", "network", epoch=3_000_100)
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "topic")

    same_id = derive_id("failures", "both found it: the runner has no IPv6")
    check = lh("memory", "index", "--check", cwd=repo)
    assert check.returncode == 1
    assert check.stderr.splitlines() == [
        ".agents/memory/failures.md: entry " + same_id + " is stored more than once",
        '.agents/memory/INDEX.md is stale; run "lh memory index"',
    ]
    assert lh("memory", "index", cwd=repo).returncode == 0
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0
    entries = parse((repo / MEMORY / "failures.md").read_text("utf-8")).entries
    same = [e for e in entries if e.text == "both found it: the runner has no IPv6"]
    assert len(same) == 1
    assert same[0].tags == ("ci", "network")
    assert same[0].created == "1970-02-04T17:20:00Z"  # the earlier of the two
    assert len(entries) == 4 + (2 if more else 0)


@pytest.mark.parametrize("same_second", [False, True], ids=["seconds-apart", "same-second"])
def test_the_same_entry_changed_on_both_branches_is_reported_never_picked(repo: Path, same_second: bool) -> None:
    """Two versions of one entry are found by their content, whatever their times: in one second
    the headers differ by the text hash (`sha`) lh writes with a chosen id, so union cannot fuse them."""
    git(repo, "checkout", "-q", "-b", "topic")
    put(repo, "failures", "topic's version of e1", "--id", "e1", epoch=4_000_000)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    put(repo, "failures", "main's version of e1", "--id", "e1", epoch=4_000_000 if same_second else 4_000_100)
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "topic")

    shard = (repo / MEMORY / "failures.md").read_text("utf-8")
    assert "topic's version of e1" in shard
    assert "main's version of e1" in shard
    lines = shard.splitlines()
    first, second = (n for n, line in enumerate(lines, start=1) if 'id="e1" created=' in line)
    message = (
        f".agents/memory/failures.md:{second}: entry e1 (line {first}) starts again before its end marker;"
        " both sides of a merge probably changed it: keep the version you want between one pair of markers,"
        ' then run "lh memory index"\n'
    )
    before = snapshot(repo)
    for args in (["memory", "index"], ["memory", "put", "failures", "another note"], ["memory", "status"]):
        result = lh(*args, cwd=repo)
        assert result.returncode == 1
        assert result.stderr == message
    assert lh("memory", "index", "--check", cwd=repo).returncode == 1
    assert snapshot(repo) == before


def test_the_same_text_under_a_chosen_id_on_both_branches_ends_up_once(repo: Path) -> None:
    """Both headers carry the hash of the one text between them: the same content, kept once."""
    git(repo, "checkout", "-q", "-b", "topic")
    put(repo, "failures", "the cache key ignored the encoding", "--id", "new", epoch=4_000_000)
    commit(repo, "topic")
    git(repo, "checkout", "-q", "main")
    put(repo, "failures", "the cache key ignored the encoding", "--id", "new", epoch=4_000_100)
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-edit", "topic")
    assert lh("memory", "index", "--check", cwd=repo).returncode == 1
    assert lh("memory", "index", cwd=repo).returncode == 0
    entries = parse((repo / MEMORY / "failures.md").read_text("utf-8")).entries
    assert [e.id for e in entries].count("new") == 1
    assert lh("memory", "index", "--check", cwd=repo).returncode == 0


# -- hostile input --------------------------------------------------------------------------------

ENTRY = '<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" -->\n{text}\n<!-- /lh:entry -->\n'


def _seed(text: str) -> bytes:
    return ("# seed\n\n" + text).encode()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            _seed('<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nhalf-wri'),
            '.agents/memory/seed.md:3: entry a is not closed; add <!-- /lh:entry id="a" --> after its text',
            id="half-written",
        ),
        pytest.param(
            _seed("<<<<<<< HEAD\n" + ENTRY.format(key="a", text="x") + "=======\n>>>>>>> topic\n"),
            ".agents/memory/seed.md:3: git conflict marker; resolve the conflict (keep both entries), then run"
            ' "lh memory index"',
            id="conflict-markers",
        ),
        pytest.param(
            _seed(ENTRY.format(key="a", text="caf")).replace(b"caf", b"caf\xe9"),
            ".agents/memory/seed.md:4: not valid UTF-8 (byte 67); re-save the file as UTF-8",
            id="invalid-utf8",
        ),
        pytest.param(
            _seed('<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\none\n<!-- /lh:entry id="b" -->\n'),
            ".agents/memory/seed.md:5: the end marker of entry b closes entry a (line 3); a merge interleaved two"
            ' entries: put each text between its own markers, then run "lh memory index"',
            id="interleaved",
        ),
        pytest.param(
            _seed(ENTRY.format(key="a", text="one") + "\n" + ENTRY.format(key="a", text="two")),
            ".agents/memory/seed.md:7: entry a appears again with other text (first on line 3); both sides of a"
            ' merge probably changed it: keep one version, or give the other its own id, then run "lh memory index"',
            id="same-id-other-text",
        ),
    ],
)
def test_broken_shards_are_named_and_never_rewritten(
    project: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    (project / MEMORY / "seed.md").write_bytes(content)
    before = snapshot(project)
    capsys.readouterr()
    code = 1 if "both sides of a merge" in message else 2  # two versions of one entry: a problem found
    for args in (["memory", "put", "seed", "x"], ["memory", "put", "failures", "y"], ["memory", "index"]):
        assert main(args) == code, args
        assert capsys.readouterr().err == message + "\n"
    assert main(["memory", "index", "--check"]) == code
    assert capsys.readouterr().err == message + "\n"
    assert snapshot(project) == before


@pytest.mark.parametrize(
    ("size", "message"),
    [
        (  # past the cap already
            64 * 1024 * 1024 + 1,
            ".agents/memory/seed.md is 67108865 bytes, over the 67108864 byte limit for a shard;"
            ' split it or run "lh memory compact"\n',
        ),
        (  # at the cap: one more entry passes it
            64 * 1024 * 1024,
            ".agents/memory/seed.md would be 67108972 bytes, over the 67108864 byte limit for a shard;"
            ' nothing was written. Run "lh memory compact" first\n',
        ),
    ],
)
def test_a_write_to_a_shard_at_or_past_its_cap_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], size: int, message: str
) -> None:
    with open(project / MEMORY / "seed.md", "r+b") as handle:
        handle.truncate(size)  # sparse: quick to make
    before = {p: p.stat().st_size for p in (project / MEMORY).iterdir()}
    capsys.readouterr()
    assert main(["memory", "put", "seed", "x"]) == 2
    assert capsys.readouterr().err == message
    assert {p: p.stat().st_size for p in (project / MEMORY).iterdir()} == before


HAND_EDIT_BEFORE_COMMIT = """
import runpy, sys
from pathlib import Path
from lean_harness.memory import journal
commit = journal.commit
def saved_meanwhile(folder, changes, *args, **kwargs):
    with open(Path(folder) / "seed.md", "a", encoding="utf-8") as handle:
        handle.write("A line saved by hand in an editor.\\n")
    return commit(folder, changes, *args, **kwargs)
journal.commit = saved_meanwhile
sys.argv = ["lh", *sys.argv[1:]]
runpy.run_module("lean_harness", run_name="__main__")
"""


def test_a_supersede_never_writes_over_a_hand_edit_saved_while_it_ran(project: Path) -> None:
    assert main(["memory", "put", "seed", "--id", "old", "Deploys go out on Fridays"]) == 0
    args = ("memory", "put", "seed", "--id", "new", "Deploys go out on Tuesdays", "--supersedes", "old")
    done = subprocess.run(
        [sys.executable, "-c", HAND_EDIT_BEFORE_COMMIT, *args], cwd=project, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (
        2,
        "seed.md in the memory dir changed while lh wrote it; nothing was written. Run the command again\n",
    )
    seed = (project / MEMORY / "seed.md").read_text("utf-8")
    assert "A line saved by hand in an editor." in seed
    assert "Deploys go out on Fridays" in seed
    assert "Tuesdays" not in seed


# -- a kill, then another branch ------------------------------------------------------------------

# Runs lh, killing it as it renames its first file into the memory dir: after the journal is written.
AFTER_COMMIT_POINT = """
import os, signal, sys, runpy
replace = os.replace
def killing(source, target, *args, **kwargs):
    if "/.agents/memory/" in str(target).replace(os.sep, "/"):
        os.kill(os.getpid(), signal.SIGKILL)
    return replace(source, target, *args, **kwargs)
os.replace = killing
sys.argv = ["lh", *sys.argv[1:]]
runpy.run_module("lean_harness", run_name="__main__")
"""


@POSIX_ONLY
def test_a_compaction_killed_after_its_commit_point_never_overwrites_another_branch(project: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "commit.gpgsign", "false")
    assert lh("config", "set", "memory.tokenBudget", "200", cwd=project).returncode == 0
    assert lh("config", "set", "memory.keepNewest", "2", cwd=project).returncode == 0
    for number in range(8):
        put(project, "failures", f"note {number}: the lock file stays after a crash\ndetail: fsync the folder {number}")
    commit(project, "main")
    git(project, "checkout", "-q", "-b", "other")
    put(project, "failures", "on other: the runner image pins python 3.11")
    commit(project, "other")
    git(project, "checkout", "-q", "main")
    assert killed_at(0, project, AFTER_COMMIT_POINT, "memory", "compact", "--force") == -9
    assert (project / ".agents/.cache/lh/journal").exists()
    git(project, "checkout", "-q", "other")
    theirs = snapshot(project)
    status = lh("memory", "status", cwd=project)  # a reader: it would replay the journal first
    assert status.returncode == 0, status.stderr
    now = snapshot(project)
    assert {k: v for k, v in now.items() if k.startswith(MEMORY + "/") and not k.endswith(".tmp")} == {
        k: v for k, v in theirs.items() if k.startswith(MEMORY + "/") and not k.endswith(".tmp")
    }
    assert "on other: the runner image pins python 3.11" in texts(project, "failures")
    assert not (project / ".agents/.cache/lh/journal").exists()
    assert (project / ".agents/.cache/lh/journal.unapplied").exists()
    doctor = lh("doctor", cwd=project)
    assert (
        ".agents/.cache/lh/journal.unapplied records a write lh was stopped in and did not finish: its files"
        " changed since (another branch checked out, or an edit), so none of it was applied"
    ) in doctor.stdout
    assert "then delete .agents/.cache/lh/journal.unapplied" in doctor.stdout


def test_temp_files_a_killed_import_or_consolidation_left_are_swept(project: Path) -> None:
    """The import records' and the consumed-note markers' folders get the temp files of their commits too."""
    git(project, "init", "-q", "-b", "main")
    old = time.time() - 3600
    left = [
        project / MEMORY / ".imports" / ".claude-0123abcd.json.k2j4h5g6.tmp",
        project / MEMORY / ".pending" / ".consumed" / f".{'ab' * 32}.x9y8z7w6.tmp",
        project / MEMORY / ".pending" / ".note.md.a1b2c3d4.tmp",
    ]
    for path in left:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half of a record")
        os.utime(path, (old, old))
    put(project, "failures", "a write sweeps what killed writers left")
    assert [path for path in left if path.exists()] == []
    untracked = git(project, "status", "--porcelain", "--untracked-files=all").stdout
    assert ".tmp" not in untracked
