"""Time the plugin's hooks as the clients run them, against a bare interpreter; print a Markdown table.

The project is a throwaway memory of 1,000 entries built as `bench_memory.py` builds its
memories (`lh init`, then shard files written directly, then `lh memory index`). Each hook runs
as hooks/hooks.json names it: `sh hooks/lh-hook EVENT`, the launcher included, with the event's
JSON on stdin and `python3` from PATH. The figures compared run one after the other in the same
loop, so a busy machine slows all of them:

- `python3 -c pass`: a bare interpreter, the yardstick;
- session-start with INDEX.md as lh wrote it (the common case), and after a shard changed by
  hand (the hook shows what it has and starts lh's reading of the memory in the background,
  which is waited for before the next figure);
- prompt-submit with nothing changed, and with one shard changed by hand;
- session-start as Copilot CLI runs it (its event has a timestamp; the text goes out as JSON);
- tool-use after a command that succeeded, after a read of a file no note cites, and
  prompt-submit with a prompt that matches no note strongly: the silent paths (adr/0037);
- tool-use after a failed command whose note is in the memory, after a read of a cited file, and
  prompt-submit with a prompt that matches a note: the searching paths, each run in a new
  session so that the note is handed over every time.

Targets (medians): the silent paths within 1.5x the bare interpreter (they run on every turn or
tool call); session-start within 3x (once a session); the searching paths within 5x.
Timed processes run with the bytecode cache on, kept in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import bench_memory

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"prompt-submit": 1.5, "session-start": 3.0, "tool-use, success": 1.5, "tool-use, uncited read": 1.5}
TARGETS |= {"session-start, a shard changed": 3.0, "session-start, Copilot CLI": 3.0}
TARGETS |= {"prompt-submit, no match": 1.5, "tool-use, failure": 5.0, "tool-use, cited read": 5.0}
TARGETS |= {"prompt-submit, a match": 5.0}
FAILURE = "Exit code 1\nE   ModuleNotFoundError: No module named 'flaky_widgets_plugin'\nERROR tests/test_w.py"


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, input=stdin.encode(), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def reread(root: Path, timeout: float = 60) -> None:
    """Wait until the map the session start has lh make again in the background describes the memory now."""
    from lean_harness import locations, recall

    memory = str(root / locations.MEMORY_DIR)
    stamp = recall.stamp(memory, locations.personal_dir(str(root), memory))
    end = time.monotonic() + timeout
    while recall.load(root / locations.CACHE_DIR, stamp, whole=False) is None and time.monotonic() < end:
        time.sleep(0.02)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--entries", type=int, default=1000, help="entries in the memory (default 1000)")
    parser.add_argument("--repeat", type=int, default=40, help="runs of each figure (default 40)")
    parser.add_argument(
        "--python", default="python3", help="the interpreter the hooks and the bare runs use (default: python3 on PATH)"
    )
    args = parser.parse_args(argv)
    lh = bench_memory.find_lh()
    work = Path(tempfile.mkdtemp(prefix="lh-bench-hooks-"))
    try:
        root = work / "project"
        bench_memory.build(root, args.entries, lh)
        (root / "app.py").write_text("print('app')\n", encoding="utf-8")
        note = "ModuleNotFoundError flaky_widgets_plugin: install the dev extras with pip install -e .[dev]"
        quirk = ["quirks", "--ref", "app.py", "app.py prints on import; keep it that way"]
        for put_args in (["failures", note], quirk):
            subprocess.run([str(lh), "memory", "put", *put_args], cwd=root, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(lh), "memory", "index"], cwd=root, check=True, stdout=subprocess.DEVNULL)
        index = root / ".agents" / "memory" / "INDEX.md"
        past = time.time() - 10
        os.utime(index, (past, past))  # a settled INDEX.md, as between sessions
        env = bench_memory.child_environment(work / "pycache")
        env["CLAUDE_PLUGIN_ROOT"] = str(REPO)
        # The hooks and the bare runs start the same interpreter by the name `python3`, the way
        # lh-hook finds it; a version manager's shim script in between would be timed otherwise.
        real = subprocess.run(
            [args.python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, check=True
        ).stdout.strip()
        (work / "bin").mkdir()
        (work / "bin" / "python3").symlink_to(real)
        env["PATH"] = str(work / "bin") + os.pathsep + env["PATH"]
        event = json.dumps({"session_id": "bench", "cwd": str(root)})
        hook = ["sh", str(REPO / "hooks" / "lh-hook")]
        quirks = root / ".agents" / "memory" / "quirks.md"
        timed([*hook, "session-start"], root, env, event)  # warms the bytecode cache
        figures: dict[str, list[float]] = {
            name: []
            for name in (
                "bare",
                "session-start",
                "session-start, a shard changed",
                "prompt-submit",
                "prompt-submit changed",
                "session-start, Copilot CLI",
                "tool-use, success",
                "tool-use, uncited read",
                "prompt-submit, no match",
                "tool-use, failure",
                "tool-use, cited read",
                "prompt-submit, a match",
            )
        }
        tool = {"cwd": str(root), "hook_event_name": "PostToolUse"}
        success = {**tool, "session_id": "bench", "tool_name": "Bash", "tool_response": {"stdout": "ok"}}
        uncited = {**tool, "session_id": "bench", "tool_name": "Read", "tool_input": {"file_path": "README.md"}}
        no_match = {"session_id": "bench", "cwd": str(root), "prompt": "rename the variable in the footer template"}
        copilot = json.dumps({"session_id": "bench", "cwd": str(root), "timestamp": "2026-01-01T00:00:00Z"})
        for _ in range(args.repeat):
            # The yardstick is the interpreter as it was named: through the link above, a virtual
            # environment's python3 starts as its base interpreter, whose site-packages may load much more.
            figures["bare"].append(timed([real, "-c", "pass"], root, env))
            figures["session-start"].append(timed([*hook, "session-start"], root, env, event))
            figures["session-start, Copilot CLI"].append(timed([*hook, "session-start"], root, env, copilot))
            figures["prompt-submit"].append(timed([*hook, "prompt-submit"], root, env, event))
            with quirks.open("a", encoding="utf-8") as handle:
                handle.write("\n")
            figures["prompt-submit changed"].append(timed([*hook, "prompt-submit"], root, env, event))
            figures["session-start, a shard changed"].append(timed([*hook, "session-start"], root, env, event))
            reread(root)
            subprocess.run([str(lh), "memory", "index"], cwd=root, check=True, stdout=subprocess.DEVNULL)
            figures["tool-use, success"].append(timed([*hook, "tool-use"], root, env, json.dumps(success)))
            figures["tool-use, uncited read"].append(timed([*hook, "tool-use"], root, env, json.dumps(uncited)))
            figures["prompt-submit, no match"].append(timed([*hook, "prompt-submit"], root, env, json.dumps(no_match)))
            session = f"s{len(figures['tool-use, failure'])}"
            failed = {**tool, "session_id": session, "hook_event_name": "PostToolUseFailure", "error": FAILURE}
            figures["tool-use, failure"].append(timed([*hook, "tool-use"], root, env, json.dumps(failed)))
            cited = {**tool, "session_id": session, "tool_name": "Read", "tool_input": {"file_path": "app.py"}}
            figures["tool-use, cited read"].append(timed([*hook, "tool-use"], root, env, json.dumps(cited)))
            match = {"session_id": session, "cwd": str(root), "prompt": "ModuleNotFoundError for flaky_widgets_plugin"}
            figures["prompt-submit, a match"].append(timed([*hook, "prompt-submit"], root, env, json.dumps(match)))
        bare = statistics.median(figures["bare"])
        print(f"Hooks on a {args.entries}-entry memory, {args.repeat} runs each, medians; python3 is {real}.\n")
        print("| figure | median | vs bare | target |")
        print("|---|---|---|---|")
        failed = False
        for name, values in figures.items():
            median = statistics.median(values)
            ratio = median / bare
            target = ""
            if name in TARGETS:
                ok = ratio <= TARGETS[name]
                failed = failed or not ok
                target = f"<= {TARGETS[name]}x {'ok' if ok else 'MISSED'}"
            print(f"| {name} | {median * 1000:.1f} ms | {ratio:.2f}x | {target} |")
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
