"""The search index cached per shard: appends indexed alone, other changes rebuilt, exactly as a full build ranks."""

from __future__ import annotations

import json
import marshal
import os
import random
import shutil
import subprocess
import time
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle, prose, scans
from lean_harness.memory.search import query, search, search_cache
from lean_harness.memory.shard import parse
from lean_harness.scanning import credentials
from support import lh
from test_secrets_cli import github_token, hand_write

MEMORY = ".agents/memory"
CACHE = ".agents/.cache/lh/search"
SUBJECTS = ["lock", "cache", "retry", "fsync", "proxy", "token", "upload", "scheduler", "windows", "sqlite"]
VERBS = ["hangs", "fails", "times out", "leaks", "retries", "crashes", "slows down", "corrupts"]
CAUSES = ["the CI runner", "a stale temp file", "HttpClient.retryPolicy", "parse_config", "os.replace", "the proxy"]
QUERIES = [
    "why does the lock hang on windows",
    "retryPolicy timeout",
    "sqlite database is locked",
    "stale temp file after os.replace",
    "parse config",
    "uploads",
    "schedul",  # completed as a prefix
    "lockfile",  # rejoined from known parts
    "kubernetes helm",  # nothing holds it
]


def note(rng: random.Random) -> str:
    subject, verb, cause = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(CAUSES)
    extra = " ".join(rng.choice(SUBJECTS + VERBS) for _ in range(rng.randrange(0, 12)))
    return f"{subject} {verb} because of {cause}\nseen {rng.randrange(1, 99)} times; {extra}"


def put(rng: random.Random, count: int) -> None:
    for _ in range(count):
        shard = rng.choice(["failures", "insights", "quirks"])
        tags = [f"--tag={rng.choice(SUBJECTS)}"] if rng.random() < 0.5 else []
        assert main(["memory", "put", shard, note(rng), *tags]) == 0


def answers(capsys: pytest.CaptureFixture[str]) -> list[object]:
    """Every query's hits with their scores, and the shard and tag filters."""
    found: list[object] = []
    for text in QUERIES:
        for extra in ([], ["--shard", "failures"], ["--tag", "lock"]):
            capsys.readouterr()
            args = ["memory", "get", "--json", "--query", text, "--min-score", "0", "--limit", "40"]
            assert main([*args, "--max-tokens", "100000", *extra]) == 0
            data = json.loads(capsys.readouterr().out)
            found.append([(r["shard"], r["id"], r["score"], r["matched"], r["text"]) for r in data["results"]])
    return found


def reference(root: Path) -> list[list[search.Hit]]:
    """The hits of one index built over every entry and prose block at once, from a parse of each shard."""
    memory = handle.open_memory(load(root))
    docs = []
    for name in memory.config.shard_names:
        path = memory.shard_path(name)
        if path.exists():
            shard = parse(path.read_bytes().decode("utf-8").removeprefix("\ufeff"))
            docs += [search.Doc(e.id, name, e.created, e.tags, e.text) for e in shard.entries]
            docs += [search.Doc(f"@{b.line}", name, "", (), b.text) for b in prose.blocks(shard)]
    index = search.Index.build(docs)
    return [index.search(text, limit=40) for text in QUERIES]


def incremental(root: Path) -> list[list[search.Hit]]:
    index = query.load_index(handle.open_memory(load(root)))
    return [index.search(text, limit=40) for text in QUERIES]


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cached index answers as one rebuilt from nothing, and ranks as a single full build."""
    assert incremental(root) == reference(root)
    cached = answers(capsys)
    shutil.rmtree(root / CACHE)
    assert answers(capsys) == cached


def segments(root: Path, shard: str) -> int:
    cached = search_cache.read(root / CACHE / f"{shard}.idx")
    assert cached is not None
    return len(cached.segments)


@pytest.fixture
def memory(project: Path) -> Path:
    put(random.Random(7), 30)
    return project


def test_puts_are_indexed_as_appended_segments_that_rank_as_a_full_build(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    assert segments(memory, "failures") == 1
    rng = random.Random(8)
    for _ in range(3):
        assert main(["memory", "put", "failures", note(rng)]) == 0
        assert incremental(memory) == reference(memory)
    assert main(["memory", "put", "failures", "Tests of the scheduler hang on Windows", "--tag", "lock"]) == 0
    assert main(["memory", "put", "failures", note(rng)]) == 0  # two puts, one query: one segment for both
    assert incremental(memory) == reference(memory)
    assert segments(memory, "failures") == 5
    check(memory, capsys)


def test_many_appends_are_merged_and_still_rank_as_a_full_build(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    rng = random.Random(9)
    counts = []
    for number in range(search_cache.DELTAS + 3):
        assert main(["memory", "put", "quirks", note(rng)]) == 0
        assert incremental(memory) == reference(memory), number
        counts.append(segments(memory, "quirks"))
    assert counts == [2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3]  # the ninth: nine entries, over a quarter of the first
    check(memory, capsys)


def test_a_hand_edit_rebuilds_only_its_shard(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers(capsys)
    path = memory / MEMORY / "insights.md"
    others = {p.name: p.read_bytes() for p in (memory / CACHE).iterdir() if p.name != "insights.idx"}
    text = path.read_text("utf-8")
    path.write_text(text.replace(" because of ", " since ", 3) + "\nA loose paragraph about the lock proxy.\n", "utf-8")
    assert incremental(memory) == reference(memory)
    assert {p.name: p.read_bytes() for p in (memory / CACHE).iterdir() if p.name != "insights.idx"} == others
    check(memory, capsys)


ENTRY = '\n<!-- lh:entry id="{key}" created="2026-01-02T03:04:05Z" -->\nthe {key} proxy lock\n<!-- /lh:entry -->\n'


@pytest.mark.parametrize(
    ("before", "tail"),
    [
        pytest.param("", "\nA loose paragraph about the windows lock.\n", id="prose"),
        pytest.param("", ENTRY.format(key="a") + "\nthen a loose paragraph\n", id="entry-then-prose"),
        pytest.param("Loose prose at the end.\n", ENTRY.format(key="b"), id="entry-after-prose"),
        pytest.param("Loose prose, no newline.", "\n" + ENTRY.format(key="c"), id="line-completed"),
        pytest.param(ENTRY.format(key="d").rstrip("\n"), ENTRY.format(key="g"), id="after-no-newline"),
    ],
)
def test_an_append_of_anything_but_whole_entries_rebuilds_the_shard(
    memory: Path, capsys: pytest.CaptureFixture[str], before: str, tail: str
) -> None:
    path = memory / MEMORY / "failures.md"
    path.write_text(path.read_text("utf-8") + before, "utf-8")
    answers(capsys)
    path.write_text(path.read_text("utf-8") + tail, "utf-8")
    assert incremental(memory) == reference(memory)
    assert segments(memory, "failures") == 1
    check(memory, capsys)


def test_a_broken_append_is_told_as_a_full_read_tells_it(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers(capsys)
    path = memory / MEMORY / "failures.md"
    lines = path.read_text("utf-8").count("\n")
    path.write_text(path.read_text("utf-8") + '\n<!-- lh:entry id="cut" created="2026-01-02T03:04:05Z" -->\nno end\n')
    capsys.readouterr()
    assert main(["memory", "get", "--query", "lock"]) == 2
    assert capsys.readouterr().err == (
        f".agents/memory/failures.md:{lines + 2}: entry cut is not closed;"
        ' add <!-- /lh:entry id="cut" --> after its text\n'
    )


def test_an_appended_entry_after_an_unchanged_prefix_is_one_more_segment(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    path = memory / MEMORY / "failures.md"
    path.write_text(path.read_text("utf-8") + ENTRY.format(key="e") + ENTRY.format(key="f"), "utf-8")
    assert incremental(memory) == reference(memory)
    assert segments(memory, "failures") == 2
    check(memory, capsys)


def test_compaction_and_a_branch_switch_rank_as_a_full_build(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=memory, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "memory")
    answers(capsys)
    git("checkout", "-qb", "other")
    put(random.Random(10), 6)
    answers(capsys)
    git("add", "-A")
    git("commit", "-qm", "more")
    git("checkout", "-q", "main")  # the shards shrink back: no longer an append of the cached bytes
    assert incremental(memory) == reference(memory)
    check(memory, capsys)
    git("checkout", "-q", "other")
    assert incremental(memory) == reference(memory)
    assert main(["config", "set", "memory.tokenBudget", "400"]) == 0
    assert main(["config", "set", "memory.keepNewest", "2"]) == 0
    assert main(["memory", "compact"]) in (0, 1)  # 1: still above the target, digests kept
    assert (memory / MEMORY / "archive").is_dir()
    assert incremental(memory) == reference(memory)
    check(memory, capsys)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:-1], id="last-byte-cut"),
        pytest.param(lambda data: data[:200] + b"\xff" * 40 + data[240:], id="overwritten"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"lh-search/1/x " + data.partition(b" ")[2], id="other-format"),
        pytest.param(lambda data: data.replace(b" 1\n", b" 2\n", 1), id="bad-header"),
    ],
)
def test_a_damaged_cache_file_is_rebuilt(memory: Path, capsys: pytest.CaptureFixture[str], damage: object) -> None:
    fresh = answers(capsys)
    for path in (memory / CACHE).iterdir():
        path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert answers(capsys) == fresh
    for path in (memory / CACHE).iterdir():
        assert search_cache.read(path) is not None, path.name


def test_the_cache_never_holds_a_flagged_credential(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers(capsys)
    token, tagged = github_token(5), github_token(6)
    hand_write(memory, "quirks", "pasted", f"deploy token {token} for the proxy")  # an append: one more segment
    path = memory / MEMORY / "quirks.md"
    path.write_text(
        path.read_text("utf-8")
        + f'\n<!-- lh:entry id="tagged" created="2026-01-02T03:04:05Z" tags="{tagged.lower()}" -->\n'
        + "proxy note\n<!-- /lh:entry -->\n",
        "utf-8",
    )
    result = lh("memory", "get", "--query", "deploy token proxy", "--json", cwd=memory)
    assert result.returncode == 0, result.stderr
    assert token[4:] not in result.stdout + result.stderr
    assert json.loads(result.stdout)["results"][0]["text"] == "deploy token ghp_******** for the proxy"
    assert segments(memory, "quirks") == 2
    for rebuilt in (False, True):
        if rebuilt:
            shutil.rmtree(memory / CACHE)
            answers(capsys)
        data = b"".join(p.read_bytes() for p in (memory / CACHE).iterdir())
        assert token[4:].encode() not in data
        assert tagged[4:].lower().encode() not in data


def test_a_hit_is_read_from_its_span_even_when_its_id_appears_in_another_entry(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "put", "failures", 'an earlier note that quotes id="later" in its text']) == 0
    assert main(["memory", "put", "failures", "the later note about uploads", "--id", "later"]) == 0
    capsys.readouterr()
    assert main(["memory", "get", "--json", "--query", "later uploads"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert (results[0]["id"], results[0]["text"]) == ("later", "the later note about uploads")


def test_spans_hold_in_a_crlf_shard_with_a_byte_order_mark_and_non_ascii_text(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for number in range(3):
        assert main(["memory", "put", "failures", f"lock note {number} über the proxy"]) == 0
    path = project / MEMORY / "failures.md"
    text = path.read_text("utf-8").replace("\n", "\r\n")
    path.write_bytes(("\ufeff" + text).encode())
    answers(capsys)
    entry = '\r\n<!-- lh:entry id="crlf" created="2026-01-02T03:04:05Z" -->\r\nlock über proxy, appended\r\n'
    path.write_bytes(path.read_bytes() + (entry + '<!-- /lh:entry id="crlf" -->\r\n').encode())
    capsys.readouterr()
    assert main(["memory", "get", "--json", "--query", "lock über proxy", "--min-score", "0"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert results[0]["text"] == "lock über proxy, appended"
    assert sorted(r["text"] for r in results[1:]) == [  # equal scores: the order is by time and id
        "lock note 0 über the proxy",
        "lock note 1 über the proxy",
        "lock note 2 über the proxy",
    ]
    assert segments(project, "failures") == 2
    cached = search_cache.read(project / CACHE / "failures.idx")
    assert cached is not None
    assert cached.sha256 == handle.open_memory(load(project)).summary("failures").sha256  # not re-read each query
    data = path.read_bytes()
    for part in cached.segments:
        for number, key in enumerate(part.ids):
            start, end = part.span(number)  # the mark's 3 bytes counted: each span holds its entry
            assert data[start:end].startswith(f'<!-- lh:entry id="{key}"'.encode()), key
    check(project, capsys)


# A shard whose every entry scanned clean when it was indexed is vouched for with the user's key
# (adr/0029), and its hits are printed without being scanned again. Nothing else vouches for it.


def _vouched(root: Path, shard: str) -> bool:
    cached = search_cache.read(root / CACHE / f"{shard}.idx")
    assert cached is not None
    return cached.clean


def _query(text: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    """The texts a JSON query prints, and all it prints."""
    capsys.readouterr()
    assert main(["memory", "get", "--json", "--query", text, "--min-score", "0"]) == 0
    out, err = capsys.readouterr()
    return [r["text"] for r in json.loads(out)["results"]], out + err


def test_a_clean_shard_is_vouched_for_and_stays_so_through_puts(memory: Path) -> None:
    assert main(["memory", "get", "--query", "lock"]) == 0
    assert all(_vouched(memory, name) for name in ("failures", "insights", "quirks"))
    assert main(["memory", "put", "failures", "the proxy hangs on a stale lock"]) == 0
    assert main(["memory", "get", "--query", "proxy"]) == 0
    assert segments(memory, "failures") == 2  # the put was indexed on its own
    assert _vouched(memory, "failures")


def test_a_credential_written_by_hand_after_the_vouch_is_masked(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = github_token(5)
    assert main(["memory", "get", "--query", "lock"]) == 0
    assert _vouched(memory, "failures")
    hand_write(memory, "failures", "appended", f"the proxy token is {token}")  # indexed on its own
    texts, err = _query("proxy token", capsys)
    assert "the proxy token is ghp_********" in texts
    assert token not in "".join(texts) + err
    assert 'entry appended holds what looks like a credential (masked here); run \\"lh memory scan\\"' in err
    assert segments(memory, "failures") == 2
    assert not _vouched(memory, "failures")
    path = memory / MEMORY / "failures.md"  # an edit anywhere else rebuilds, and vouches for nothing either
    path.write_text(path.read_text("utf-8").replace("proxy token", "proxy key"), encoding="utf-8")
    texts, err = _query("proxy key", capsys)
    assert "the proxy key is ghp_********" in texts
    assert token not in "".join(texts) + err
    assert (segments(memory, "failures"), _vouched(memory, "failures")) == (1, False)


@pytest.mark.parametrize("forged", ["another-shard", "made-up", "other-key"])
def test_a_cache_that_vouches_for_itself_is_not_believed(
    memory: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forged: str
) -> None:
    token = github_token(6)
    hand_write(memory, "failures", "planted", f"the proxy token is {token}")
    assert main(["memory", "get", "--query", "lock"]) == 0
    assert not _vouched(memory, "failures")
    path = memory / CACHE / "failures.idx"
    head, _, rest = path.read_bytes().partition(b"\n")
    if forged == "another-shard":  # a signature this user's lh made, for other bytes
        signature = (memory / CACHE / "insights.idx").read_bytes().split(b"\n", 1)[0].split(b" ")[-1]
    elif forged == "made-up":
        signature = b"0" * 64
    else:  # a signature made with another user's key, for these very bytes
        mine = os.environ["XDG_CACHE_HOME"]
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-user"))
        digest = head.split(b" ")[1].decode()
        signature = scans.vouch(digest, search_cache.CLEAN_NAME, credentials.__file__).encode()
        monkeypatch.setenv("XDG_CACHE_HOME", mine)
    assert len(signature) == 64
    path.write_bytes(b" ".join([*head.split(b" ")[:-1], signature]) + b"\n" + rest)
    texts, err = _query("proxy token", capsys)
    assert "the proxy token is ghp_********" in texts
    assert token not in "".join(texts) + err


def test_without_a_user_key_nothing_is_vouched_for_and_hits_are_scanned(
    memory: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # the key's folder cannot be made
    token = github_token(7)
    hand_write(memory, "failures", "by-hand", f"the proxy token is {token}")
    texts, err = _query("proxy token", capsys)
    assert "the proxy token is ghp_********" in texts
    assert token not in "".join(texts) + err
    assert not any(_vouched(memory, name) for name in ("failures", "insights", "quirks"))


def _replanted(path: Path, change: Callable[[list[object]], None]) -> None:
    """Rewrite a cache file's first segment with `change` made to its values, under a valid checksum."""
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    values = list(marshal.loads(body[10:])[0])
    change(values)
    payload = marshal.dumps([tuple(values)], 4)
    path.write_bytes(head + b"\n" + body[:6] + zlib.crc32(payload).to_bytes(4, "little") + payload)


def _longer_first_posting(values: list[object]) -> None:
    ends = array("I", values[9])  # type: ignore[arg-type]
    values[9] = array("I", [end + 3 for end in ends[:-1]] + [ends[-1]]).tobytes()


def _prose_id_without_a_line(values: list[object]) -> None:
    values[0] = ["@x" for _ in values[0]]  # type: ignore[attr-defined]


def _no_shard_names(values: list[object]) -> None:
    values[2] = []  # the index is made from the segments' shard names when it is loaded


def _body_total_past_a_float(values: list[object]) -> None:
    values[5] = 10**400  # an average length no float holds


def _postings_of_lock_alone(values: list[object]) -> None:
    """Every term but "lock" renamed to one no other shard has, in no entry: the entries that hold
    "lock" then hold words that no entry holds."""
    terms, ends, blob = values[8], array("I", values[9]), values[10]  # type: ignore[arg-type]
    assert isinstance(terms, list)
    assert isinstance(blob, bytes)
    at = terms.index("lock")
    posting = blob[ends[at - 1] if at else 0 : ends[at]]
    values[8] = [term if term == "lock" else f"{term}\0" for term in terms]  # sorted as before
    values[9] = array("I", [0] * at + [len(posting)] * (len(terms) - at)).tobytes()
    values[10] = posting


def _span_past_any_shard(values: list[object]) -> None:
    spans = array("Q", values[12])  # type: ignore[arg-type]
    spans[1] = 1 << 62  # the first entry's end: a read of that many bytes cannot be made
    values[12] = spans.tobytes()


@pytest.mark.parametrize(
    "damage",
    [
        _longer_first_posting,
        _prose_id_without_a_line,
        _no_shard_names,
        _body_total_past_a_float,
        _span_past_any_shard,
    ],
)
def test_a_cache_file_with_a_valid_checksum_but_a_broken_layout_is_rebuilt(
    memory: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[list[object]], None]
) -> None:
    expected = answers(capsys)
    path = memory / CACHE / "failures.idx"
    _replanted(path, damage)
    assert answers(capsys) == expected
    check(memory, capsys)


def test_lint_and_doctor_read_past_a_broken_cache_file_as_a_query_does(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = [main(["memory", "lint"]), main(["doctor", "--json"])]
    expected = capsys.readouterr()
    _replanted(memory / CACHE / "failures.idx", _longer_first_posting)
    assert [main(["memory", "lint"]), main(["doctor", "--json"])] == before
    assert capsys.readouterr() == expected


@pytest.mark.parametrize(("field", "value"), [(1, "é".encode() * 32), (2, b"9" * 5000)])
def test_a_cache_file_whose_header_names_a_digest_or_size_no_shard_has_is_rebuilt(
    memory: Path, capsys: pytest.CaptureFixture[str], field: int, value: bytes
) -> None:
    expected = answers(capsys)
    path = memory / CACHE / "failures.idx"
    head, _, rest = path.read_bytes().partition(b"\n")
    fields = head.split(b" ")
    fields[field] = value
    path.write_bytes(b" ".join(fields) + b"\n" + rest)
    assert answers(capsys) == expected
    check(memory, capsys)


def test_a_planted_cache_file_that_breaks_a_query_on_a_division_is_rebuilt(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    _replanted(memory / CACHE / "failures.idx", _postings_of_lock_alone)
    done = lh("memory", "get", "--query", "lock", "--limit", "1", cwd=memory)  # "lock" is widened by its associations
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("[")
    check(memory, capsys)


# A vouch is checked against the digest in the shard's summary, which is trusted by size, mtime
# and inode; a hit is then printed unscanned only when the bytes read at its span are the ones
# indexed (their CRC-32, recorded with the span).
def test_a_credential_written_in_place_under_the_same_size_time_and_inode_is_masked(project: Path) -> None:
    note = "the proxy password rotation lives in the vault, see runbook page twelve"
    assert lh("memory", "put", "failures", note, cwd=project).returncode == 0
    path = project / MEMORY / "failures.md"
    past = time.time() - 3600
    os.utime(path, (past, past))  # older than the clock's resolution: its summary is now trusted by stat
    assert lh("memory", "get", "--query", "proxy password", cwd=project).returncode == 0
    assert _vouched(project, "failures")
    token = github_token(9)
    old, new = "lives in the vault, see runbook page twelve", f"is {token}"
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes().replace(old.encode(), new.encode())
    with open(path, "r+b") as handle:  # in place: the same inode, the same size
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    done = lh("memory", "get", "--query", "proxy password", cwd=project)
    leaked = token in done.stdout + done.stderr  # not shown by a failing assertion
    assert not leaked
    assert done.stdout.splitlines()[1] == "the proxy password rotation is ghp_********"


def test_a_key_the_repository_holds_where_a_relative_cache_home_points_vouches_for_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = github_token(10)
    hand_write(project, "failures", "planted", f"the proxy token is {token}")
    planted = project / ".cache"  # a relative XDG_CACHE_HOME names a folder of the project
    (planted / "lean-harness").mkdir(parents=True)
    (planted / "lean-harness" / "key").write_bytes(b"k" * 32)
    relative = {"XDG_CACHE_HOME": ".cache"}
    assert lh("memory", "get", "--query", "proxy", cwd=project, env=relative).returncode == 0
    path = project / CACHE / "failures.idx"
    head, _, rest = path.read_bytes().partition(b"\n")
    fields = head.split(b" ")
    monkeypatch.setenv("XDG_CACHE_HOME", str(planted))
    fields[4] = scans.vouch(fields[1].decode(), search_cache.CLEAN_NAME, credentials.__file__).encode()
    path.write_bytes(b" ".join(fields) + b"\n" + rest)
    done = lh("memory", "get", "--query", "proxy token", cwd=project, env=relative)
    leaked = token in done.stdout + done.stderr  # not shown by a failing assertion
    assert not leaked
    assert done.stdout.splitlines()[1] == "the proxy token is ghp_********"
    assert (planted / "lean-harness" / "key").read_bytes() == b"k" * 32
    assert sorted(p.name for p in (planted / "lean-harness").iterdir()) == ["key"]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
@pytest.mark.parametrize("folder", ["search", "shards", "tokens"])
def test_a_linked_cache_folder_is_refused_and_nothing_is_written_through_it(
    memory: Path, tmp_path: Path, folder: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cache = memory / ".agents/.cache/lh"
    shutil.rmtree(cache / folder, ignore_errors=True)
    (cache / folder).symlink_to(outside, target_is_directory=True)
    done = lh("memory", "get", "--query", "lock", cwd=memory)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f".agents/.cache/lh/{folder} is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself\n"
    )
    assert list(outside.iterdir()) == []


def test_a_verdict_is_stamped_with_the_scanner_and_the_engine_it_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scans, "_STAMPS", {})
    (tmp_path / "scanner.py").write_text("RULES = 1\n", encoding="utf-8")
    for part in ("engine.py", "finding.py", "fold.py"):
        (tmp_path / part).write_text("GATES = 1\n", encoding="utf-8")
    scanner = str(tmp_path / "scanner.py")
    signature = scans.vouch("d" * 64, "search-clean", scanner)
    assert scans.vouched("d" * 64, signature, "search-clean", scanner)
    (tmp_path / "engine.py").write_text("GATES = 2\n", encoding="utf-8")  # how each rule runs
    monkeypatch.setattr(scans, "_STAMPS", {})  # a new process
    assert not scans.vouched("d" * 64, signature, "search-clean", scanner)
    (tmp_path / "engine.py").unlink()
    monkeypatch.setattr(scans, "_STAMPS", {})
    assert scans.vouch("d" * 64, "search-clean", scanner) == ""  # no source to stamp: nothing is vouched for


def test_verdicts_are_stamped_with_the_scanner_that_runs() -> None:
    assert Path(scans.CREDENTIALS).samefile(credentials.__file__)
