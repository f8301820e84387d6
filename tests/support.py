"""Helpers for tests: run lh and git as real processes, snapshot a project's files, the evidence tests' source file."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
import time
from pathlib import Path

# The source file the evidence tests cite (a committed src/app.py): line 5 reads APP_TIMEOUT, line 8 sets RETRIES.
APP = "import os\n\n\ndef timeout():\n    return int(os.environ.get('APP_TIMEOUT', '30'))\n\n\nRETRIES = 3\n"


def lh(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `lh` as a real process (the installed package, via python -m)."""
    return subprocess.run(
        [sys.executable, "-m", "lean_harness", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def git(root: Path, *args: str) -> str:
    """Run git in `root`; its standard output (a failure raises)."""
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def hook_python(code: str, cwd: Path | None = None, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Run `code` as the hooks run: `python3 -S` (no site-packages), lean_harness from this source."""
    source = str(Path(__file__).resolve().parents[1] / "src")
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": source, **env},
        timeout=60,
        check=True,
    )


def reread(root: Path, timeout: float = 60) -> None:
    """Wait until the hooks' map, which a session start has lh make again in the background when the
    memory changed, describes the memory as it is now."""
    from lean_harness import locations, recall

    memory = str(root / locations.MEMORY_DIR)
    stamp = recall.stamp(memory, locations.personal_dir(str(root), memory))
    end = time.monotonic() + timeout
    while recall.load(root / locations.CACHE_DIR, stamp, whole=False) is None:
        assert time.monotonic() < end, "the map was not made again in the background"
        time.sleep(0.05)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root except the cache, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".cache" not in p.relative_to(root).parts
    }


def killed_at(step: int, root: Path, killer: str, *args: str) -> int:
    """The exit status of `lh ARGS` run in `root` through `killer`, a script that kills its own
    process at the step numbered KILL_AT (-9 when it got there)."""
    done = subprocess.run(
        [sys.executable, "-c", killer, *args],
        cwd=root,
        env={**os.environ, "KILL_AT": str(step)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode


def github_token(seed: int = 1) -> str:
    """A token in GitHub's classic format, made up at run time (never a real credential, never in a source)."""
    rng = random.Random(seed)
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
