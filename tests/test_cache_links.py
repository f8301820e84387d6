"""A repository may commit a symbolic link anywhere in the cache folder: no command and no hook
writes through it. Every folder of the cache layout, found by running the commands, is replaced in
turn by a link to an empty folder outside the project, and each command then runs against it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lean_harness import hookstate
from lean_harness.memory.tokens import TokenCounter

REPO = Path(__file__).resolve().parents[1]
CACHE = ".agents/.cache"
REFUSED = "{} is a symbolic link; lean-harness only manages real files. Replace the link with the file or folder itself"
# The folders the commands below make today, written out by hand: the layout found by running them
# must hold these, so that a discovery that finds nothing cannot pass for a clean run.
KNOWN = {
    CACHE,
    f"{CACHE}/lh",
    f"{CACHE}/lh/hooks",
    f"{CACHE}/lh/hooks/seen",
    f"{CACHE}/lh/search",
    f"{CACHE}/lh/shards",
    f"{CACHE}/lh/tokens",
    f"{CACHE}/lh/tokens/cl100k_base",
}
COMMANDS = {
    "status": ["memory", "status"],
    "put": ["memory", "put", "insights", "the parser reads one line at a time"],
    "query": ["memory", "get", "--query", "parser line"],
    "index": ["memory", "index"],
    "doctor": ["doctor"],
    "verify": ["memory", "verify"],
    "import": ["memory", "import", "{records}"],
    "session-start": ["hook", "session-start"],
    "prompt-submit": ["hook", "prompt-submit"],
}

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LH_") and k != "SOURCE_DATE_EPOCH"}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
        CLAUDE_PLUGIN_ROOT=str(REPO),
    )
    return env


def run(
    args: list[str], root: Path, home: Path, records: Path, session: str = "s-1"
) -> subprocess.CompletedProcess[str]:
    """One command as a user runs it, or one hook as a client runs it (event JSON on stdin)."""
    if args[0] == "hook":
        command = [sys.executable, "-S", str(REPO / "hooks" / "run.py"), args[1]]
        stdin: str | None = json.dumps({"session_id": session, "cwd": str(root), "hook_event_name": args[1]})
    else:
        command = [sys.executable, "-m", "lean_harness", *(a.format(records=records) for a in args)]
        stdin = None
    return subprocess.run(
        command, cwd=root, input=stdin, capture_output=True, text=True, env=environment(home), timeout=120, check=False
    )


def git(root: Path, *args: str, home: Path) -> None:
    subprocess.run(["git", *args], cwd=root, env=environment(home), check=True, capture_output=True, timeout=60)


def tree(folder: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every file, folder and link under `folder`, links not followed, with what each holds."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for parent, folders, names in os.walk(folder):
        for name in folders + names:
            path = Path(parent) / name
            key = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("folder", b"")
            else:
                found[key] = ("file", path.read_bytes())
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """A project every command and hook has run in, its user home, and every folder of its cache."""
    base = tmp_path_factory.mktemp("template")
    root, home, records = base / "project", base / "home", base / "records.jsonl"
    root.mkdir()
    home.mkdir()
    git(root, "init", "-q", home=home)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("a = 1\nb = 2\nc = 3\n", encoding="utf-8")
    records.write_text(json.dumps({"shard": "seed", "text": "records are imported once"}) + "\n", encoding="utf-8")
    assert run(["init"], root, home, records).returncode == 0
    git(root, "add", "-A", home=home)
    git(root, "commit", "-qm", "start", home=home)
    assert (
        run(["memory", "put", "seed", "the app sets b", "--ref", "src/app.py#L2"], root, home, records).returncode == 0
    )
    git(root, "mv", "src/app.py", "src/main.py", home=home)  # a moved citation: verify records renames
    git(root, "commit", "-qm", "move", home=home)
    for args in COMMANDS.values():
        done = run(args, root, home, records)
        assert done.returncode in (0, 1), (args, done.stderr)
    layout = sorted(
        path.relative_to(root).as_posix() for path in [root / CACHE, *(root / CACHE).rglob("*")] if path.is_dir()
    )
    assert set(layout) >= KNOWN, layout
    return root, home, layout


@pytest.mark.parametrize("command", COMMANDS)
def test_no_command_writes_through_a_linked_cache_folder(
    template: tuple[Path, Path, list[str]], tmp_path: Path, command: str
) -> None:
    source_root, source_home, layout = template
    wrong: list[str] = []
    for at, folder in enumerate(layout):
        case = tmp_path / str(at)
        root, home, outside, records = case / "project", case / "home", case / "outside", case / "records.jsonl"
        shutil.copytree(source_root, root, symlinks=True)
        shutil.copytree(source_home, home, symlinks=True)
        outside.mkdir()
        records.write_text(json.dumps({"shard": "insights", "text": "a record from elsewhere"}) + "\n", "utf-8")
        shutil.rmtree(root / folder)
        (root / folder).symlink_to(outside, target_is_directory=True)
        before = {k: v for k, v in tree(case).items() if not k.startswith("project/")}

        done = run(COMMANDS[command], root, home, records, session="s-2")

        after = {k: v for k, v in tree(case).items() if not k.startswith("project/")}
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        lines = done.stderr.splitlines()
        if changed or list(outside.iterdir()):
            wrong.append(f"{folder}: wrote {changed}")
        elif done.returncode == 2 and lines != [REFUSED.format(folder)]:
            wrong.append(f"{folder}: exit 2 with {lines}")
        elif done.returncode not in (0, 2) and not (command in ("doctor", "verify") and done.returncode == 1):
            wrong.append(f"{folder}: exit {done.returncode} with {lines}")
        elif command == "doctor" and done.returncode == 1 and f"{folder} is a symbolic link" not in done.stdout:
            wrong.append(f"{folder}: doctor failed without naming the link: {done.stdout}")
    assert wrong == []


@pytest.mark.parametrize("linked", [".agents/.cache", ".agents/.cache/lh", ".agents/.cache/lh/hooks", "seen"])
def test_a_hook_record_is_skipped_when_a_folder_on_its_way_is_a_link(tmp_path: Path, linked: str) -> None:
    """The hooks' records are written without a Memory open: the writer itself checks the way."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    folder = root / ".agents/.cache/lh/hooks/seen"
    folder.mkdir(parents=True)
    outside.mkdir()
    link = folder if linked == "seen" else root / linked
    shutil.rmtree(link)
    link.symlink_to(outside, target_is_directory=True)
    hookstate.save(str(folder / "s-1"), {"seed.md": (1, 2, 3)}, str(root))
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("linked", ["tokens", "tokens/cl100k_base"])
def test_token_counts_are_not_appended_through_a_linked_folder(tmp_path: Path, linked: str) -> None:
    cache, outside = tmp_path / "lh", tmp_path / "outside"
    (cache / "tokens" / "cl100k_base").mkdir(parents=True)
    outside.mkdir()
    shutil.rmtree(cache / linked)
    (cache / linked).symlink_to(outside, target_is_directory=True)
    counter = TokenCounter("cl100k_base", cache)
    counter.count("a text whose count is kept")
    counter.save()
    assert list(outside.iterdir()) == []
