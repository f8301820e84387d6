"""`lh memory get --query`: whole entries, best first, within a token budget; abstains; cache is derived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import lh

MEMORY = ".agents/memory"
NOTES = [
    ("failures", "test_lock hangs on Windows: the lock file was opened in text mode", ["windows"], "lock"),
    ("quirks", "npm ci fails behind a corporate proxy; set HTTPS_PROXY and npm_config_proxy", [], "proxy"),
    ("conventions", "HttpClient.retryPolicy must back off exponentially, at most five tries", ["http"], "retry"),
    ("insights", "parse_config reads TOML with tomllib; YAML is not supported", [], "parse"),
]


@pytest.fixture
def memory(project: Path) -> Path:
    for shard, text, tags, key in NOTES:
        args = ["memory", "put", shard, text, "--id", key]
        for tag in tags:
            args += ["--tag", tag]
        assert main(args) == 0
    return project


def query(*args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["memory", "get", "--json", *args]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def ids(data: dict[str, object]) -> list[str]:
    return [r["id"] for r in data["results"]]  # type: ignore[attr-defined,index]


def test_query_returns_whole_entries_best_first(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = query("--query", "why does the lock test hang on windows", capsys=capsys)
    assert data["version"] == 1
    assert data["query"] == "why does the lock test hang on windows"
    first = data["results"][0]  # type: ignore[index]
    assert first["id"] == "lock"
    assert first["text"] == NOTES[0][1]
    assert first["shard"] == "failures"
    assert set(first) == {
        "id",
        "shard",
        "score",
        "weak",
        "tokens",
        "created",
        "tags",
        "text",
        "cut",
        "matched",
        "stale",
        "refs",
    }
    assert first["weak"] is False
    assert first["matched"] == ["lock", "test", "hang", "windows"]
    assert (first["stale"], first["refs"]) == (False, [])
    assert data["total_tokens"] == sum(r["tokens"] for r in data["results"])  # type: ignore[attr-defined]


def test_identifiers_are_found_by_their_parts(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ids(query("--query", "retry policy", capsys=capsys))[0] == "retry"
    assert ids(query("--query", "parseConfig", capsys=capsys))[0] == "parse"


def test_nothing_matching_returns_an_empty_list_and_exit_0(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = query("--query", "kubernetes terraform grafana ansible", capsys=capsys)
    assert data["results"] == []
    assert data["total_tokens"] == 0
    capsys.readouterr()
    assert main(["memory", "get", "--query", "kubernetes terraform grafana ansible"]) == 0
    assert capsys.readouterr().out == "nothing matched: no entry holds any word of the query; try other words\n"


def test_a_weak_best_entry_is_given_and_marked_weak(memory: Path) -> None:
    result = lh("memory", "get", "--query", "proxy kubernetes terraform grafana ansible", cwd=memory)
    assert result.returncode == 0, result.stderr
    # "proxy" three times (once plain, twice as an identifier's part) in 9 words, 7.75 on average, in
    # body and title (0.5): tf 4.16, impact level 198 of 255; idf ln(10/3) x 198 / 255 x 2.2, over
    # that idf plus the rarest idf ln 10 for each of the four unknown words: 0.197
    assert result.stdout.startswith("[quirks/proxy] score 0.20 (weak), ")
    assert result.stdout.count("score") == 1  # the other entries hold none of the words
    data = json.loads(
        lh("memory", "get", "--query", "proxy kubernetes terraform grafana ansible", "--json", cwd=memory).stdout
    )
    assert [(r["id"], r["weak"]) for r in data["results"]] == [("proxy", True)]


def test_a_set_min_score_leaves_out_weaker_entries_and_names_the_closest(memory: Path) -> None:
    result = lh(
        "memory", "get", "--query", "proxy kubernetes terraform grafana ansible", "--min-score", "0.3", cwd=memory
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "nothing matched well: the closest entry, quirks/proxy, scores 0.20, below --min-score 0.3"
        " (it holds: proxy); try other words, or --min-score 0\n"
    )


def test_a_reworded_question_gets_its_note_marked_weak_where_the_threshold_gave_nothing(project: Path) -> None:
    notes = [
        (
            "failures",
            "rabbit",
            "Celery workers crash at startup with kombu.exceptions.OperationalError: [Errno 111]"
            " Connection refused when the RabbitMQ container is not running; run docker compose up -d rabbitmq first.",
        ),
        ("quirks", "proxy", "The proxy strips cookies on redirects"),
        ("conventions", "deploy", "The deploy script needs AWS_PROFILE set; otherwise it targets the default account"),
    ]
    for shard, key, text in notes:
        assert lh("memory", "put", shard, text, "--id", key, cwd=project).returncode == 0
    asked = "why is the message broker refusing connections on staging"
    given = lh("memory", "get", "--query", asked, cwd=project)
    assert given.stdout.startswith("[failures/rabbit] score 0.2")
    assert " (weak), " in given.stdout.splitlines()[0]
    data = json.loads(lh("memory", "get", "--query", asked, "--json", cwd=project).stdout)
    assert [(r["id"], r["matched"], r["weak"]) for r in data["results"]] == [
        ("rabbit", ["refusing", "connections"], True)
    ]
    strict = lh("memory", "get", "--query", asked, "--min-score", "0.3", cwd=project)
    assert strict.stdout.startswith("nothing matched well: the closest entry, failures/rabbit, scores 0.2")


def test_json_names_the_query_words_each_hit_holds(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = query("--query", "retryPolicy backoff proxy", "--min-score", "0", capsys=capsys)
    matched = {r["id"]: r["matched"] for r in data["results"]}  # type: ignore[attr-defined]
    assert matched == {"retry": ["retrypolicy", "retry", "policy"], "proxy": ["proxy"]}


def test_shard_and_tag_filters(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ids(query("--query", "proxy lock retry", "--shard", "quirks", capsys=capsys)) == ["proxy"]
    assert ids(query("--query", "proxy lock retry", "--tag", "http", capsys=capsys)) == ["retry"]
    assert ids(query("failures", "--query", "proxy lock retry", capsys=capsys)) == ["lock"]


def test_results_are_packed_within_max_tokens(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    every = query("--query", "proxy lock retry parse", "--min-score", "0", capsys=capsys)
    sizes = [r["tokens"] for r in every["results"]]  # type: ignore[attr-defined]
    budget = sizes[0] + sizes[1]
    packed = query("--query", "proxy lock retry parse", "--min-score", "0", "--max-tokens", str(budget), capsys=capsys)
    assert ids(packed) == ids(every)[:2]
    assert packed["total_tokens"] <= budget  # type: ignore[operator]


def test_an_entry_larger_than_the_whole_budget_is_cut_with_a_marker(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_text = "Deploy checklist for the release train. " + "Verify the staging smoke tests pass. " * 40
    assert main(["memory", "put", "conventions", long_text, "--id", "deploy"]) == 0
    data = query("--query", "deploy checklist release train", "--max-tokens", "60", capsys=capsys)
    (result,) = data["results"]  # type: ignore[misc]
    assert result["id"] == "deploy"
    assert result["cut"] is True
    assert result["text"].startswith("Deploy checklist for the release train.")
    assert result["text"].endswith("[… cut; whole entry: lh memory get conventions]")
    assert result["tokens"] <= 60


def test_a_hand_edit_is_seen_by_the_next_query(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ids(query("--query", "proxy", capsys=capsys)) == ["proxy"]
    path = memory / MEMORY / "quirks.md"
    path.write_text(path.read_text("utf-8").replace("corporate proxy", "corporate firewall gateway"), encoding="utf-8")
    assert ids(query("--query", "firewall gateway", capsys=capsys)) == ["proxy"]


def test_a_corrupt_search_cache_is_rebuilt(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ids(query("--query", "tomllib yaml", capsys=capsys)) == ["parse"]
    cache = memory / ".agents/.cache/lh/search/insights.idx"
    cache.write_bytes(cache.read_bytes()[:300] + b"\xff" * 50)
    assert ids(query("--query", "tomllib yaml", capsys=capsys)) == ["parse"]
    cache.write_bytes(cache.read_bytes()[:-1])
    assert ids(query("--query", "tomllib yaml", capsys=capsys)) == ["parse"]


def test_results_are_deterministic_across_processes(memory: Path) -> None:
    runs = [lh("memory", "get", "--query", "windows proxy", "--json", "--min-score", "0", cwd=memory) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout


def test_get_needs_a_shard_or_a_query(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["memory", "get"]) == 2
    assert capsys.readouterr().err == (
        'name a shard or a query: lh memory get SHARD, or lh memory get --query "words"\n'
    )


def test_an_entry_found_only_through_associated_words_says_so(project: Path) -> None:
    notes = [
        ("failures", "Release build died: disk full, ENOSPC while writing the wheel."),
        ("failures", "Nightly job hit ENOSPC on the runner; the disk was full of old images."),
        ("insights", "Docs job stopped with ENOSPC after the cache grew."),
    ]
    for number, (shard, text) in enumerate(notes):
        assert lh("memory", "put", shard, text, "--id", f"n{number}", cwd=project).returncode == 0
    result = lh("memory", "get", "--query", "disk", "--shard", "insights", cwd=project)
    assert result.returncode == 0, result.stderr
    # "disk" reaches ENOSPC, in both its entries and in all three, at 0.3 x 2/2 x 2/3 = 0.2; n2 holds
    # ENOSPC once in 6 words (7.67 on average), body and title: impact level 149 of 255;
    # 0.2 x idf ln(8/7) x 149 / 255 x 2.2, over the idf of "disk", ln 1.6: 0.073
    assert result.stdout == (
        "nothing matched: no entry holds any word of the query; the closest, insights/n2, holds only"
        " words related to them (score 0.07); try other words, or --min-score 0\n"
    )
    strict = lh("memory", "get", "--query", "disk", "--shard", "insights", "--min-score", "0.3", cwd=project)
    assert strict.stdout == (
        "nothing matched well: the closest entry, insights/n2, scores 0.07, below --min-score 0.3"
        " (it holds none of the query's words, only words related to them); try other words,"
        " or --min-score 0\n"
    )
    found = json.loads(lh("memory", "get", "--query", "disk", "--json", "--min-score", "0", cwd=project).stdout)
    assert [(r["id"], r["matched"]) for r in found["results"]] == [("n0", ["disk"]), ("n1", ["disk"]), ("n2", [])]


def test_an_entry_found_only_through_a_related_english_word_says_so(project: Path) -> None:
    notes = [("insights", "Each customer sees prices in their own currency."), ("quirks", "The proxy strips cookies")]
    for number, (shard, text) in enumerate(notes):
        assert lh("memory", "put", shard, text, "--id", f"n{number}", cwd=project).returncode == 0
    result = lh("memory", "get", "--query", "shopper", cwd=project)
    assert result.returncode == 0, result.stderr
    # WordNet relates "shopper" to "customer" (0.2 of a match): 0.2 x idf ln 2 x impact level 137 of 255
    # (once in 4 words, 3.5 on average, body and title at 0.5) x 2.2, over the rarest idf ln 6 that an
    # unknown word weighs: 0.091
    assert result.stdout == (
        "nothing matched: no entry holds any word of the query; the closest, insights/n0, holds only"
        " words related to them (score 0.09); try other words, or --min-score 0\n"
    )
    found = json.loads(lh("memory", "get", "--query", "shopper", "--json", "--min-score", "0", cwd=project).stdout)
    assert [(r["id"], r["matched"]) for r in found["results"]] == [("n0", [])]
