"""Shared fixtures: every test runs in its own folder, with HOME, git and LH_* isolated."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.search import search, thesaurus
from lean_harness.scanning import credentials, engine
from support import APP, git, lh


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
    for name in list(os.environ):
        if name.startswith("LH_") or name in ("SOURCE_DATE_EPOCH", "TIKTOKEN_CACHE_DIR"):
            monkeypatch.delenv(name)


@pytest.fixture
def cold_scanner() -> None:
    """Every table the scanner works out once per process emptied (compiled patterns, the registry
    order), so that a test runs the code that fills them (for the scanner's own tests:
    a mutation run forks each mutant's tests from a process whose tables the unchanged code filled)."""
    for table in (engine._compiled, credentials._ORDER):
        table.clear()


@pytest.fixture(autouse=True)
def cold_search_caches() -> None:
    """Each test analyzes and relates words afresh: search's per-process stem and chunk caches and the
    related-word cache are filled once per process, and a
    mutation run forks each mutant's tests from a process that already filled them with the
    unchanged code's answers."""
    search.stem.cache_clear()
    search._chunk_terms.cache_clear()
    search._synonyms.cache_clear()
    thesaurus.related.cache_clear()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with lean-harness initialised in it, and the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    assert main(["init"]) == 0
    return root


# The deploys shard: two entries with loose prose (text, a list, a heading, a code block) around them.
DEPLOYS = """\
# deploys

How we ship.

<!-- lh:entry id="aaa111" created="2026-11-01T10:00:00Z" tags="ci" -->
Staging deploys need the VPN.
<!-- /lh:entry id="aaa111" -->

Rollbacks take ten minutes
because the cache warms slowly.

- blue/green on Fridays
- never on holidays

## Database

Migrations run before the deploy.

```
make migrate

make deploy
```

<!-- lh:entry id="bbb222" created="2026-11-02T10:00:00Z" sources="x y" -->
Digest of old notes.
<!-- /lh:entry id="bbb222" -->
"""

IMPORT_FIXTURES = Path(__file__).parent / "fixtures" / "import"


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A copy of the format fixtures, outside the project."""
    target = tmp_path / "sources"
    shutil.copytree(IMPORT_FIXTURES, target)
    return target


@pytest.fixture
def repo_with_entry(project: Path) -> Path:
    """An initialised project in a real git repository, with one entry (doctor's checks and fixes)."""
    git(project, "init", "-q")
    assert main(["memory", "put", "failures", "test_lock hangs on Windows: open the lock file in binary mode"]) == 0
    return project


@pytest.fixture
def repo_with_app(project: Path) -> Path:
    """An initialised project in a git repository with one committed source file, src/app.py (evidence)."""
    git(project, "init", "-q", "-b", "main")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text(APP, "utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "start")
    return project


@pytest.fixture
def deploys(tmp_path: Path) -> Path:
    """An initialised project whose deploys shard holds loose prose beside its entries (DEPLOYS)."""
    root = tmp_path / "p"
    root.mkdir()
    assert lh("init", cwd=root).returncode == 0
    assert lh("config", "set", "memory.shards.deploys", "How we ship.", cwd=root).returncode == 0
    (root / ".agents" / "memory" / "deploys.md").write_text(DEPLOYS, encoding="utf-8")
    return root
