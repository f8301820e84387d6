"""Replay recorded agent events through the plugin's hooks and count the memory entries they hand over.

    python3 benchmarks/replay/run.py [--hooks ROOT] [--set NAME]... [--public DIR] [--locomo PATH] [--out FILE]

For each memory, a throwaway git project is made (a few plain files, and the files its notes
cite), `lh init` is run and the memory imported with `lh memory import`; then every event of the
set is piped, as Claude Code would send it, into `sh ROOT/hooks/lh-hook HOOK` with the project as
its working folder, each event in a session of its own. An entry counts as handed over when the
hook prints it under its `[shard/id]` line. Events are labelled with the entries that should come
(`expect`), entries that may come without being wrong (`ok`), or nothing; the labels were set by
reading the notes, never by running the hooks.

Sets (`sets/*.json`, events from `recorded.jsonl`, `issues.jsonl` and `fresh*.jsonl`):
- `designed`: notes, files and events written together for this benchmark; tune on this one.
- `fresh`: a polyglot repository's notes, files and events, written without reading or running the
  hooks; its commands' real output is in `fresh.jsonl` (`capture_fresh.py`).
- `fresh2`: the same, for a Django + Celery + Postgres web app with a React front end
  (`fresh2.jsonl`, `capture_fresh2.py`).
- `fresh3`: the same, for a C++/CMake library with pybind11 bindings, a Node docs site and shell
  release scripts (`fresh3.jsonl`, `capture_fresh3.py`); `fresh4`, a Go service with a Java
  client, SQL migrations, a Python export and deploy scripts; `fresh5`, a scientific Python
  package with a C helper, a click CLI and a sqlite3 catalogue.
- `NAME+tags`: a fresh set with the tags an agent gave its notes from the notes alone, following
  the skill's advice (`sets/tags/NAME.json`).
  Each fresh set is first run once, untouched, against a rule chosen without it; after that it may be
  chosen on (adr/0037 says which set judged which rule), and the next rule needs a new set.
- `heldout`: benchmarks/retrieval/heldout's 120 notes and 303 questions (its qrels), with the
  recorded commands labelled by reading the notes.
- `public`: public memory folders, imported as they are; `--public DIR` holds one folder per
  memory name (DIR/ActorForth/MEMORY.md), fetched from the repository and commit the set names
  (`git clone URL && git -C REPO archive COMMIT PATH | tar -x`, then move PATH's files there).
- `locomo`: LoCoMo's conversations (`--locomo PATH` to data/locomo10.zip), each turn an entry;
  its questions as prompts and the recorded commands as unrelated events.

The held-out set is also reported in two halves (`split`): `dev`, the events thresholds may be
chosen on, and `untouched`, the rest; `--misses` lists only the dev half's misses for it.

Prints, per set and event kind: events, events with a note, recall (share of the expected
entries handed over), the share of handed-over entries that are irrelevant, the share of events
without a note that stay silent (print nothing), tokens printed per 100 events (lean_harness's
own count, cl100k_base) and the median hook time, then one summary line per set. `--query`
answers each prompt and failure with `lh memory get --query` at the strict threshold (0.3, top 3)
instead of the hooks, as a reference. Run it with a Python that has lean_harness's
dependencies; ROOT is a source tree (default: this one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Claude Code event name -> the argument of hooks/lh-hook that handles it. The tree's own
# hooks/hooks.json overrides a row when it registers the event under another name.
HOOKS = {
    "PostToolUse": "tool-use",
    "PostToolUseFailure": "tool-use",
    "UserPromptSubmit": "prompt-submit",
}
KINDS = ("failure", "success", "read", "prompt")
HERE = Path(__file__).resolve().parent
# The sets that hold their own files, notes and events: designed, then each fresh one in order.
WRITTEN = ["designed", *sorted((p.stem for p in (HERE / "sets").glob("fresh*.json")), key=lambda n: (len(n), n))]
TAGGED = [f"{name}+tags" for name in WRITTEN if (HERE / "sets" / "tags" / f"{name}.json").is_file()]
RECORDED_ROOT = "/home/dev/project"  # the project path capture.py writes into outputs
SCAFFOLD = {
    "README.md": "# shop\n\nA small web shop.\n",
    "src/app.py": "def main() -> int:\n    return 0\n",
    "tests/test_app.py": "from app import main\n\n\ndef test_main():\n    assert main() == 0\n",
    "package.json": '{\n  "name": "shop",\n  "version": "1.0.0"\n}\n',
}
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def recorded_events() -> dict[str, dict[str, Any]]:
    """Every recorded command's event, by id."""
    return {
        r["id"]: r["event"]
        for path in [HERE / "recorded.jsonl", HERE / "issues.jsonl", *sorted(HERE.glob("fresh*.jsonl"))]
        for r in read_jsonl(path)
    }


class Project:
    """A throwaway git project holding one imported memory, and the hooks of one source tree."""

    def __init__(self, base: Path, hooks: Path, files: dict[str, str], notes: list[dict[str, Any]]) -> None:
        self.hooks = hooks
        self.names = hook_names(hooks)
        self.home = base / "home"
        self.root = base / "project"
        self.home.mkdir()
        self.files = {**SCAFFOLD, **files}
        for name, text in self.files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        self.env = {
            "PATH": "/usr/bin:/bin:" + os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "CLAUDE_PLUGIN_ROOT": str(hooks),
            "CLAUDE_PROJECT_DIR": str(self.root),
            "TMPDIR": str(base),
            **GIT_ENV,
        }
        for step in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "start"]):
            subprocess.run(step, cwd=self.root, env=self.env, check=True, capture_output=True)
        self.lh("init")
        if notes:
            source = base / "notes.jsonl"
            source.write_text("".join(json.dumps(n, ensure_ascii=False) + "\n" for n in notes), "utf-8")
            self.lh("memory", "import", str(source), "--format", "jsonl")
        self.ids = self._ids()
        if len(self.ids) < len(notes):
            print(
                f"note: {len(notes) - len(self.ids)} of the set's notes were refused by lh memory import",
                file=sys.stderr,
            )

    def lh(self, *args: str, check: bool = True) -> str:
        env = {**self.env, "PYTHONPATH": str(self.hooks / "src")}
        done = subprocess.run(
            [sys.executable, "-m", "lean_harness", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode not in (0, 1):
            raise SystemExit(f"lh {' '.join(args)} failed in {self.root}: {done.stderr.strip()}")
        return done.stdout

    def import_folder(self, folder: Path) -> None:
        self.lh("memory", "import", str(folder))
        self.ids = self._ids()

    def _ids(self) -> list[str]:
        return [json.loads(line)["id"] for line in self.lh("memory", "export").splitlines() if line.strip()]

    def event(self, spec: dict[str, Any], recorded: dict[str, dict[str, Any]], number: int) -> dict[str, Any]:
        """The JSON Claude Code would send for one event of a set, in this project."""
        base = {
            "session_id": f"replay-{number}",
            "transcript_path": str(self.home / f"replay-{number}.jsonl"),
            "cwd": str(self.root),
            "permission_mode": "default",
        }
        if "recorded" in spec:
            text = json.dumps(recorded[spec["recorded"]]).replace(RECORDED_ROOT, str(self.root))
            return {**json.loads(text), **base}
        if "read" in spec:
            path = self.root / spec["read"]
            content = self.files.get(spec["read"], "")
            lines = content.count("\n")
            response = {
                "filePath": str(path),
                "content": content,
                "numLines": lines,
                "startLine": 1,
                "totalLines": lines,
            }
            return {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Read",
                "tool_input": {"file_path": str(path)},
                "tool_response": {"type": "text", "file": response},
            }
        return {**base, "hook_event_name": "UserPromptSubmit", "prompt": spec["prompt"]}

    def run_query(self, event: dict[str, Any]) -> tuple[str, float, str]:
        """The reference: `lh memory get --query` at the strict threshold, asked with a prompt's text
        or a failure's output (its first 2,000 characters); silent on anything else."""
        text = event.get("prompt") or event.get("error", "")[:2000]
        if not text:
            return "", 0.0, ""
        started = time.perf_counter()
        found = self.lh("memory", "get", "--query=" + text, "--min-score", "0.3", "--limit", "3")
        return ("" if found.startswith("nothing matched") else found), (time.perf_counter() - started) * 1000, ""

    def run_hook(self, event: dict[str, Any]) -> tuple[str, float, str]:
        """What the hook printed, how long it took (ms), and its error output."""
        started = time.perf_counter()
        done = subprocess.run(
            ["sh", str(self.hooks / "hooks" / "lh-hook"), self.names[event["hook_event_name"]]],
            input=json.dumps(event),
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.stdout, (time.perf_counter() - started) * 1000, done.stderr.strip()


def hook_names(root: Path) -> dict[str, str]:
    """`HOOKS`, with the names the tree's hooks/hooks.json registers for those events."""
    names = dict(HOOKS)
    registered = json.loads((root / "hooks" / "hooks.json").read_text("utf-8"))["hooks"]
    for event in names:
        for group in registered.get(event, []):
            for hook in group.get("hooks", []):
                found = re.search(r'lh-hook"? +([\w-]+)', hook.get("command", ""))
                if found:
                    names[event] = found.group(1)
    return names


def shown_text(stdout: str) -> str:
    """What the agent is given: a JSON answer's context fields, else the text itself."""
    try:
        value = json.loads(stdout)
    except ValueError:
        return stdout
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            for key, inner in item.items():
                if key in ("additionalContext", "systemMessage") and isinstance(inner, str):
                    found.append(inner)
                else:
                    walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(value)
    return "\n".join(found) if found else stdout


def handed(text: str, ids: list[str]) -> set[str]:
    """The entry ids a hook's output hands over: each note is printed under `[shard/id]` (an id that is
    also a word, `release`, counts only there)."""
    return set(re.findall(r"^\[[^/\]\s]+/([^\]\s]+)\]", text, re.MULTILINE)) & set(ids)


def replay(
    project: Project,
    events: list[dict[str, Any]],
    recorded: dict[str, dict[str, Any]],
    query: bool = False,
    one_session: bool = False,
) -> Iterator[dict[str, Any]]:
    """Each event with what its hook printed and which entries that handed over; with `one_session`,
    every event in one session, and `held` the expected entries handed over earlier in it."""
    earlier: set[str] = set()
    for number, spec in enumerate(events):
        event = project.event(spec, recorded, number)
        event["session_id"] = "replay-session" if one_session else event["session_id"]
        stdout, ms, stderr = project.run_query(event) if query else project.run_hook(event)
        text = shown_text(stdout)
        given = handed(text, project.ids)
        held, earlier = sorted(set(spec["expect"]) & earlier) if one_session else [], earlier | given
        yield {**spec, "stdout": text, "ms": ms, "stderr": stderr[:300], "handed": sorted(given), "held": held}


def counter() -> Any:
    from lean_harness.memory.tokens import TokenCounter

    return TokenCounter("cl100k_base", Path(tempfile.mkdtemp(prefix="replay-tokens-")))


def table(name: str, results: list[dict[str, Any]], count: Any) -> list[str]:
    """The per-kind figures of one set, as Markdown rows."""
    lines = [
        f"\n### {name}\n",
        "| kind | events | with a note | recall | irrelevant handed | silent without a note"
        " | tokens / 100 events | median ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in (*KINDS, "all"):
        rows = [r for r in results if kind in ("all", r["kind"])]
        if not rows:
            continue
        got = figures(rows)
        tokens = sum(count.count(r["stdout"]) for r in rows if r["stdout"])
        lines.append(
            f"| {kind} | {len(rows)} | {sum(1 for r in rows if r['expect'])} | {_share(*got['recall'])}"
            f" | {_share(*got['wrong'])} | {_share(*got['silent'])} | {100 * tokens / len(rows):.0f}"
            f" | {statistics.median(r['ms'] for r in rows):.0f} |"
        )
    return lines


def figures(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Counts of one group of events: expected entries found, handed-over ones that are wrong, silence."""
    related = [r for r in rows if r["expect"]]
    quiet = [r for r in rows if not r["expect"]]
    given = sum(len(r["handed"]) for r in rows)
    return {
        "recall": (
            sum(len(set(r["expect"]) & {*r["handed"], *r["held"]}) for r in related),
            sum(len(r["expect"]) for r in related),
        ),
        "wrong": (sum(len(set(r["handed"]) - set(r["expect"]) - set(r["ok"])) for r in rows), given),
        "silent": (sum(1 for r in quiet if not r["stdout"].strip()), len(quiet)),
    }


def summary_row(name: str, results: list[dict[str, Any]], count: Any) -> str:
    """One set in a line: the figures the targets are about."""
    cells = []
    for kind in ("failure", "read", "prompt"):
        got = figures([r for r in results if r["kind"] == kind])
        parts = [_share(*got["recall"])]
        if kind == "prompt":
            right, given = got["wrong"][1] - got["wrong"][0], got["wrong"][1]
            parts.append(_share(right, given))
        parts.append(_share(*got["silent"]))
        cells.append(" / ".join(parts))
    every = figures(results)
    tokens = sum(count.count(r["stdout"]) for r in results if r["stdout"])
    return f"| {name} | {' | '.join(cells)} | {_share(*every['wrong'])} | {100 * tokens / len(results):.0f} |"


def misses(results: list[dict[str, Any]]) -> list[str]:
    """One line per event whose expected entry did not come, or that printed what it should not."""
    lines = ["\nmisses (kind, event: expected -> handed over; what was printed):"]
    for r in results:
        lost = set(r["expect"]) - set(r["handed"]) - set(r["held"])
        wrong = set(r["handed"]) - set(r["expect"]) - set(r["ok"])
        loud = not r["expect"] and r["stdout"].strip() and not r["handed"]
        if lost or wrong or loud:
            label = r.get("recorded") or r.get("read") or r.get("prompt")
            said = " ".join(r["stdout"].split())[:160]
            lines.append(
                f"- {r['kind']}, {label}: {r['expect'] or '-'} -> {sorted(r['handed']) or '-'}; {said or 'silent'}"
            )
    return lines


def split(results: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The held-out events in two halves: `dev`, to tune on, holds the events whose first expected entry
    has an odd number (n021) and every other event expecting nothing, in order, per kind; `untouched` the rest."""
    halves: dict[str, list[dict[str, Any]]] = {"dev": [], "untouched": []}
    quiet: dict[str, int] = {}
    for r in results:
        if r["expect"]:
            odd = int(re.sub(r"\D", "", r["expect"][0]) or 0) % 2 == 1
        else:
            quiet[r["kind"]] = quiet.get(r["kind"], -1) + 1
            odd = quiet[r["kind"]] % 2 == 0
        halves["dev" if odd else "untouched"].append(r)
    return halves


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%} ({part}/{whole})" if whole else "-"


def written_set(base: Path, hooks: Path, name: str) -> Iterator[tuple[Project, list[dict[str, Any]]]]:
    """A set that holds its own files, notes and events (`designed` and each `fresh` set); `NAME+tags`,
    the same with the tags an agent gave its notes by the skill's advice (`sets/tags/NAME.json`)."""
    name, _, tagged = name.partition("+")
    data = json.loads((HERE / "sets" / f"{name}.json").read_text("utf-8"))
    tags = json.loads((HERE / "sets" / "tags" / f"{name}.json").read_text("utf-8")) if tagged else {}
    notes = [{**note, "tags": sorted({*note["tags"], *tags.get(note["id"], [])})} for note in data["notes"]]
    yield Project(base, hooks, data["files"], notes), data["events"]


def heldout_set(base: Path, hooks: Path) -> Iterator[tuple[Project, list[dict[str, Any]]]]:
    data = json.loads((HERE / "sets" / "heldout.json").read_text("utf-8"))
    sets = HERE / "sets"
    notes = read_jsonl((sets / data["notes_file"]).resolve())
    folder = (sets / data["prompts_from"]).resolve()
    relevant: dict[str, list[str]] = {}
    for line in (folder / "qrels.tsv").read_text("utf-8").splitlines()[1:]:
        qid, key, grade = line.split("\t")
        if int(grade) > 0:
            relevant.setdefault(qid, []).append(key)
    prompts = [
        {"kind": "prompt", "expect": relevant.get(q["qid"], []), "ok": [], "prompt": q["query"], "set": q["set"]}
        for q in read_jsonl(folder / "queries.jsonl")
    ]
    yield Project(base, hooks, {}, notes), [*data["events"], *prompts]


def public_set(base: Path, hooks: Path, folder: Path | None) -> Iterator[tuple[Project, list[dict[str, Any]]]]:
    data = json.loads((HERE / "sets" / "public.json").read_text("utf-8"))
    for number, memory in enumerate(data["memories"]):
        source = folder / memory["name"] if folder else None
        if source is None or not source.is_dir():
            print(
                f"public: {memory['name']} skipped; put {memory['repo']}@{memory['commit'][:12]}:{memory['path']}"
                " in --public DIR/" + memory["name"],
                file=sys.stderr,
            )
            continue
        place = base / str(number)
        place.mkdir()
        project = Project(place, hooks, {}, [])
        project.import_folder(source)
        yield project, memory["events"]


def locomo_set(
    base: Path, hooks: Path, path: Path | None, conversations: int
) -> Iterator[tuple[Project, list[dict[str, Any]]]]:
    if path is None:
        print("locomo: skipped; give --locomo PATH to LoCoMo's data/locomo10.zip", file=sys.stderr)
        return
    sys.path.insert(0, str(HERE.parent / "retrieval"))
    import locomo

    recorded = [r["id"] for name in ("recorded.jsonl", "issues.jsonl") for r in read_jsonl(HERE / name)]
    for number, conversation in enumerate(locomo.conversations(path)):
        if number >= conversations:
            return
        notes = [
            {**entry, "id": entry["id"].replace(":", "-"), "shard": "insights"}
            for entry in locomo.memory_of(conversation)
        ]
        questions, qrels = locomo.questions_of(conversation, number)
        events = [
            {
                "kind": "prompt",
                "expect": sorted(k.replace(":", "-") for k in qrels[q["qid"]]),
                "ok": [],
                "prompt": q["query"],
            }
            for q in questions
            if q["set"] in ("multi-hop", "temporal", "open-domain", "single-hop") and qrels[q["qid"]]
        ]
        events += [
            {"kind": "success" if key.startswith("ok-") else "failure", "expect": [], "ok": [], "recorded": key}
            for key in recorded
        ]
        place = base / str(number)
        place.mkdir()
        yield Project(place, hooks, {}, notes), events


def bare_ms() -> float:
    """The median wall time of the interpreter lh-hook starts, doing nothing, as the hooks' floor."""
    env = {"PATH": "/usr/bin:/bin:" + os.environ.get("PATH", "")}
    times = []
    for _ in range(21):
        started = time.perf_counter()
        subprocess.run(["sh", "-c", "python3 -S -c pass"], env=env, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def memories_of(
    name: str, base: Path, hooks: Path, args: argparse.Namespace
) -> Iterator[tuple[Project, list[dict[str, Any]]]]:
    """The projects of one set, each with its events."""
    if name in WRITTEN or name in TAGGED:
        return written_set(base, hooks, name)
    if name == "heldout":
        return heldout_set(base, hooks)
    if name == "public":
        return public_set(base, hooks, args.public)
    return locomo_set(base, hooks, args.locomo, args.conversations)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hooks", type=Path, default=HERE.parent.parent, help="the source tree whose hooks run")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        choices=[*WRITTEN, *TAGGED, "heldout", "public", "locomo"],
    )
    parser.add_argument("--public", type=Path, help="folder with one memory folder per public memory name")
    parser.add_argument("--locomo", type=Path, help="LoCoMo's data/locomo10.zip")
    parser.add_argument("--conversations", type=int, default=2, help="LoCoMo conversations to replay (default 2)")
    parser.add_argument("--out", type=Path, help="write every event's result here as jsonl")
    parser.add_argument("--misses", action="store_true", help="also list each miss and each wrong or noisy event")
    parser.add_argument(
        "--one-session",
        action="store_true",
        help="each memory's events in one session: a note comes once; one handed over earlier counts as met",
    )
    parser.add_argument(
        "--query", action="store_true", help="instead of the hooks, lh memory get --query --min-score 0.3 --limit 3"
    )
    args = parser.parse_args(argv)
    hooks = args.hooks.resolve()
    registered = (hooks / "hooks" / "hooks.json").read_text("utf-8")
    missing = [event for event in HOOKS if f'"{event}"' not in registered]
    if missing:
        print(f"note: {hooks}/hooks/hooks.json registers no hook for {', '.join(missing)}", file=sys.stderr)
    recorded = recorded_events()
    count = counter()
    print(f"hooks of {hooks}; a bare `python3 -S -c pass` takes {bare_ms():.0f} ms (median of 21), the hooks' floor")
    out = args.out.open("w", encoding="utf-8") if args.out else None
    summary = [
        "\n### summary\n",
        "| memory (events) | failures: recall / silent | reads: recall / silent"
        " | prompts: recall / precision / silent | wrong | tokens / 100 events |",
        "|---|---|---|---|---:|---:|",
    ]
    for name in args.sets or [*WRITTEN, "heldout", "public", "locomo"]:
        with tempfile.TemporaryDirectory(prefix=f"replay-{name}-") as folder:
            memories = memories_of(name, Path(folder), hooks, args)
            results: list[dict[str, Any]] = []
            entries = 0
            for project, events in memories:
                entries += len(project.ids)
                for result in replay(project, events, recorded, args.query, args.one_session):
                    results.append(result)
                    if out:
                        out.write(json.dumps({"set": name, **result}, ensure_ascii=False) + "\n")
            if results:
                print("\n".join(table(f"{name}: {len(results)} events, {entries} entries", results, count)))
            if results:
                summary.append(summary_row(f"{name} ({len(results)})", results, count))
            halves = split(results) if name == "heldout" else {}
            for half, rows in halves.items():
                summary.append(summary_row(f"{name} {half} ({len(rows)})", rows, count))
            if results and args.misses:
                print("\n".join(misses(halves.get("dev", results))))
    print("\n".join(summary))
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
