"""Development sessions: tests (the real clients included), lint, typecheck (run all with `nox`); others on demand."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.error_on_missing_interpreters = True

PYPROJECT = nox.project.load_toml("pyproject.toml")
# The real clients, pinned: `tests` and `clients` install them from npm (tests/test_clients.py).
CLIENTS = ("@anthropic-ai/claude-code@2.1.332", "@github/copilot@1.0.102", "@openai/codex@0.171.0")


@nox.session
def tests(session: nox.Session) -> None:
    """Run every test, slow ones included, and the real clients when npm is there (installed meanwhile)."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    npm = _start_clients_install(session)
    session.run("pytest", *_workers(), "--ignore=tests/test_clients.py", *session.posargs, env=_memory_tmp())
    if npm is not None:
        _run_clients(session, npm)


@nox.session
def slow(session: nox.Session) -> None:
    """Run only the tests marked slow (many processes, kills at every step, large memories)."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", *_workers(), "-m", "slow", *session.posargs, env=_memory_tmp())


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the supported envelope (benchmarks/bench_envelope.py; minutes; not part of `nox`)."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("python", "benchmarks/bench_envelope.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check src/ with mypy in strict mode (the package's own imports need no install)."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "typecheck"))
    session.run("mypy")


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutation score of each core module against its own tests (not in the default run; see docs/testing.md)."""
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "test"), "mutmut==3.8.1")
    session.run("python", "tests/mutation.py", *session.posargs)


@nox.session
def clients(session: nox.Session) -> None:
    """Install the plugin with the real Claude Code, Copilot CLI and Codex CLI, pinned, from npm."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    npm = _start_clients_install(session)
    if npm is None:
        session.skip("npm not found; install Node.js 22 or newer to run the real clients")
    _run_clients(session, npm)


def _workers() -> list[str]:
    """Two test workers a core: most tests wait on `lh` processes they start, and work is stolen
    between workers so the long kill tests do not leave one finishing alone."""
    return ["-n", str(2 * (os.cpu_count() or 1)), "--dist", "worksteal"]


def _memory_tmp() -> dict[str, str]:
    """TMPDIR in memory where the machine has one: the tests' thousands of durable writes then
    cost no disk flush (what is tested is the same: lh still calls fsync)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return {"TMPDIR": str(shm)}
    return {}


def _start_clients_install(session: nox.Session) -> tuple[subprocess.Popen[bytes], Path] | None:
    """Start installing the pinned clients into the session's folder; None without npm (an error on CI)."""
    if shutil.which("npm") is None:
        if os.environ.get("CI"):
            session.error("npm is needed to install the clients; install Node.js 22 or newer")
        return None
    prefix = Path(session.create_tmp()).resolve() / "clients"
    log = (prefix.parent / "npm-install.log").open("wb")
    command = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save", *CLIENTS]
    session.log(" ".join(command) + " (in the background)")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL), prefix


def _run_clients(session: nox.Session, npm: tuple[subprocess.Popen[bytes], Path]) -> None:
    """Wait for the clients' install, then run tests/test_clients.py against them."""
    process, prefix = npm
    if process.wait() != 0:
        session.error(f"npm install failed: {(prefix.parent / 'npm-install.log').read_text(errors='replace')[-2000:]}")
    session.run(
        "pytest",
        "tests/test_clients.py",
        *session.posargs,
        env={"LEAN_HARNESS_CLIENTS_BIN": str(prefix / "node_modules" / ".bin")},
    )
