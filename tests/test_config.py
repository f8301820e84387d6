"""The config: defaults, validation with whole-string messages, `lh config show|set|schema`."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import string
import tomllib
from pathlib import Path

import pytest

from lean_harness import schema
from lean_harness.cli import main
from lean_harness.config import DEFAULTS, load

CONFIG = ".agents/lh.toml"


def write_config(root: Path, text: str) -> None:
    (root / CONFIG).write_text(text, encoding="utf-8")


def test_defaults_apply_where_keys_are_absent(project: Path) -> None:
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    cfg = load(project)
    assert cfg.token_budget == 5000
    assert cfg.compact_at_percent == 80
    assert cfg.shard_names == ("seed", "failures", "corrections", "insights", "conventions", "quirks")
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
            " compactTargetPercent, dir, encoding, indexTokenBudget, keepNewest, shards, tokenBudget",
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


def test_show_prints_effective_config_as_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(project, "[memory]\nkeepNewest = 3\n")
    capsys.readouterr()
    assert main(["config", "show", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    assert data["command"] == "config show"
    assert data["config"]["memory"]["keepNewest"] == 3
    assert data["config"]["memory"]["tokenBudget"] == DEFAULTS["memory"]["tokenBudget"]
    assert data["problems"] == []


def test_show_prints_toml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert tomllib.loads(out) == DEFAULTS


def test_set_writes_a_valid_value(project: Path) -> None:
    assert main(["config", "set", "memory.tokenBudget", "30000"]) == 0
    assert main(["config", "set", "memory.encoding", "estimate"]) == 0
    assert main(["config", "set", "memory.shards.deploys", "How we deploy."]) == 0
    cfg = load(project)
    assert cfg.token_budget == 30000
    assert cfg.encoding == "estimate"
    assert ("deploys", "How we deploy.") in cfg.shards


def test_set_leaves_the_file_untouched_when_the_value_is_invalid(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (project / CONFIG).read_bytes()
    capsys.readouterr()
    assert main(["config", "set", "memory.tokenBudget", "lots"]) == 2
    assert capsys.readouterr().err == (
        ".agents/lh.toml: at memory.tokenBudget: 'lots' is not an integer; file not changed\n"
    )
    assert (project / CONFIG).read_bytes() == before


def test_set_refuses_to_drop_comments(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(project, "# our settings\n[memory]\ntokenBudget = 9000\n")
    capsys.readouterr()
    assert main(["config", "set", "memory.keepNewest", "4"]) == 2
    assert capsys.readouterr().err == (
        ".agents/lh.toml has comments, which rewriting it would drop; edit the file by hand, or pass --drop-comments\n"
    )
    assert main(["config", "set", "memory.keepNewest", "4", "--drop-comments"]) == 0
    assert load(project).keep_newest == 4


def test_schema_command_prints_the_shipped_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["config", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema.load("config")


@pytest.mark.parametrize("name", schema.names())
def test_every_shipped_schema_passes_the_metaschema(name: str) -> None:
    schema.check_schema(schema.load(name))


def test_defaults_validate_against_the_schema() -> None:
    assert schema.validate(DEFAULTS, "config") == []


REMEMBERED = ".agents/.cache/lh/config.json"


def user_key() -> bytes:
    """The user's key as lh made it, read from where userkey.py documents it (HOME is per test)."""
    return (Path(os.environ["XDG_CACHE_HOME"]) / "lean-harness" / "key").read_bytes()


def remembered_file(stamp_text: str, data: object, key: bytes | None = None) -> str:
    """A remembered config as the cache holds it, made here from its documented layout: the
    stamp, an HMAC-SHA256 of the stamp and the payload under the user's key, the payload."""
    from lean_harness import __version__

    payload = json.dumps(data)
    defaults = hashlib.sha256(json.dumps(DEFAULTS).encode()).hexdigest()[:16]
    stamp = f"{__version__} {hashlib.sha256(stamp_text.encode()).hexdigest()} {defaults}"
    signature = hmac.new(user_key() if key is None else key, f"{stamp}\n{payload}".encode(), "sha256").hexdigest()
    return f"{stamp}\n{signature}\n{payload}\n"


def test_the_effective_config_is_remembered_for_the_bytes_of_the_file(project: Path) -> None:
    text = "[memory]\ntokenBudget = 5000\n"
    write_config(project, text)
    assert load(project).token_budget == 5000
    head, signature, payload = (project / REMEMBERED).read_text("utf-8").split("\n", 2)
    data = json.loads(payload)
    assert head.split(" ")[1] == hashlib.sha256(text.encode()).hexdigest()
    signed = f"{head}\n{payload.removesuffix(chr(10))}".encode()
    assert signature == hmac.new(user_key(), signed, "sha256").hexdigest()
    assert data["memory"]["tokenBudget"] == 5000
    assert data["memory"]["shards"] == DEFAULTS["memory"]["shards"]


def test_a_remembered_config_is_used_for_the_same_bytes_only(project: Path) -> None:
    text = "[memory]\ntokenBudget = 5000\n"
    write_config(project, text)
    data = json.loads(json.dumps(DEFAULTS))
    data["memory"]["tokenBudget"] = 1234
    (project / REMEMBERED).write_text(remembered_file(text, data), encoding="utf-8")
    assert load(project).token_budget == 1234  # what was remembered for these bytes is not parsed again
    write_config(project, "[memory]\ntokenBudget = 5001\n")
    assert load(project).token_budget == 5001


def digested_file(stamp_text: str, data: object) -> str:
    """A remembered config with a plain SHA-256 of its payload, which anyone can compute."""
    stamp, _, payload = remembered_file(stamp_text, data).split("\n", 2)
    return f"{stamp}\n{hashlib.sha256(payload.removesuffix(chr(10)).encode()).hexdigest()}\n{payload}"


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param(lambda text, data: remembered_file(text, data, key=b"k" * 32), id="another-key"),
        pytest.param(digested_file, id="a-plain-digest"),
    ],
)
def test_a_remembered_config_this_user_did_not_sign_is_never_trusted(
    project: Path, forged: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository can hold a cache folder: a remembered config pointing outside the project,
    or one that would skip validation, is ignored unless the user's own key signed it."""
    text = "[memory]\ntokenBudget = 5000\n"
    write_config(project, text)
    load(project)  # the key exists
    data = json.loads(json.dumps(DEFAULTS))
    data["memory"]["dir"] = "../outside"
    data["memory"]["shards"] = {"../../escape": "a shard outside the memory folder"}
    (project / REMEMBERED).write_text(forged(text, data), encoding="utf-8")  # type: ignore[operator]
    assert load(project).memory_dir == project / ".agents" / "memory"
    dotted = 'memory.dir = "../outside"\n'  # read by tomllib only, and refused by validation
    write_config(project, dotted)
    (project / REMEMBERED).write_text(forged(dotted, data), encoding="utf-8")  # type: ignore[operator]
    capsys.readouterr()
    assert main(["memory", "put", "seed", "Build with make."]) == 2
    assert "at memory.dir: '../outside' is not allowed" in capsys.readouterr().err
    assert not (project.parent / "outside").exists()
    assert not (tmp_path / "escape.md").exists()


def test_without_a_user_key_the_config_is_validated_every_time_and_nothing_is_remembered(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # the key's folder cannot be made
    (project / REMEMBERED).unlink(missing_ok=True)
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    assert load(project).token_budget == 5000
    assert not (project / REMEMBERED).exists()


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_the_user_key_is_made_once_and_readable_by_the_user_alone(project: Path) -> None:
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    load(project)
    key = Path(os.environ["XDG_CACHE_HOME"]) / "lean-harness" / "key"
    made = key.read_bytes()
    assert len(made) == 32
    assert (key.stat().st_mode & 0o777, key.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    write_config(project, "[memory]\ntokenBudget = 5001\n")
    load(project)
    assert key.read_bytes() == made


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: "", id="empty"),
        pytest.param(lambda text: text[: len(text) // 2], id="torn"),
        pytest.param(lambda text: text.replace("5000", "9999"), id="payload-changed"),
        pytest.param(lambda text: text.replace('"memory"', '"memroy"'), id="layout-changed"),
        pytest.param(lambda text: "\x00" * len(text), id="zeros"),
    ],
)
def test_a_damaged_remembered_config_is_ignored_and_written_again(project: Path, damage: object) -> None:
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    load(project)
    remembered = project / REMEMBERED
    whole = remembered.read_text("utf-8")
    remembered.write_text(damage(whole), encoding="utf-8")  # type: ignore[operator]
    assert load(project).token_budget == 5000
    assert remembered.read_text("utf-8") == whole


def test_a_damaged_remembered_config_never_lets_an_invalid_file_pass(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '[memory]\ntokenBudget = "lots"\n'
    write_config(project, text)
    data = json.loads(json.dumps(DEFAULTS))
    whole = remembered_file(text, data)
    (project / REMEMBERED).write_text(whole.replace("cacheDir", "cacheDIR"), encoding="utf-8")
    capsys.readouterr()
    assert main(["memory", "status"]) == 2
    assert capsys.readouterr().err == ".agents/lh.toml: at memory.tokenBudget: 'lots' is not an integer\n"


def test_a_config_with_its_own_cache_dir_is_remembered_there(project: Path) -> None:
    write_config(project, '[memory]\ncacheDir = "build/lh-cache"\ntokenBudget = 7000\n')
    assert load(project).cache_dir == project / "build/lh-cache"
    assert (project / "build/lh-cache/lh/config.json").is_file()
    assert load(project).token_budget == 7000


def test_a_config_only_tomllib_reads_is_still_loaded_exactly(project: Path) -> None:
    # Dotted keys at the top level: the line scan that finds the cache dir gives up, tomllib reads it.
    write_config(project, 'memory.cacheDir = "elsewhere"\nmemory.tokenBudget = 6000\n')
    for _ in range(2):
        cfg = load(project)
        assert (cfg.cache_dir, cfg.token_budget) == (project / "elsewhere", 6000)


def test_a_config_holding_a_credential_is_validated_but_never_copied_to_the_cache(project: Path) -> None:
    alphabet = string.ascii_letters + string.digits
    rng = random.Random(16)
    value = "".join(rng.choice(alphabet) for _ in range(16)) + "7q"
    write_config(project, f'[memory.shards]\nfailures = "see postgres://app:{value}@db.internal/app"\n')
    assert load(project).shards == (("failures", f"see postgres://app:{value}@db.internal/app"),)
    remembered = (project / REMEMBERED).read_text("utf-8")
    assert remembered.endswith("\nnull\n")
    assert value not in remembered
    assert load(project).shards == (("failures", f"see postgres://app:{value}@db.internal/app"),)


@pytest.mark.parametrize("damage", [b"", b"short", b"k" * 33])
def test_a_damaged_user_key_is_made_again_and_remembering_resumes(project: Path, damage: bytes) -> None:
    key = Path(os.environ["XDG_CACHE_HOME"]) / "lean-harness" / "key"
    write_config(project, "[memory]\ntokenBudget = 5000\n")
    load(project)
    key.write_bytes(damage)  # as a full disk or a hand edit could leave it
    (project / REMEMBERED).unlink()
    assert load(project).token_budget == 5000
    assert len(key.read_bytes()) == 32
    head, signature, payload = (project / REMEMBERED).read_text("utf-8").split("\n", 2)
    signed = f"{head}\n{payload.removesuffix(chr(10))}".encode()
    assert signature == hmac.new(key.read_bytes(), signed, "sha256").hexdigest()
    assert sorted(p.name for p in key.parent.iterdir() if p.name.startswith("key")) == ["key"]  # no temp file left
