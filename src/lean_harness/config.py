"""The project config, `.agents/lh.toml`: find it, apply defaults, validate, change one key.

Validation against the shipped JSON Schema runs whenever the file's bytes are new. The
effective config of bytes that passed is remembered in the cache dir, keyed by their hash, so
ordinary commands import neither jsonschema nor tomllib (adr/0003-config.md). The remembered
file, `<cacheDir>/lh/config.json`, holds three lines: the stamp (package version, the SHA-256
of the config's text and a digest of the defaults), the user's signature of the stamp and the
third line (userkey.py, adr/0028: a repository can hold a cache folder, never that key), and the
effective config as JSON, or `null` when the config holds a credential (no cache copies one) or a
value JSON cannot hold. A file that does not match in every part is ignored and written again.
"""

from __future__ import annotations

import json
from pathlib import Path

from lean_harness import __version__, digests, locations, userkey
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, write_atomic
from lean_harness.locations import CACHE_DIR, CONFIG_PATH, MEMORY_DIR
from lean_harness.values import Value

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import Any


DEFAULT_SHARDS: dict[str, str] = {
    "seed": "Project facts an agent needs on day one: purpose, layout, how to build and test.",
    "failures": "Failures seen here, their causes and the fixes that worked.",
    "corrections": "Mistakes an agent made and the user corrected; do not repeat them.",
    "insights": "Non-obvious findings about the code, data or tools.",
    "conventions": "Agreed ways of working: style, naming, review, release.",
    "quirks": "Surprising behaviour of tools, platforms and dependencies, with workarounds.",
}

DEFAULTS: dict[str, Any] = {
    "memory": {
        "dir": MEMORY_DIR,
        "cacheDir": CACHE_DIR,
        "tokenBudget": 20000,
        "compactAtPercent": 80,
        "compactTargetPercent": 60,
        "indexTokenBudget": 600,
        "encoding": "cl100k_base",
        "keepNewest": 10,
        "shards": DEFAULT_SHARDS,
    },
    "artifacts": {
        "committed": [".agents/memory/", "adr/", ".agents/runs/"],
        "ignored": [".cache/", "events.ndjson", "board.md"],
    },
}


class Config(Value):
    """The effective config of one project, defaults applied."""

    root: Path
    path: Path
    memory_dir: Path
    cache_dir: Path
    token_budget: int
    compact_at_percent: int
    compact_target_percent: int
    index_token_budget: int
    encoding: str
    keep_newest: int
    shards: tuple[tuple[str, str], ...]
    committed: tuple[str, ...]
    ignored: tuple[str, ...]
    data: dict[str, Any]

    @property
    def shown_path(self) -> str:
        return display(self.path, self.root)

    @property
    def shard_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.shards)

    @property
    def compact_threshold(self) -> int:
        return self.token_budget * self.compact_at_percent // 100


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds the config."""
    current = start.resolve()
    for folder in (current, *current.parents):
        if (folder / CONFIG_PATH).is_file():
            return folder
    raise LhError(f'no lean-harness config ({CONFIG_PATH}) in {current.as_posix()} or above; run "lh init"')


def effective(user: dict[str, Any]) -> dict[str, Any]:
    """The user's settings laid over the defaults; a user's shard table replaces the default one."""
    import copy

    merged = copy.deepcopy(DEFAULTS)
    for section, values in user.items():
        if isinstance(values, dict) and isinstance(merged.get(section), dict):
            merged[section].update(copy.deepcopy(values))
        else:
            merged[section] = copy.deepcopy(values)
    return merged


def parse_toml(text: str, shown: str) -> dict[str, Any]:
    """TOML text as a dict, or an error naming the file and line."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise LhError(f'{shown}: not valid TOML: {error}; fix the file or run "lh init --force"') from None


def problems(user: dict[str, Any]) -> list[str]:
    """Every problem of a user config, as "at key: message" strings, sorted by key."""
    from lean_harness import schema

    found = [f"at {p.location or '(top)'}: {p.message}" for p in schema.validate(user, "config")]
    if not found:
        memory = effective(user)["memory"]
        if memory["compactTargetPercent"] >= memory["compactAtPercent"]:
            found.append(
                f"at memory.compactTargetPercent: {memory['compactTargetPercent']} is not below"
                f" memory.compactAtPercent ({memory['compactAtPercent']}); choose a lower target"
            )
    return found


def load(root: Path) -> Config:
    """The validated config of the project at `root`."""
    path = root / CONFIG_PATH
    shown = display(path, root)
    if not path.is_file():
        raise LhError(f'no lean-harness config at {shown}; run "lh init"')
    text = read_text(path, root)
    stamp = _stamp(text)
    remembered = _remembered(root, text, stamp)
    if remembered is not None:
        return remembered
    user = parse_toml(text, shown)
    marker = _marker_path(root, user)
    if _read_marker(marker, stamp) is None:
        found = problems(user)
        if found:
            raise LhError("\n".join(f"{shown}: {line}" for line in found))
    data = effective(user)
    payload = _payload(text, data)
    signature = userkey.sign(f"{stamp}\n{payload}")
    try:  # a hint, not synced: a torn, lost or foreign file fails its signature and is written again
        if signature is not None:
            write_atomic(marker, f"{stamp}\n{signature}\n{payload}\n".encode(), durable=False)
    except OSError:
        pass  # a read-only cache only costs the next command a parse and a validation
    return _build(root, path, data)


def load_user(root: Path) -> dict[str, Any]:
    """The config file's own settings, without defaults."""
    path = root / CONFIG_PATH
    return parse_toml(read_text(path, root), display(path, root))


def parse_value(text: str) -> Any:
    """A command-line value: a TOML literal when it parses as one, else the plain string."""
    import tomllib

    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def with_value(user: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of the user config with the dotted `key` set to `value`."""
    import copy

    parts = key.split(".")
    if not all(parts):
        raise LhError(f"key {key!r} is not a dotted key path such as memory.tokenBudget")
    updated = copy.deepcopy(user)
    node = updated
    for depth, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}
            if depth == 1 and parts[0] == "memory" and part == "shards":
                child.update(DEFAULT_SHARDS)
        if not isinstance(child, dict):
            raise LhError(f"key {'.'.join(parts[: depth + 1])} is a value, not a table; cannot set {key}")
        node = child
    node[parts[-1]] = value
    return updated


def render(user: dict[str, Any]) -> str:
    """Config text as tomli-w writes it."""
    import tomli_w

    return tomli_w.dumps(user)


def _build(root: Path, path: Path, data: dict[str, Any]) -> Config:
    memory, artifacts = data["memory"], data["artifacts"]
    return Config(
        root=root,
        path=path,
        memory_dir=root / memory["dir"],
        cache_dir=root / memory["cacheDir"],
        token_budget=memory["tokenBudget"],
        compact_at_percent=memory["compactAtPercent"],
        compact_target_percent=memory["compactTargetPercent"],
        index_token_budget=memory["indexTokenBudget"],
        encoding=memory["encoding"],
        keep_newest=memory["keepNewest"],
        shards=tuple(memory["shards"].items()),
        committed=tuple(artifacts["committed"]),
        ignored=tuple(artifacts["ignored"]),
        data=data,
    )


def _stamp(text: str) -> str:
    # The defaults are part of what is remembered: a build that changes them without a new
    # version number must not be handed the old ones.
    return f"{__version__} {_sha256(text)} {_sha256(json.dumps(DEFAULTS))[:16]}"


def _sha256(text: str) -> str:
    return digests.sha256(text.encode())


def _marker_path(root: Path, user: dict[str, Any]) -> Path:
    memory = user.get("memory")
    cache = locations.inside(memory.get("cacheDir") if isinstance(memory, dict) else None, CACHE_DIR)
    return root / cache / "lh" / "config.json"


def _payload(text: str, data: dict[str, Any]) -> str:
    """The effective config as one line of JSON, or "null" when it is not to be kept: a value JSON
    cannot hold (a TOML date), or a config that holds a credential, which no cache may copy."""
    from lean_harness.scanning.credentials import scan

    if scan(text):
        return "null"
    try:
        return json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):
        return "null"


def _read_marker(marker: Path, stamp: str) -> str | None:
    """The remembered payload when the file at `marker` was written for `stamp`, whole, by this
    user's lh: signed with the user's key (userkey.py), which no repository can hold."""
    try:
        head, signature, payload = marker.read_text("utf-8").split("\n", 2)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    payload = payload.removesuffix("\n")
    return payload if head == stamp and userkey.signed(f"{stamp}\n{payload}", signature) else None


def _remembered(root: Path, text: str, stamp: str) -> Config | None:
    """The config remembered for exactly this text, found without parsing TOML, or None."""
    settings = locations.written(text)
    if settings is None:
        return None  # the text sets the cache dir in a way only tomllib reads
    cache = locations.inside(settings.get("cacheDir"), CACHE_DIR)
    payload = _read_marker(root / cache / "lh" / "config.json", stamp)
    if payload is None:
        return None
    try:
        data = json.loads(payload)
        if data["memory"]["cacheDir"] != cache:
            return None
        return _build(root, root / CONFIG_PATH, data)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
