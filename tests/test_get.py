"""What `lh memory get` prints, whole, for small shard files written by hand.

The project counts tokens with the estimate encoding (UTF-8 bytes / 4, rounded up), so every
figure below is worked out on paper beside it. Query scores are worked out from the ranking
the search module states (BM25F, k1 = 1.2, b = 0.5; the body weighs 1 and the title 0.5, stored
as one of 255 levels; divided by the query's idf total): one query word found once in a
one-line entry as long as the average is a term frequency of 1.5 (body and title), an
impact of 1.5 x 2.2 / 2.7 = 1.2222, stored as level round(1.2222 x 255 / 2.2) = 142, so a score
of 142 x 2.2 / 255 = 1.2251; with two query words of equal weight, each such entry has half.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import Entry, parse
from support import lh

CONFIG = (
    '[memory]\ndir = ".agents/memory"\ncacheDir = ".agents/.cache"\ntokenBudget = 1000\ncompactAtPercent = 80\n'
    'compactTargetPercent = 60\nindexTokenBudget = 600\nencoding = "estimate"\nkeepNewest = 10\n\n'
    '[memory.shards]\nbuild = "How to build."\nnotes = "Other notes."\n'
)


def _entry(key: str, created: str, text: str, tags: str = "", nl: str = "\n") -> str:
    tagged = f' tags="{tags}"' if tags else ""
    return f'<!-- lh:entry id="{key}" created="{created}"{tagged} -->{nl}{text}{nl}<!-- /lh:entry id="{key}" -->'


def _github_token(seed: int) -> str:
    """A token in GitHub's classic format, made up at run time (never a real credential)."""
    rng = random.Random(seed)
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project with the shards build and notes, both empty but for their heads."""
    project = tmp_path / "p"
    project.mkdir()
    assert lh("init", cwd=project).returncode == 0
    (project / ".agents/lh.toml").write_text(CONFIG, encoding="utf-8")
    memory = project / ".agents/memory"
    for path in memory.glob("*.md"):
        path.unlink()
    (memory / "build.md").write_text("# build\n\nHow to build.\n", encoding="utf-8")
    (memory / "notes.md").write_text("# notes\n\nOther notes.\n", encoding="utf-8")
    return project


def _shard(root: Path, name: str, text: str) -> None:
    (root / ".agents/memory" / f"{name}.md").write_bytes(text.encode("utf-8"))


# A CRLF shard with no line break after its last marker: entries, loose prose between them,
# tags, two lines, and a closing framing tag that `get` must escape.
CRLF_BUILD = "\r\n".join(
    [
        "# build",
        "",
        "How to build.",
        "",
        _entry("b1", "2026-11-01T10:00:00Z", "Run make before tests\r\nthen run the suite", "ci make", "\r\n"),
        "",
        "Loose words by hand.",
        "",
        _entry("b2", "2026-11-03T10:00:00Z", "</system-reminder> is escaped", nl="\r\n"),
    ]
)


def test_get_prints_each_block_with_a_blank_line_between(root: Path) -> None:
    _shard(root, "build", CRLF_BUILD)
    done = lh("memory", "get", "build", cwd=root)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "[2026-11-01 #ci #make]\n"
        "Run make before tests\n"
        "then run the suite\n"
        "\n"
        "[prose, line 10]\n"
        "Loose words by hand.\n"
        "\n"
        "[2026-11-03]\n"
        "&lt;/system-reminder&gt; is escaped\n"
    )


def test_get_json_gives_each_block_its_printed_cost(root: Path) -> None:
    _shard(root, "build", CRLF_BUILD)
    done = lh("memory", "get", "build", "--json", cwd=root)
    assert (done.returncode, done.stderr) == (0, "")
    # Each block with the blank line after it: "[2026-11-01 #ci #make]\nRun make before tests\nthen
    # run the suite\n\n" is 22 + 1 + 21 + 1 + 18 + 2 = 65 bytes, 17 tokens; "[prose, line 10]\nLoose
    # words by hand.\n\n" 16 + 1 + 20 + 2 = 39, 10; "[2026-11-03]\n&lt;/system-reminder&gt; is
    # escaped\n\n" 12 + 1 + 35 + 2 = 50, 13.
    assert json.loads(done.stdout) == {
        "version": 1,
        "command": "memory get",
        "shard": "build",
        "entries": [
            {
                "id": "b1",
                "shard": "build",
                "created": "2026-11-01T10:00:00Z",
                "tags": ["ci", "make"],
                "tokens": 17,
                "text": "Run make before tests\nthen run the suite",
                "stale": False,
                "refs": [],
            },
            {
                "id": "b2",
                "shard": "build",
                "created": "2026-11-03T10:00:00Z",
                "tags": [],
                "tokens": 13,
                "text": "&lt;/system-reminder&gt; is escaped",
                "stale": False,
                "refs": [],
            },
        ],
        "prose": [{"line": 10, "end": 10, "tokens": 10, "text": "Loose words by hand."}],
        "total_tokens": 40,
        "problems": [],
    }


def test_get_with_ids_names_every_entry(root: Path) -> None:
    _shard(root, "build", CRLF_BUILD)
    done = lh("memory", "get", "build", "--ids", cwd=root)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "[b1 2026-11-01 #ci #make]\n"
        "Run make before tests\n"
        "then run the suite\n"
        "\n"
        "[prose, line 10]\n"
        "Loose words by hand.\n"
        "\n"
        "[b2 2026-11-03]\n"
        "&lt;/system-reminder&gt; is escaped\n"
    )


def test_get_of_an_empty_shard(root: Path) -> None:
    done = lh("memory", "get", "notes", cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "notes: no entries\n", "")
    done = lh("memory", "get", "notes", "--json", cwd=root)
    assert json.loads(done.stdout) == {
        "version": 1,
        "command": "memory get",
        "shard": "notes",
        "entries": [],
        "prose": [],
        "total_tokens": 0,
        "problems": [],
    }


def test_get_of_one_entry_without_a_final_newline(root: Path) -> None:
    _shard(root, "notes", "# notes\n\nOther notes.\n\n" + _entry("n1", "2026-11-05T10:00:00Z", "just one"))
    done = lh("memory", "get", "notes", cwd=root)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[2026-11-05]\njust one\n", "")


def test_get_masks_credentials_and_warns_once(root: Path) -> None:
    first, second = _github_token(11), _github_token(12)
    text = f"CI token is {first}\nand the backup is {second}"
    _shard(root, "notes", "# notes\n\nOther notes.\n\n" + _entry("n1", "2026-11-05T10:00:00Z", text) + "\n")
    done = lh("memory", "get", "notes", cwd=root)
    assert done.returncode == 0
    assert done.stdout == "[2026-11-05]\nCI token is ghp_********\nand the backup is ghp_********\n"
    assert done.stderr == (
        "warning: .agents/memory/notes.md:6: entry n1 holds what looks like a GitHub personal access token"
        ' (masked here) and 1 more; run "lh memory scan"\n'
    )
    done = lh("memory", "get", "notes", "--json", cwd=root)
    # "[2026-11-05]\nCI token is ghp_********\nand the backup is ghp_********\n\n" is
    # 12 + 1 + 24 + 1 + 29 + 2 = 69 bytes, 18 tokens.
    assert json.loads(done.stdout) == {
        "version": 1,
        "command": "memory get",
        "shard": "notes",
        "entries": [
            {
                "id": "n1",
                "shard": "notes",
                "created": "2026-11-05T10:00:00Z",
                "tags": [],
                "tokens": 18,
                "text": "CI token is ghp_********\nand the backup is ghp_********",
                "stale": False,
                "refs": [],
            }
        ],
        "prose": [],
        "total_tokens": 18,
        "problems": [
            ".agents/memory/notes.md:6: entry n1 holds what looks like a GitHub personal access token (masked here)",
            ".agents/memory/notes.md:7: entry n1 holds what looks like a GitHub personal access token (masked here)",
        ],
    }
    for secret in (first, second):
        assert secret[4:] not in done.stdout


# Three one-line entries of three plain words each (every entry as long as the average; no
# word in two entries, so every word has the same idf and none is widened with another).
QUERY_BUILD = (
    "# build\n\nHow to build.\n\n"
    + _entry("b1", "2026-11-01T10:00:00Z", "alpha beta gamma", "ci")
    + "\n\n"
    + _entry("b2", "2026-11-02T10:00:00Z", "delta omega kappa")
    + "\n"
)
QUERY_NOTES = "# notes\n\nOther notes.\n\n" + _entry("n1", "2026-11-02T10:00:00Z", "sigma lambda theta") + "\n"


@pytest.fixture
def queried(root: Path) -> Path:
    _shard(root, "build", QUERY_BUILD)
    _shard(root, "notes", QUERY_NOTES)
    return root


def test_query_prints_the_header_line_and_the_text(queried: Path) -> None:
    done = lh("memory", "get", "--query", "alpha", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    # The entry's figure, as put and status give it: what `get` prints of it,
    # "[2026-11-01 #ci]\nalpha beta gamma\n\n", 35 bytes, 9 tokens.
    assert done.stdout == "[build/b1] score 1.23, 9 tokens, 2026-11-01 #ci\nalpha beta gamma\n"


def test_query_results_have_a_blank_line_between_and_ties_go_to_the_newer(queried: Path) -> None:
    done = lh("memory", "get", "--query", "alpha delta", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    # Half of 1.2251 each; "[2026-11-02]\ndelta omega kappa\n\n" is 32 bytes, 8 tokens.
    assert done.stdout == (
        "[build/b2] score 0.61, 8 tokens, 2026-11-02\n"
        "delta omega kappa\n"
        "\n"
        "[build/b1] score 0.61, 9 tokens, 2026-11-01 #ci\n"
        "alpha beta gamma\n"
    )


def test_query_json(queried: Path) -> None:
    done = lh("memory", "get", "--query", "alpha delta", "--json", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == {
        "version": 1,
        "command": "memory get",
        "query": "alpha delta",
        "results": [
            {
                "id": "b2",
                "shard": "build",
                "score": 0.6125,
                "weak": False,
                "tokens": 8,
                "created": "2026-11-02T10:00:00Z",
                "tags": [],
                "text": "delta omega kappa",
                "cut": False,
                "matched": ["delta"],
                "stale": False,
                "refs": [],
            },
            {
                "id": "b1",
                "shard": "build",
                "score": 0.6125,
                "weak": False,
                "tokens": 9,
                "created": "2026-11-01T10:00:00Z",
                "tags": ["ci"],
                "text": "alpha beta gamma",
                "cut": False,
                "matched": ["alpha"],
                "stale": False,
                "refs": [],
            },
        ],
        "total_tokens": 17,
        "problems": [],
    }


def test_an_entry_that_does_not_fit_after_another_is_left_out(queried: Path) -> None:
    # The budget holds what is printed, header lines included: b2's 62 bytes are 16 tokens; b1's
    # block after it, "\n[build/b1] score 0.61, 9 tokens, 2026-11-01 #ci\nalpha beta gamma\n", 66 bytes, 17.
    for budget in ("16", "32"):
        done = lh("memory", "get", "--query", "alpha delta", "--max-tokens", budget, cwd=queried)
        assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout == "[build/b2] score 0.61, 8 tokens, 2026-11-02\ndelta omega kappa\n"
    done = lh("memory", "get", "--query", "alpha delta", "--max-tokens", "33", cwd=queried)
    assert done.stdout.count("score 0.61") == 2
    assert len(done.stdout.encode()) == 62 + 66  # 128 bytes: 32 tokens, within 33


def test_an_entry_over_the_whole_budget_is_cut_with_a_marker(root: Path) -> None:
    # Alone in the memory, the entry is the average, so one word found once scores 1.23.
    text = "alpha one two three four five six seven eight nine ten eleven twelve"  # 68 bytes, 17 tokens
    _shard(root, "build", "# build\n\nHow to build.\n\n" + _entry("b1", "2026-11-01T10:00:00Z", text) + "\n")
    done = lh("memory", "get", "--query", "alpha", "--max-tokens", "25", cwd=root)
    assert (done.returncode, done.stderr) == (0, "")
    # The header line with its two newlines, "[build/b1] score 1.23, 25 tokens, 2026-11-01\n\n", is 46
    # bytes, 12 tokens, leaving 13; the marker "\n[… cut; whole entry: lh memory get build]" is 44
    # bytes, 11 tokens, leaving 2: "alpha on". All printed: 99 bytes, 25 tokens.
    assert done.stdout == (
        "[build/b1] score 1.23, 13 tokens, 2026-11-01\nalpha on\n[… cut; whole entry: lh memory get build]\n"
    )


def test_a_budget_smaller_than_the_marker_gets_a_short_one_and_never_more_than_asked(root: Path) -> None:
    text = "alpha one two three four five six seven eight nine ten eleven twelve"
    _shard(root, "build", "# build\n\nHow to build.\n\n" + _entry("b1", "2026-11-01T10:00:00Z", text) + "\n")
    done = lh("memory", "get", "--query", "alpha", "--max-tokens", "15", cwd=root)
    # 12 tokens of header leave 3; "…" is 3 bytes, 1 token; 2 are left: "alpha on". 57 bytes, 15 tokens.
    assert (done.returncode, done.stderr, done.stdout) == (
        0,
        "",
        "[build/b1] score 1.23, 3 tokens, 2026-11-01\nalpha on…\n",
    )


@pytest.mark.parametrize("budget", ["1", "11"])
def test_a_budget_below_a_header_line_prints_no_entry_and_says_so(root: Path, budget: str) -> None:
    text = "alpha one two three four five six seven eight nine ten eleven twelve"
    _shard(root, "build", "# build\n\nHow to build.\n\n" + _entry("b1", "2026-11-01T10:00:00Z", text) + "\n")
    done = lh("memory", "get", "--query", "alpha", "--max-tokens", budget, cwd=root)
    # "[build/b1] score 1.23, 1 tokens, 2026-11-01\n…\n" is 48 bytes, 12 tokens.
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "nothing printed: the best entry takes 12 tokens cut to its header line; raise --max-tokens\n"


@pytest.mark.parametrize("seed", range(3))
def test_what_a_query_prints_never_exceeds_max_tokens(queried: Path, seed: int) -> None:
    rng = random.Random(seed)
    words = ["alpha", "delta", "omega", "sigma", "kappa", "theta", "lambda", "beta"]
    entries = [
        _entry(f"r{n}", f"2026-11-{n + 3:02d}T10:00:00Z", " ".join(rng.choices(words, k=rng.randrange(3, 60))))
        for n in range(12)
    ]
    _shard(queried, "notes", "# notes\n\nOther notes.\n\n" + "\n".join(entries) + "\n")
    printed = set()  # how many entries were printed, for some budget
    for budget in (13, 30, 60, 120, 250, 500, 1000):
        done = lh("memory", "get", "--query", "alpha omega theta", "--max-tokens", str(budget), cwd=queried)
        assert (done.returncode, done.stderr) == (0, "")
        tokens = (len(done.stdout.encode()) + 3) // 4  # UTF-8 bytes / 4, as lh counts with this config
        assert tokens <= budget, (budget, done.stdout)
        printed.add(done.stdout.count("score "))
    assert len(printed) >= 3, printed  # the budgets cut at different entries


def test_a_query_that_starts_with_dashes_is_taken_after_an_equals_sign(queried: Path) -> None:
    _shard(
        queried,
        "notes",
        "# notes\n\nOther notes.\n\n" + _entry("f1", "2026-11-03T10:00:00Z", "pass --line-ranges to the differ") + "\n",
    )
    done = lh("memory", "get", "--query=--line-ranges", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1] == "pass --line-ranges to the differ"
    refused = lh("memory", "get", "--query", "--line-ranges", cwd=queried)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        "lh memory get: error: argument --query/-q: expected one argument;"
        ' for a query that starts with "-", join it with "=": --query="--words"'
    )


def test_a_query_of_an_empty_memory_says_the_memory_is_empty(root: Path) -> None:
    done = lh("memory", "get", "--query", "alpha", cwd=root)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == 'memory is empty: nothing to search yet; add a note with lh memory put SHARD "text"\n'


def test_query_masks_credentials_and_says_where(queried: Path) -> None:
    token = _github_token(13)
    _shard(
        queried, "notes", "# notes\n\nOther notes.\n\n" + _entry("n1", "2026-11-02T10:00:00Z", f"theta {token}") + "\n"
    )
    done = lh("memory", "get", "--query", "theta", cwd=queried)
    assert done.returncode == 0
    # Now the only entry of two words among entries of three (average 8/3): body and title count
    # 1 and 0.5 of 1 / (0.5 + 0.5 x 2 / (8/3)) = 1.1429, so tf 1.7143, impact 1.7143 x 2.2 / 2.9143
    # = 1.2941, level 150, score 150 x 2.2 / 255 = 1.2941. Its printed block,
    # "[2026-11-02]\ntheta ghp_********\n\n", is 33 bytes, 9 tokens.
    assert done.stdout == "[notes/n1] score 1.29, 9 tokens, 2026-11-02\ntheta ghp_********\n"
    assert done.stderr == (
        "warning: .agents/memory/notes.md: entry n1 holds what looks like a credential (masked here);"
        ' run "lh memory scan"\n'
    )
    assert token[4:] not in done.stdout + done.stderr


def test_a_query_that_matches_nothing(queried: Path) -> None:
    done = lh("memory", "get", "--query", "zzzz", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "nothing matched: no entry holds any word of the query; try other words\n"


def test_a_query_that_matches_only_weakly_gets_the_entry_marked_weak(queried: Path) -> None:
    done = lh("memory", "get", "--query", "alpha zzzz qqqq", cwd=queried)
    assert (done.returncode, done.stderr) == (0, "")
    # idf(alpha) = ln(1 + 2.5 / 1.5) = 0.9808; an unknown word weighs ln(1 + 3.5 / 0.5) = 2.0794;
    # 0.9808 x 1.2251 / (0.9808 + 2 x 2.0794) = 0.23.
    assert done.stdout == "[build/b1] score 0.23 (weak), 9 tokens, 2026-11-01 #ci\nalpha beta gamma\n"
    done = lh("memory", "get", "--query", "alpha zzzz qqqq", "--min-score", "0.3", cwd=queried)
    assert done.stdout == (
        "nothing matched well: the closest entry, build/b1, scores 0.23, below --min-score 0.3"
        " (it holds: alpha); try other words, or --min-score 0\n"
    )


MEMORY = ".agents/memory"


def put(*args: str) -> int:
    return main(["memory", "put", *args])


def entries(root: Path, shard: str) -> tuple[Entry, ...]:
    return parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries


def test_get_prints_a_shards_entries(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert put("failures", "one", "--id", "e1", "--tag", "ci") == 0
    assert put("failures", "two\nlines", "--id", "e2") == 0
    capsys.readouterr()
    assert main(["memory", "get", "failures"]) == 0
    out = capsys.readouterr().out
    first, second = (e.created[:10] for e in entries(project, "failures"))
    assert out == f"[{first} #ci]\none\n\n[{second}]\ntwo\nlines\n"
    assert main(["memory", "get", "failures", "--ids"]) == 0
    assert capsys.readouterr().out == f"[e1 {first} #ci]\none\n\n[e2 {second}]\ntwo\nlines\n"
    assert main(["memory", "get", "failures", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    assert data["command"] == "memory get"
    assert [(e["id"], e["text"], e["tags"]) for e in data["entries"]] == [
        ("e1", "one", ["ci"]),
        ("e2", "two\nlines", []),
    ]
    assert data["total_tokens"] == sum(e["tokens"] for e in data["entries"])


def test_an_entry_that_quotes_another_entrys_id_does_not_hide_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quoting = 'the deploy log printed id="k2" before the header of k2'
    assert put("failures", quoting, "--id", "k1") == 0
    assert put("failures", "k2: the deploy script retries three times", "--id", "k2") == 0
    assert put("failures", "k2: the deploy script retries five times", "--id", "k2") == 0
    capsys.readouterr()
    assert main(["memory", "get", "--query", "deploy script retries", "--json"]) == 0
    found = {r["id"]: r["text"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert found["k2"] == "k2: the deploy script retries five times"
    assert [(e.id, e.text) for e in entries(project, "failures")] == [
        ("k1", quoting),
        ("k2", "k2: the deploy script retries five times"),
    ]
