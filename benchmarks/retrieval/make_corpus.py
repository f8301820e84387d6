"""Generate the retrieval benchmark: corpus.jsonl, queries.jsonl and qrels.tsv.

Entries come from templates filled with the vocabulary in vocab.py; each template family
also knows how a reader would ask for one of its entries, mostly in other words than the
entry's own (paraphrases), sometimes by identifier, partial name or error fragment. A
fixed seed makes every run write the same files. `synthetic(n)` makes larger corpora of
the same kind for timing.

    python3 benchmarks/retrieval/make_corpus.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vocab as v

HERE = Path(__file__).resolve().parent
SEED = 20260131

Fact = tuple[str, tuple[str, ...], str, list[tuple[str, str]]]  # shard, tags, text, queries


def words(name: str) -> str:
    return name.replace("_", " ")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def sentence(text: str) -> str:
    return text[0].upper() + text[1:]


EXTRAS = [
    "Seen first in PR #{n}.",
    "Reproduce with `pytest -x -p no:randomly tests/`.",
    "Took most of a day to track down.",
    "See issue #{n} for the discussion.",
    "Confirmed again on {date}.",
    "The CI log is in run {n}.",
    "",
    "",
    "",
    "",
]


def extra(rng: random.Random) -> str:
    template = rng.choice(EXTRAS)
    date = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return template.format(n=rng.randint(100, 9999), date=date)


def hangs(rng: random.Random) -> Iterator[Fact]:
    cases = ["roundtrip", "concurrent", "timeout", "cleanup", "reload", "large_input"]
    keys = [(m, p) for m in v.MODULES for p in v.PLATFORMS]
    for module, platform in rng.sample(keys, 100):
        name, _path, _cls, mwords, alt, _method = module
        key, shown, asked = platform
        cause, fix = rng.choice(v.HANG_CAUSES[key])
        test = f"test_{name}_{rng.choice(cases)}"
        text = rng.choice(
            [
                f"`tests/test_{name}.py::{test}` hangs on {shown} until the job timeout: {cause}. Fixed: {fix}.",
                f"{test} never finishes on {shown} CI. Cause: {cause}. Workaround: {fix}.",
            ]
        )
        plat = rng.choice(asked)
        queries = [
            ("question", f"why does the {words(name)} test hang on {plat}"),
            ("paraphrase", f"{alt} tests stuck forever on {plat}"),
            ("paraphrase", f"{mwords} suite freezes on {plat}"),
            ("identifier", f"{test} timeout {plat}"),
        ]
        yield "failures", ("ci", key, "hang"), text, queries


def missing_modules(rng: random.Random) -> Iterator[Fact]:
    for module, dist, reason in v.MISSING_MODULES:
        job = rng.choice(v.JOBS)
        text = (
            f"The {job} job fails with `ModuleNotFoundError: No module named '{module}'`: {reason}. "
            f"Add `{dist}` to the job's requirements."
        )
        queries = [
            ("error", f"No module named '{module}'"),
            ("paraphrase", f"ci cannot import {dist} package"),
            ("partial", f"{module} import missing in {job}"),
        ]
        yield "failures", ("ci", "dependencies"), text, queries


def errnos(rng: random.Random) -> Iterator[Fact]:
    network = [
        m
        for m in v.MODULES
        if m[0]
        in {
            "http_client",
            "webhooks",
            "mailer",
            "geocode",
            "payments",
            "upload",
            "auth",
            "rate_limit",
            "metrics",
            "cookie_jar",
        }
    ]
    keys = [(m, e) for m in network for e in v.ERRNOS]
    for module, error in rng.sample(keys, 55):
        name, path, cls, _mwords, alt, method = module
        code, desc, para = error
        trigger, fix = rng.choice(v.ERRNO_TRIGGERS)
        text = rng.choice(
            [
                f"`{cls}.{method}` raises `{code}` ({desc}) when {trigger}. Fix: {fix}.",
                f"{code} from {path}: {desc} because {trigger}; we now {fix}.",
            ]
        )
        queries = [
            ("error", f"{code} in {cls}"),
            ("paraphrase", f"{para} in the {alt}"),
            ("identifier", f"{method} {code.lower()}"),
            ("paraphrase", f"{words(name)} {para}"),
        ]
        yield "failures", ("network", name), text, queries


def flaky(rng: random.Random) -> Iterator[Fact]:
    suffixes = ["expiry", "ordering", "retries", "parallel", "unicode", "shutdown", "defaults"]
    for module in v.MODULES:
        name, _path, _cls, _mwords, _alt, _method = module
        for suffix in rng.sample(suffixes, 3):
            cause, fix = rng.choice(v.FLAKY_CAUSES)
            test = f"test_{name}_{suffix}"
            rate = rng.choice(["1 in 20", "about 5%", "1 in 50", "a third"])
            text = rng.choice(
                [
                    f"`{test}` is flaky ({rate} of CI runs): {cause}. Fix: {fix}.",
                    f"Flaky: {test} in tests/test_{name}.py fails {rate} of runs because {cause}. {sentence(fix)}.",
                ]
            )
            queries = [
                ("question", f"why does {test} randomly fail"),
                ("paraphrase", f"{words(name)} {suffix} test fails intermittently"),
                ("partial", f"{camel(name)}{suffix.title()} flaky"),
                ("paraphrase", f"sporadic red build in {words(name)} {suffix}"),
            ]
            yield "failures", ("flaky", "tests"), text + " " + extra(rng), queries


def upgrades(rng: random.Random) -> Iterator[Fact]:
    for dep, version, what, error in v.UPGRADES:
        text = (
            f"Upgrading {dep} to {version} broke {what}: `{error}`. "
            f"Pinned `{dep}<{version}` in requirements/base.txt until the code is ported."
        )
        fragment = " ".join(error.split()[1:6])
        queries = [
            ("error", fragment),
            ("paraphrase", f"what broke after bumping {dep}"),
            ("partial", f"{dep} {version} incompatibility"),
        ]
        yield "failures", ("dependencies", dep), text, queries


def mypy_errors(rng: random.Random) -> Iterator[Fact]:
    keys = [(m, e) for m in v.MODULES for e in v.MYPY_ERRORS]
    for module, error in rng.sample(keys, 90):
        name, path, _cls, _mwords, _alt, _method = module
        message, code, fix = error
        line = rng.randint(12, 480)
        lead = message.split('"')[0].strip()
        text = f"mypy --strict reports `{path}:{line}: error: {message}  [{code}]`; {fix}."
        queries = [
            ("error", f"{code} in {name}"),
            ("paraphrase", f"type checker complains about {path.split('/')[-1]} {code.split('-')[-1]}"),
            ("partial", f"{lead} {words(name)}"),
        ]
        yield "failures", ("mypy", "typing"), text, queries


def behaviours(rng: random.Random) -> Iterator[Fact]:
    asks = {
        "load_{m}": ["is {w} loading memoized", "does load_{m} reread the file every time"],
        "{m}_path": ["is {m}_path absolute or relative", "{w} path relative to repo root"],
        "close_{m}": ["does closing the {w} flush writes", "lost writes after close_{m}"],
        "validate_{m}": ["does validation of {w} report all problems", "validate_{m} returns only first error"],
        "reset_{m}": ["is resetting the {w} transactional", "reset_{m} half done after crash"],
        "{m}_from_dict": ["{w} from dict unknown keys", "{M}FromDict raises KeyError"],
    }
    keys = [(m, b) for m in v.MODULES for b in v.BEHAVIOURS]
    for module, behaviour in rng.sample(keys, 120):
        name = module[0]
        template, wrong, right = behaviour
        func = template.format(m=name)
        text = rng.choice(
            [
                f"Correction: `{func}` does not {wrong}; it {right}.",
                f"An older note claimed `{func}` would {wrong}. Wrong: it {right}.",
            ]
        )
        queries = [("paraphrase", q.format(m=name, w=words(name), M=camel(name))) for q in asks[template]]
        yield "corrections", (name,), text + " " + extra(rng), queries


def settings(rng: random.Random) -> Iterator[Fact]:
    keys = [(m, s) for m in v.MODULES for s in v.SETTINGS]
    for module, setting in rng.sample(keys, 110):
        name = module[0]
        suffix, real, claimed, effect = setting
        key = f"{camel(name)}.{suffix}"
        text = rng.choice(
            [
                f"The default of `{key}` is {real}, not {claimed} as docs/config.md said; {effect}.",
                f"Correction to the docs: `{key}` defaults to {real} (docs said {claimed}), so {effect}.",
            ]
        )
        split = " ".join(p.lower() for p in _camel_parts(suffix))
        queries = [
            ("identifier", key),
            ("paraphrase", f"default {split} for {words(name)}"),
            ("partial", f"{words(name)} {suffix}"),
        ]
        yield "corrections", ("config", name), text, queries


def _camel_parts(name: str) -> list[str]:
    parts: list[str] = []
    for char in name:
        if char.isupper() or not parts:
            parts.append(char)
        else:
            parts[-1] += char
    return parts


def naming(rng: random.Random) -> Iterator[Fact]:
    for kind, style, example, reason in v.NAMING:
        text = f"Name {kind} in {style}, for example `{example}`, {reason}."
        queries = [
            ("question", f"how should I name {kind}"),
            ("paraphrase", f"naming scheme for {kind.split()[-1]}"),
        ]
        yield "conventions", ("naming",), text, queries


def test_layout(rng: random.Random) -> Iterator[Fact]:
    subdirs = ["unit", "integration", "e2e"]
    for module in v.MODULES:
        name, path, _cls, _mwords, alt, _method = module
        fixture = rng.choice(v.FIXTURES)
        rule = rng.choice(v.TEST_RULES)
        text = (
            f"Tests for `{path}` live in `tests/{rng.choice(subdirs)}/test_{name}.py` and use the "
            f"`{fixture}` fixture; {rule}."
        )
        queries = [
            ("question", f"where do the {alt} tests go"),
            ("paraphrase", f"which fixture for {words(name)} tests"),
        ]
        yield "conventions", ("tests",), text, queries


def guards(rng: random.Random) -> Iterator[Fact]:
    asks = {
        "write_atomic": "how should {w} save files safely",
        "with_retry": "backoff when {w} calls the remote api",
        "run_git": "invoking git from {w}",
        "utc_now": "current time in {w} for tests",
        "open_text": "encoding when {w} opens text files",
    }
    keys = [(m, g) for m in v.MODULES for g in v.GUARDS]
    for module, guard in rng.sample(keys, 60):
        name = module[0]
        func, action, reason = guard
        text = f"In `{module[1]}`, always go through `{func}` when {action}: {reason}."
        queries = [("paraphrase", asks[func].format(w=words(name))), ("identifier", f"{func} {name}")]
        yield "conventions", (name,), text, queries


def quirks(rng: random.Random) -> Iterator[Fact]:
    for text, asks, tags in v.QUIRKS:
        yield "quirks", tuple(tags), text, [("paraphrase", q) for q in asks]
    for key, problem, fix, ask in v.PLATFORM_QUIRKS:
        shown = next(p[1] for p in v.PLATFORMS if p[0] == key)
        text = f"On {shown}, {problem}; {fix}."
        yield "quirks", (key,), text, [("paraphrase", ask)]
    for name, ask, detail in v.ENV_QUIRKS:
        text = f"`{name}`: {detail}."
        yield "quirks", ("env",), text, [("paraphrase", ask), ("identifier", f"{name} variable")]


def build_errors(rng: random.Random) -> Iterator[Fact]:
    keys = [(m, e) for m in v.MODULES for e in v.BUILD_ERRORS]
    for module, error in rng.sample(keys, 130):
        name, path, cls, _mwords, alt, _method = module
        message, para, cause, fix = error
        step = rng.choice(v.BUILD_STEPS)
        text = rng.choice(
            [
                f"{sentence(step)} fails in {path} with `{message}`. Cause: {cause}. Fix: {fix}.",
                f"`{message}` from {cls} during {step}: {cause}; {fix}.",
            ]
        )
        tokens = message.replace("'", " ").split()
        start = rng.randint(0, max(0, len(tokens) - 4))
        fragment = " ".join(tokens[start : start + 4])
        queries = [
            ("error", f"{fragment} {words(name)}"),
            ("paraphrase", f"{para} in {alt}"),
            ("paraphrase", f"{words(name)} {para}"),
        ]
        yield "failures", ("build", name), text + " " + extra(rng), queries


def performance(rng: random.Random) -> Iterator[Fact]:
    keys = [(m, c) for m in v.MODULES for c in v.COMMANDS]
    for module, command in rng.sample(keys, 70):
        name, _path, cls, _mwords, alt, method = module
        cause, fix = rng.choice(v.PERF)
        share = rng.randint(35, 90)
        text = (
            f"`{cls}.{method}` dominates `app {command}`: {share}% of the wall time on a large "
            f"repository, spent {cause}. Next step: {fix}."
        )
        queries = [
            ("question", f"why is app {command} slow with {words(name)}"),
            ("paraphrase", f"{command} latency hotspot in {alt}"),
            ("identifier", f"{method} profile"),
        ]
        yield "insights", ("performance", name), text, queries


def coupling(rng: random.Random) -> Iterator[Fact]:
    pairs = [(a, b) for a in v.MODULES for b in v.MODULES if a[0] < b[0]]
    for (first, second), (thing, detail) in zip(rng.sample(pairs, 40), rng.choices(v.COUPLED, k=40), strict=False):
        text = (
            f"`{first[1]}` and `{second[1]}` both handle {thing}: {detail}. "
            "Change one, change the other in the same commit."
        )
        queries = [
            ("paraphrase", f"what else to update when {thing} changes in {words(first[0])}"),
            ("paraphrase", f"{words(second[0])} and {words(first[0])} kept in sync"),
        ]
        yield "insights", ("architecture",), text, queries


def overview(rng: random.Random) -> Iterator[Fact]:
    for module in v.MODULES:
        name, path, cls, mwords, alt, method = module
        text = (
            f"`{path}` owns {mwords}; its main class is `{cls}` and the hot method is `{cls}.{method}`. "
            f"Tests: tests/test_{name}.py."
        )
        queries = [
            ("question", f"which module handles {alt}"),
            ("identifier", f"where is {cls} defined"),
            ("partial", f"{cls[: max(4, len(cls) - 3)]}"),
        ]
        yield "seed", ("architecture",), text, queries


FAMILIES: list[tuple[Callable[[random.Random], Iterator[Fact]], int]] = [
    # family, how many of its facts get a query
    (hangs, 22),
    (missing_modules, 8),
    (errnos, 16),
    (flaky, 18),
    (upgrades, 8),
    (mypy_errors, 14),
    (behaviours, 22),
    (settings, 18),
    (naming, 6),
    (test_layout, 8),
    (guards, 10),
    (quirks, 30),
    (build_errors, 24),
    (performance, 14),
    (coupling, 8),
    (overview, 10),
]


def entry_id(shard: str, text: str) -> str:
    return hashlib.sha256(f"{shard}\n{text}".encode()).hexdigest()[:12]


def created(rng: random.Random) -> str:
    return (
        f"{rng.choice([2025, 2026])}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
    )


def generate() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    rng = random.Random(SEED)
    corpus: list[dict[str, object]] = []
    queries: list[dict[str, object]] = []
    for family, wanted in FAMILIES:
        facts = list(family(rng))
        ids = []
        for shard, tags, text, _ in facts:
            key = entry_id(shard, text.strip())
            ids.append(key)
            corpus.append(
                {"id": key, "shard": shard, "created": created(rng), "tags": list(tags), "text": text.strip()}
            )
        for index in sorted(rng.sample(range(len(facts)), min(wanted, len(facts)))):
            kind, text = rng.choice(facts[index][3])
            queries.append({"family": family.__name__, "kind": kind, "query": text, "relevant": [ids[index]]})
    for family, texts in (("off-topic", v.NO_ANSWER), ("near-topic", v.NO_ANSWER_NEAR)):
        for text in texts:
            queries.append({"family": family, "kind": "no-answer", "query": text, "relevant": []})
    for number, query in enumerate(queries):
        query["qid"] = f"q{number:03d}"
    return corpus, queries


def synthetic(count: int, seed: int = 7) -> list[dict[str, object]]:
    """A corpus of `count` entries drawn from the same families, with numbered variants."""
    rng = random.Random(seed)
    base, _ = generate()
    out: list[dict[str, object]] = []
    for number in range(count):
        entry = dict(base[number % len(base)])
        if number >= len(base):
            tail = rng.choice(["build", "run", "ticket", "job", "commit"]) + f" {rng.randint(1, 10**6)}"
            word = rng.choice(["seen again", "still open", "checked", "noted by ops", "revisited"])
            entry["text"] = f"{entry['text']} ({word}: {tail}, host ci-{rng.randint(1, 500)})"
            entry["id"] = entry_id(str(entry["shard"]), str(entry["text"]) + str(number))
            entry["created"] = created(rng)
        out.append(entry)
    return out


def main() -> None:
    corpus, queries = generate()
    with open(HERE / "corpus.jsonl", "w", encoding="utf-8", newline="\n") as out:
        for entry in corpus:
            out.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
    with open(HERE / "queries.jsonl", "w", encoding="utf-8", newline="\n") as out:
        for query in queries:
            row = {k: query[k] for k in ("qid", "query", "kind", "family")}
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    with open(HERE / "qrels.tsv", "w", encoding="utf-8", newline="\n") as out:
        out.write("qid\tentry_id\trelevance\n")
        for query in queries:
            for key in query["relevant"]:  # type: ignore[attr-defined]
                out.write(f"{query['qid']}\t{key}\t1\n")
    answerable = sum(1 for q in queries if q["relevant"])
    print(f"{len(corpus)} entries, {len(queries)} queries ({answerable} answerable)")


if __name__ == "__main__":
    main()
