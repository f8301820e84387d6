"""The search index cached per shard: a changed shard indexed again whole, a cache file never trusted."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import time
from array import array
from collections.abc import Callable
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle, prose
from lean_harness.memory.search import query, search, segment
from lean_harness.memory.search.segment import Segment
from lean_harness.memory.shard import parse
from support import lh
from test_scan import github_token, hand_write
from test_segment import packed, unpacked

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
    memory = handle.open_memory(load(root))
    return query.using_index(memory, lambda index: [index.search(text, limit=40) for text in QUERIES])


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cached index answers as one rebuilt from nothing, and ranks as a single full build."""
    assert incremental(root) == reference(root)
    cached = answers(capsys)
    shutil.rmtree(root / CACHE)
    assert answers(capsys) == cached


def cached(root: Path, shard: str) -> Segment:
    """The segment a shard's cache file holds, read as a query reads it (the file must match the shard)."""
    folder = root / (f"{MEMORY}.local" if shard == "personal" else MEMORY)  # the personal scope's folder
    digest = hashlib.sha256((folder / f"{shard}.md").read_bytes()).hexdigest()
    head, found = segment.from_bytes((root / CACHE / f"{shard}.idx").read_bytes(), shard)
    assert head["sha256"] == digest
    return found


@pytest.fixture
def memory(project: Path) -> Path:
    put(random.Random(7), 30)
    return project


def test_puts_reindex_their_shard_alone_and_rank_as_a_full_build(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    rng = random.Random(8)
    for _ in range(3):
        others = {p.name: p.read_bytes() for p in (memory / CACHE).iterdir() if p.name != "failures.idx"}
        assert main(["memory", "put", "failures", note(rng)]) == 0
        assert incremental(memory) == reference(memory)
        assert {p.name: p.read_bytes() for p in (memory / CACHE).iterdir() if p.name != "failures.idx"} == others
    assert main(["memory", "put", "failures", "Tests of the scheduler hang on Windows", "--tag", "lock"]) == 0
    assert main(["memory", "put", "failures", note(rng)]) == 0
    assert incremental(memory) == reference(memory)
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
        pytest.param("", ENTRY.format(key="e") + ENTRY.format(key="f"), id="whole-entries"),
    ],
)
def test_anything_appended_by_hand_ranks_as_a_full_build(
    memory: Path, capsys: pytest.CaptureFixture[str], before: str, tail: str
) -> None:
    path = memory / MEMORY / "failures.md"
    path.write_text(path.read_text("utf-8") + before, "utf-8")
    answers(capsys)
    path.write_text(path.read_text("utf-8") + tail, "utf-8")
    assert incremental(memory) == reference(memory)
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
        pytest.param(lambda data: data.replace(b'"lh-search/', b'"lh-search/0', 1), id="other-format"),
        pytest.param(lambda data: b"[" * 100_000 + b"]" * 100_000, id="deeply-nested"),
        pytest.param(lambda data: b"\x80\x04K\x01.", id="a-pickle"),
    ],
)
def test_a_damaged_cache_file_is_rebuilt(memory: Path, capsys: pytest.CaptureFixture[str], damage: object) -> None:
    fresh = answers(capsys)
    for path in (memory / CACHE).iterdir():
        path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert answers(capsys) == fresh
    for path in (memory / CACHE).iterdir():
        cached(memory, path.stem)


def test_a_cache_file_of_other_bytes_is_not_used(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers(capsys)
    (memory / CACHE / "quirks.idx").write_bytes((memory / CACHE / "failures.idx").read_bytes())
    assert incremental(memory) == reference(memory)  # the hash is of failures.md, not of quirks.md
    quirks = parse((memory / MEMORY / "quirks.md").read_text("utf-8"))
    assert sorted(cached(memory, "quirks").ids) == sorted(e.id for e in quirks.entries)  # rebuilt for quirks.md
    check(memory, capsys)


def test_the_cache_never_holds_a_flagged_credential(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers(capsys)
    token, tagged = github_token(5), github_token(6)
    hand_write(memory, "quirks", "pasted", f"deploy token {token} for the proxy")
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
    part = cached(project, "failures")
    data = path.read_bytes()
    assert len(part.ids) == 4
    for number, key in enumerate(part.ids):
        start, end = part.span(number)  # the mark's 3 bytes counted: each span holds its entry
        assert data[start:end].startswith(f'<!-- lh:entry id="{key}"'.encode()), key
    check(project, capsys)


# Every hit a query prints is scanned for credentials as the shard holds it now: nothing the
# cache says spares a hit the scan.


def _query(text: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    """The texts a JSON query prints, and all it prints."""
    capsys.readouterr()
    assert main(["memory", "get", "--json", "--query", text, "--min-score", "0"]) == 0
    out, err = capsys.readouterr()
    return [r["text"] for r in json.loads(out)["results"]], out + err


def test_a_credential_written_by_hand_is_masked(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token = github_token(5)
    assert main(["memory", "get", "--query", "lock"]) == 0
    hand_write(memory, "failures", "appended", f"the proxy token is {token}")
    texts, err = _query("proxy token", capsys)
    assert "the proxy token is ghp_********" in texts
    assert token not in "".join(texts) + err
    assert 'entry appended holds what looks like a credential (masked here); run \\"lh memory scan\\"' in err
    path = memory / MEMORY / "failures.md"
    path.write_text(path.read_text("utf-8").replace("proxy token", "proxy key"), encoding="utf-8")
    texts, err = _query("proxy key", capsys)
    assert "the proxy key is ghp_********" in texts
    assert token not in "".join(texts) + err


# A shard's summary is trusted by size, mtime and inode; a hit is still scanned as it is read.
def test_a_credential_written_in_place_under_the_same_size_time_and_inode_is_masked(project: Path) -> None:
    note = "the proxy password rotation lives in the vault, see runbook page twelve"
    assert lh("memory", "put", "failures", note, cwd=project).returncode == 0
    path = project / MEMORY / "failures.md"
    past = time.time() - 3600
    os.utime(path, (past, past))  # older than the clock's resolution: its summary is now trusted by stat
    assert lh("memory", "get", "--query", "proxy password", cwd=project).returncode == 0
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


# A cache file lies in the repository: one planted there may hold any JSON under the right format
# and hash. Each value is checked at load, or fails at its use and the work is done again on
# segments made now; a query never fails for it.


def _replanted(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    """Rewrite a cache file with `change` made to its values, under its own format and hash."""
    values = unpacked(path.read_bytes())
    change(values)
    path.write_bytes(packed(values))


def _set(**values: object) -> Callable[[dict[str, object]], None]:
    return lambda segment: segment.update(values)


def _longer_first_posting(segment: dict[str, object]) -> None:
    ends = array("I", segment["ends"])  # type: ignore[arg-type]
    segment["ends"] = array("I", [end + 8 for end in ends[:-1]] + [ends[-1]]).tobytes()


def _prose_ids(segment: dict[str, object]) -> None:
    segment["ids"] = sorted(f"@x{n}" for n in range(len(segment["ids"])))  # type: ignore[arg-type]


def _span_past_any_shard(segment: dict[str, object]) -> None:
    spans = array("Q", segment["spans"])  # type: ignore[arg-type]
    spans[1] = 1 << 62  # the first entry's end: a read of that many bytes cannot be made
    segment["spans"] = spans.tobytes()


def _postings_past_their_entries(segment: dict[str, object]) -> None:
    blob = array("I", segment["blob"])  # type: ignore[arg-type]
    segment["blob"] = array("I", [1000 + n for n in range(len(blob))]).tobytes()


def _terms_past_the_vocabulary(segment: dict[str, object]) -> None:
    forward = array("I", segment["forward"])  # type: ignore[arg-type]
    count = len(segment["ids"])  # type: ignore[arg-type]
    segment["forward"] = (forward[: count + 1] + array("I", [10**6] * (len(forward) - count - 1))).tobytes()


def _lengths_that_divide_by_zero(segment: dict[str, object]) -> None:
    shapes = array("d", segment["shapes"])  # type: ignore[arg-type]
    segment["shapes"] = array("d", [-1.0 if n % 5 >= 3 else v for n, v in enumerate(shapes)]).tobytes()
    segment["totals"] = [0, 0]


PLANTED = [
    pytest.param(lambda segment: segment.pop("ids"), id="no-ids"),
    pytest.param(lambda segment: segment.update(ids=list(range(len(segment["ids"])))), id="ids-of-numbers"),
    pytest.param(lambda segment: segment.update(created=[None] * len(segment["created"])), id="created-of-nulls"),
    pytest.param(_set(tags=[0]), id="tag-of-a-number"),
    pytest.param(_set(tags="lock"), id="tags-of-a-string"),
    pytest.param(_set(totals=["5", 5]), id="total-of-a-string"),
    pytest.param(_set(totals=[10**400, 5]), id="total-past-a-float"),
    pytest.param(_set(totals=[None, 5]), id="total-of-null"),
    pytest.param(lambda segment: segment.update(terms=[[t] for t in segment["terms"]]), id="terms-of-lists"),
    pytest.param(_set(sha256=None), id="hash-of-null"),
    pytest.param(_set(format=["lh-search"]), id="format-of-a-list"),
    pytest.param(_terms_past_the_vocabulary, id="terms-past-the-vocabulary"),
    pytest.param(_longer_first_posting, id="posting-longer"),
    pytest.param(_prose_ids, id="prose-ids-without-lines"),
    pytest.param(_span_past_any_shard, id="span-past-any-shard"),
    pytest.param(_postings_past_their_entries, id="postings-past-their-entries"),
    pytest.param(_lengths_that_divide_by_zero, id="lengths-dividing-by-zero"),
]


@pytest.mark.parametrize("damage", PLANTED)
def test_a_planted_cache_file_of_wrong_values_is_rebuilt_and_never_breaks_a_query(
    memory: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[dict[str, object]], None]
) -> None:
    expected = lh("memory", "get", "--query", "lock windows", cwd=memory)
    assert (expected.returncode, expected.stderr) == (0, "")
    for name in ("failures", "insights", "quirks"):
        _replanted(memory / CACHE / f"{name}.idx", damage)
    done = lh("memory", "get", "--query", "lock windows", cwd=memory)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", expected.stdout)
    again = lh("memory", "get", "--query", "lock windows", cwd=memory)  # the files were rebuilt: no retry
    assert (again.returncode, again.stderr, again.stdout) == (0, "", expected.stdout)
    check(memory, capsys)


def test_lint_and_doctor_read_past_a_planted_cache_file_as_a_query_does(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = [main(["memory", "lint"]), main(["doctor", "--json"])]
    expected = capsys.readouterr()
    for damage in (_longer_first_posting, _postings_past_their_entries, _set(ids=[1])):
        _replanted(memory / CACHE / "failures.idx", damage)
        assert [main(["memory", "lint"]), main(["doctor", "--json"])] == before
        assert capsys.readouterr() == expected


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


# A shard that changed reuses, from its old cache file, the rows of the entries whose key (the
# SHA-256 of their id, shard, time, tags and text) is unchanged: only new and changed entries are
# scanned and analyzed (adr/0031).


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / CACHE).iterdir())}


def test_rows_reused_after_a_put_and_a_hand_edit_give_the_bytes_of_a_fresh_build(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(capsys)
    rng = random.Random(9)
    for _ in range(2):
        assert main(["memory", "put", "failures", note(rng), "--tag", "lock"]) == 0
    path = memory / MEMORY / "insights.md"
    text = path.read_text("utf-8")
    first = parse(text).entries[0]
    changed = text.replace(first.text, first.text + " and the proxy again", 1)
    path.write_text(changed + "\nA loose paragraph about the upload proxy.\n", "utf-8")
    reused = answers(capsys)
    files = _files(memory)
    assert incremental(memory) == reference(memory)
    shutil.rmtree(memory / CACHE)
    assert answers(capsys) == reused
    assert _files(memory) == files


def _key(shard: str, entry_id: str, created: str, tags: list[str], text: str) -> bytes:
    """An entry's key as adr/0031 defines it."""
    return hashlib.sha256(json.dumps([entry_id, shard, created, tags, text], ensure_ascii=False).encode()).digest()


def test_a_forged_row_under_an_entry_key_ranks_it_but_never_prints_its_credential(project: Path) -> None:
    for subject in ("lock", "proxy", "upload"):
        assert lh("memory", "put", "failures", f"the {subject} note", cwd=project).returncode == 0
    token = github_token(5)
    hand_write(project, "failures", "pasted", f"deploy token {token} for the proxy")
    assert lh("memory", "get", "--query", "deploy token", cwd=project).returncode == 0
    cache = project / CACHE / "failures.idx"
    head = json.loads(cache.read_bytes().partition(b"\n")[0])
    entry = next(e for e in parse((project / MEMORY / "failures.md").read_text("utf-8")).entries if e.id == "pasted")
    # a file of one row: the pasted entry's key over terms its text does not hold
    row = segment.Row(
        "pasted",
        "failures",
        entry.created,
        (),
        3,
        0,
        {"zebra": (3.0, 0.0, 0.0)},
        (0, 0),
        _key("failures", "pasted", entry.created, [], entry.text),
    )
    forged = segment.build([row])
    cache.write_bytes(forged.to_bytes({"format": head["format"], "sha256": "0" * 64}))
    assert lh("memory", "put", "failures", "the scheduler note", cwd=project).returncode == 0
    done = lh("memory", "get", "--json", "--query", "zebra", "--min-score", "0", cwd=project)
    assert done.returncode == 0
    leaked = token[4:] in done.stdout + done.stderr  # not shown by a failing assertion
    assert not leaked
    results = json.loads(done.stdout)["results"]
    assert [(r["id"], r["text"]) for r in results] == [("pasted", "deploy token ghp_******** for the proxy")]
    assert token[4:].encode() not in cache.read_bytes()
