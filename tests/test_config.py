"""The config: defaults, validation with whole-string messages, `lh config show|set|schema`."""

from __future__ import annotations

import hashlib
import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_harness import schema
from lean_harness.cli import main
from lean_harness.config import DEFAULTS, load
from support import lh

CONFIG = ".agents/lh.toml"


def write_config(root: Path, text: str) -> None:
    (root / CONFIG).write_text(text, encoding="utf-8")


def test_defaults_apply_where_keys_are_absent(project: Path) -> None:
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    cfg = load(project)
    assert cfg.token_budget == 5000
    assert cfg.compact_at_percent == 80
    assert cfg.shard_names == ("seed", "failures", "corrections", "insights", "conventions", "quirks", "personal")
    assert cfg.personal == ("personal",)
    assert cfg.shard_path("personal") == project / ".agents" / "memory.local" / "personal.md"
    assert cfg.ignored == (".cache/", "events.ndjson", "board.md")
    assert cfg.memory_dir == project / ".agents/memory"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '[memory]\ntokenBudget = "lots"\n',
            ".agents/lh.toml: at memory.tokenBudget: 'lots' is not an integer",
            id="wrong-type",
        ),
        pytest.param(
            "[memory]\ncompactAtPercent = 150\n",
            ".agents/lh.toml: at memory.compactAtPercent: 150 is out of range; allowed: 1 to 100",
            id="out-of-range",
        ),
        pytest.param(
            "[memory]\ntokenBudgt = 10\n",
            ".agents/lh.toml: at memory.tokenBudgt: unknown key; allowed keys here: cacheDir, compactAtPercent,"
            " compactTargetPercent, dir, encoding, indexTokenBudget, keepNewest, personalShards, recordUsage,"
            " shards, tokenBudget",
            id="unknown-key",
        ),
        pytest.param(
            "[memroy]\n",
            ".agents/lh.toml: at memroy: unknown key; allowed keys here: artifacts, memory",
            id="unknown-section",
        ),
        pytest.param(
            '[memory]\nencoding = "o200k"\n',
            ".agents/lh.toml: at memory.encoding: 'o200k' is not allowed; allowed: 'cl100k_base', 'estimate'",
            id="bad-enum",
        ),
        pytest.param(
            '[memory]\ndir = "../elsewhere"\n',
            ".agents/lh.toml: at memory.dir: '../elsewhere' is not allowed:"
            " must be a path relative to the project root, without '..'",
            id="dir-escapes",
        ),
        pytest.param(
            '[memory.shards]\n"Bad Name" = "x"\n',
            ".agents/lh.toml: at memory.shards: 'Bad Name' is not allowed:"
            " shard names use lowercase letters, digits and hyphens, at most 40 characters",
            id="bad-shard-name",
        ),
        pytest.param(
            "[memory]\ncompactAtPercent = 50\ncompactTargetPercent = 70\n",
            ".agents/lh.toml: at memory.compactTargetPercent: 70 is not below memory.compactAtPercent (50);"
            " choose a lower target",
            id="target-above-threshold",
        ),
        pytest.param(
            "[memory\n",
            ".agents/lh.toml: not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 8);"
            ' fix the file or run "lh init --force"',
            id="broken-toml",
        ),
    ],
)
def test_bad_config_gets_one_clear_message_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    write_config(project, text)
    capsys.readouterr()
    assert main(["memory", "status"]) == 2
    captured = capsys.readouterr()
    assert captured.err == message + "\n"
    assert captured.out == ""


def test_every_problem_is_reported_sorted_by_location(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(project, '[memory]\nkeepNewest = -1\ntokenBudget = "x"\n')
    capsys.readouterr()
    assert main(["config", "show"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        ".agents/lh.toml: at memory.keepNewest: -1 is out of range; allowed: 0 to 10000",
        ".agents/lh.toml: at memory.tokenBudget: 'x' is not an integer",
    ]


def test_no_config_says_to_run_init(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["memory", "status"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("no lean-harness config (.agents/lh.toml) in ")
    assert err.endswith(' or above; run "lh init"\n')


def test_config_found_from_a_subfolder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert main(["memory", "status"]) == 0


def test_a_valid_config_is_loaded_without_jsonschema(project: Path) -> None:
    """The check every run makes of a valid config needs no jsonschema: its import would cost
    more than the whole start-up of most commands."""
    write_config(project, '[memory]\ntokenBudget = 5000\n[memory.shards]\nseed = "Facts."\n')
    probe = (
        "import sys; from lean_harness.cli import main; main(['memory', 'status']); print('jsonschema' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, check=False)
    assert done.stdout.splitlines()[-1] == "False"


# Caches a repository could ship with its lh.toml, each claiming that the file was validated or
# scanned clean: as lh once wrote them (config.json, scan-clean) and as a digest hint would be.
def forged_caches(root: Path) -> None:
    text = (root / CONFIG).read_bytes()
    digest = hashlib.sha256(text).hexdigest()
    cache = root / ".agents/.cache/lh"
    cache.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(DEFAULTS)
    (cache / "config.json").write_text(f"0 {digest} 0\n{'0' * 64}\n{payload}\n", encoding="utf-8")
    for name in ("config-valid", "config.sha256", "validated", "scan-clean", "directive-clean"):
        (cache / name).write_text(f"{digest}\n", encoding="ascii")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '[memory]\ntokenBudget = "lots"\n', "at memory.tokenBudget: 'lots' is not an integer", id="ill-typed"
        ),
        pytest.param(
            '[memory]\ndir = "../outside"\n',
            "at memory.dir: '../outside' is not allowed: must be a path relative to the project root, without '..'",
            id="outside",
        ),
        pytest.param(
            '[memory.shards]\n"../../escape" = "a shard outside the memory folder"\n',
            "at memory.shards: '../../escape' is not allowed: shard names use lowercase letters, digits and"
            " hyphens, at most 40 characters",
            id="shard-name",
        ),
    ],
)
def test_no_cache_lets_an_invalid_config_pass(project: Path, tmp_path: Path, text: str, message: str) -> None:
    write_config(project, text)
    forged_caches(project)
    for args in (("memory", "status"), ("memory", "put", "seed", "Build with make.")):
        done = lh(*args, cwd=project)
        assert (done.returncode, done.stderr) == (2, f".agents/lh.toml: {message}\n")
    assert not (project.parent / "outside").exists()
    assert not (tmp_path / "escape.md").exists()


def test_no_cache_hides_a_credential_in_the_config(project: Path) -> None:
    """A credential in lh.toml is still found by doctor whatever the cache claims, and no cache copies it."""
    alphabet = string.ascii_letters + string.digits
    rng = random.Random(16)
    value = "".join(rng.choice(alphabet) for _ in range(16)) + "7q"
    write_config(project, f'[memory.shards]\nfailures = "see postgres://app:{value}@db.internal/app"\n')
    forged_caches(project)
    done = lh("doctor", "--json", cwd=project)
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    assert (done.returncode, checks["secrets"]["status"]) == (1, "fail")
    assert checks["secrets"]["message"] == ".agents/lh.toml:2:32: a password in a URL [rule url-credentials]"
    assert value not in done.stdout + done.stderr
    cached = [p for p in (project / ".agents/.cache").rglob("*") if p.is_file()]
    assert all(value.encode() not in p.read_bytes() for p in cached)


def test_a_config_with_its_own_cache_dir_uses_it(project: Path) -> None:
    write_config(project, '[memory]\ncacheDir = "build/lh-cache"\ntokenBudget = 7000\n')
    assert load(project).cache_dir == project / "build/lh-cache"
    assert load(project).token_budget == 7000


def test_a_config_only_tomllib_reads_is_still_loaded_exactly(project: Path) -> None:
    # Dotted keys at the top level: the line scan that finds the cache dir gives up, tomllib reads it.
    write_config(project, 'memory.cacheDir = "elsewhere"\nmemory.tokenBudget = 6000\n')
    for _ in range(2):
        cfg = load(project)
        assert (cfg.cache_dir, cfg.token_budget) == (project / "elsewhere", 6000)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 200_000_000) | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    ),
    st.sampled_from(["memory", "artifacts", "other"]),
    st.sampled_from([*DEFAULTS["memory"], "committed", "ignored", "other"]),
)
def test_the_check_without_jsonschema_never_passes_what_jsonschema_refuses(value: object, table: str, key: str) -> None:
    """The check each run makes without jsonschema may refuse a valid config (jsonschema then lets
    it pass), never let an invalid one through."""
    from lean_harness import config

    user = json.loads(json.dumps(DEFAULTS))
    user.setdefault(table, {})[key] = value
    if config._plainly_valid(user, schema.load("config")):
        assert schema.validate(user, "config") == []


@pytest.mark.parametrize(
    "user",
    [
        pytest.param(DEFAULTS, id="defaults"),
        pytest.param({}, id="empty"),
        pytest.param({"memory": {"encoding": "estimate", "keepNewest": 0}}, id="estimate"),
        pytest.param({"artifacts": {"committed": ["a/", "b/"], "ignored": []}}, id="artifacts"),
    ],
)
def test_the_check_without_jsonschema_passes_valid_configs(user: dict[str, object]) -> None:
    from lean_harness import config

    assert schema.validate(user, "config") == []
    assert config._plainly_valid(user, schema.load("config"))
