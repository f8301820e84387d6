"""Every cache under a project is a hint a repository could forge (adr/0030): real `lh` processes
in tmp projects, with caches planted to claim that a text was validated or scanned clean."""

from __future__ import annotations

import hashlib
import os
import random
import string
from pathlib import Path

from support import lh

MEMORY = ".agents/memory"


def aws_key() -> str:
    rng = random.Random(11)
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


def forge_clean(root: Path, data: bytes) -> None:
    """Make every cache file claim `data` as what it was made from: each SHA-256 it holds becomes
    the digest of `data`, and a clean record listing it is added under each name lh once used."""
    digest = hashlib.sha256(data).hexdigest()
    cache = root / ".agents/.cache/lh"
    for path in [p for p in cache.rglob("*") if p.is_file()]:
        raw = path.read_bytes()
        for old in {raw[i : i + 64] for i in range(0, max(len(raw) - 63, 0))}:
            if len(old) == 64 and all(c in b"0123456789abcdef" for c in old):
                raw = raw.replace(old, digest.encode())
        path.write_bytes(raw)
    for name in ("scan-clean", "directive-clean", "search-clean"):
        (cache / name).write_text(f"lh-{name} {'0' * 64}\n{'0' * 64}\n{digest}\n", "ascii")


def test_a_text_forged_as_clean_is_still_masked_when_printed(tmp_path: Path) -> None:
    assert lh("init", cwd=tmp_path).returncode == 0
    put = lh("memory", "put", "seed", "The deploy user is called deploybot and rotates keys weekly.", cwd=tmp_path)
    assert put.returncode == 0
    assert lh("memory", "get", "--query", "deploybot", cwd=tmp_path).returncode == 0  # caches built
    shard = tmp_path / MEMORY / "seed.md"
    text = shard.read_text("utf-8")
    shard.write_text(text.replace("deploybot", f"deploybot {aws_key()}"), "utf-8")  # a hand edit
    forge_clean(tmp_path, shard.read_bytes())
    for args in (("memory", "get", "seed"), ("memory", "get", "--query", "deploybot")):
        done = lh(*args, cwd=tmp_path)
        assert "deploybot" in done.stdout
        assert aws_key()[4:] not in done.stdout + done.stderr
        assert "AKIA" + "*" * 8 in done.stdout


def test_no_command_writes_in_the_users_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config")}
    root = tmp_path / "project"
    root.mkdir()
    for args in (
        ("init",),
        ("memory", "put", "failures", "The lock file stays after a crash; delete it by hand."),
        ("memory", "get", "--query", "lock crash"),
        ("memory", "status"),
        ("doctor",),
    ):
        done = lh(*args, cwd=root, env=env)
        assert done.returncode in (0, 1), done.stderr
    assert sorted(os.path.relpath(p, home) for p in home.rglob("*")) == []


def test_an_ids_listing_forged_to_hold_a_note_does_not_make_consolidation_drop_it(tmp_path: Path) -> None:
    from lean_harness.memory.summary import text_key  # the forger's tool: the key a listing files a text under

    assert lh("init", cwd=tmp_path).returncode == 0
    assert lh("memory", "put", "insights", "the lock file stays after a crash", cwd=tmp_path).returncode == 0
    listing = tmp_path / ".agents/.cache/lh/shards/insights.ids"
    note = "rotate the logs weekly"
    listing.write_text(listing.read_text("utf-8") + f"{text_key(note)} forged0000\n", "utf-8")
    assert lh("memory", "note", note, "--shard", "insights", cwd=tmp_path).returncode == 0
    done = lh("memory", "consolidate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"\n{note}\n" in (tmp_path / MEMORY / "insights.md").read_text("utf-8")
    assert list((tmp_path / MEMORY / ".pending").glob("*.md")) == []
