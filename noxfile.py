"""Development sessions: tests, slow, lint, typecheck, clients (run all with `nox`); bench and mutation on demand."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "slow", "lint", "typecheck", "clients"]
nox.options.error_on_missing_interpreters = True

PYPROJECT = nox.project.load_toml("pyproject.toml")
# The real clients, pinned: the `clients` session installs them from npm (tests/test_clients.py).
CLIENTS = ("@anthropic-ai/claude-code@2.1.332", "@github/copilot@1.0.102", "@openai/codex@0.171.0")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite against the installed package, without the slow tests."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", "-m", "not slow", *session.posargs)


@nox.session
def slow(session: nox.Session) -> None:
    """Run only the tests marked slow (many processes, kills at every step, large memories)."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", "-m", "slow", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Time every per-turn command at 1k, 10k and 100k entries (minutes; not part of `nox`)."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("python", "benchmarks/bench_scale.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check src/ with mypy in strict mode."""
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "typecheck"))
    session.run("mypy")


@nox.session
def mutation(session: nox.Session) -> None:
    """Mutation score of each core module against its own tests (not in the default run; see docs/testing.md)."""
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "test"), "mutmut==3.8.1")
    session.run("python", "tests/mutation.py", *session.posargs)


@nox.session
def clients(session: nox.Session) -> None:
    """Install the plugin with the real Claude Code, Copilot CLI and Codex CLI, pinned, from npm."""
    if shutil.which("npm") is None:
        if os.environ.get("CI"):
            session.error("npm is needed to install the clients; install Node.js 22 or newer")
        session.skip("npm not found; install Node.js 22 or newer to run the real clients")
    session.install(".", *nox.project.dependency_groups(PYPROJECT, "test"))
    prefix = Path(session.create_tmp()).resolve() / "clients"
    session.run(
        "npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save", *CLIENTS, external=True
    )
    session.run(
        "pytest",
        "tests/test_clients.py",
        *session.posargs,
        env={"LEAN_HARNESS_CLIENTS_BIN": str(prefix / "node_modules" / ".bin")},
    )
