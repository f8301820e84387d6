"""`lh doctor` (commands/doctor.py, doctor/): a healthy project passes; text and JSON output; shared helpers."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lean_harness.cli import main
from support import lh

REPO = Path(__file__).resolve().parents[1]
PROJECT_IDS = [
    "config",
    "memory-dir",
    "shards",
    "unlisted",
    "prose",
    "index",
    "budget",
    "size",
    "secrets",
    "directives",
    "git-ignore",
    "git-merge",
    "symlinks",
    "encoding",
    "conflicts",
    "journal",
    "reachability",
    "evidence",
    "usage-record",
]
MEMORY = ".agents/memory"


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, dict[str, object]]]:
    """Run `lh doctor --json` in-process: the exit code and the checks by id."""
    capsys.readouterr()
    code = main(["doctor", "--json", *args])
    data = json.loads(capsys.readouterr().out)
    return code, {c["id"]: c for c in data["checks"]}


def test_a_healthy_project_passes_every_check(repo_with_entry: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = doctor(capsys)
    assert code == 0
    assert list(checks) == PROJECT_IDS
    assert {i: c["status"] for i, c in checks.items()} == dict.fromkeys(PROJECT_IDS, "ok")
    assert checks["index"]["message"].startswith(f"{MEMORY}/INDEX.md is fresh (")
    assert checks["git-merge"]["message"] == f"git merges {MEMORY}/seed.md with its union driver"
    assert checks["reachability"]["message"] == "1 entry: each is found by its own first line"
    assert checks["evidence"]["message"] == "no entry cites project files"


def test_text_output_and_exit_code_as_a_real_process(repo_with_entry: Path) -> None:
    (repo_with_entry / MEMORY / "INDEX.md").write_text("# stale\n", "utf-8")
    done = lh("doctor", cwd=repo_with_entry)
    assert done.returncode == 1
    assert "FAIL  index         .agents/memory/INDEX.md is stale\n" in done.stdout
    assert "                    fix: lh doctor --fix (or lh memory index)\n" in done.stdout
    assert done.stderr == "lh doctor: 18 ok, 1 fail\n"


def test_json_envelope_is_stable(repo_with_entry: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["version", "command", "ok", "counts", "checks", "fixed", "not_fixed", "problems"]
    assert (data["version"], data["command"], data["ok"], data["problems"]) == (1, "doctor", True, [])
    assert data["counts"] == {"ok": 19, "warn": 0, "fail": 0, "skip": 0}
    assert all(list(c) == ["id", "status", "message", "fix", "details"] for c in data["checks"])


def test_without_a_config_doctor_cannot_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    done = lh("doctor", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("no lean-harness config (.agents/lh.toml) in ")


def test_plugin_checks_pass_on_this_repository(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--json", "--plugin", str(REPO)]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert [c["id"] for c in checks] == ["plugin-json", "marketplace-json", "manifest-copies", "skills", "hooks-json"]
    assert {c["id"]: c["status"] for c in checks} == dict.fromkeys([c["id"] for c in checks], "ok")


def test_pre_commit_hooks_run_lh(capsys: pytest.CaptureFixture[str]) -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert "- id: lh-doctor\n" in text
    assert "  entry: lh doctor\n" in text
    assert "- id: lh-memory-scan\n" in text
    assert "  entry: lh memory scan\n" in text


# --- directives: text written into memory by hand that put would refuse ---------------------------


def _append(path: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        with open(root / path, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)

    return apply


def _remove(path: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        target = root / path
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return apply


def _lines(path: Path) -> int:
    """The number of the last line of a file (the line a breaker appended)."""
    return len(path.read_text("utf-8").rstrip("\n").split("\n"))


def each_check_says(cases: list[object]) -> Callable[..., None]:
    """A test, one case a row of `cases`: break the repository with `breaker`, then doctor's check
    `check` says `status`, `message` and `fix` (a checks module binds it to a test_ name)."""

    @pytest.mark.parametrize(("breaker", "check", "status", "message", "fix"), cases)
    def test(
        repo_with_entry: Path,
        capsys: pytest.CaptureFixture[str],
        breaker: Callable[[Path], None],
        check: str,
        status: str,
        message: str | Callable[[Path], str],
        fix: str,
    ) -> None:
        breaker(repo_with_entry)
        code, checks = doctor(capsys)
        found = checks[check]
        expected = message if isinstance(message, str) else message(repo_with_entry)
        if expected.endswith("…"):  # the rest depends on counts or ranking ties: compare the start
            expected = expected[:-1] + str(found["message"])[len(expected) - 1 :]
        assert (found["status"], found["message"], found["fix"]) == (status, expected, fix)
        assert code == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)

    return test


BROKEN_ENTRY = '<!-- lh:entry id="x1" created="2026-01-01T00:00:00Z" -->\ntext\n'
