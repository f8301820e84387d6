"""The project config, `.agents/lh.toml`: find it, apply defaults, validate, change one key.

Every command parses the file with tomllib and checks it against the shipped JSON Schema, each
time: nothing about the config is remembered in a cache a repository could hold (adr/0030). The
check a valid config meets runs here without jsonschema (`_plainly_valid`, a few keywords of the
schema, read from the schema itself); only a config it does not pass is validated with jsonschema,
which names every problem (adr/0003-config.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lean_harness.errors import LhError
from lean_harness.files import display, read_text
from lean_harness.locations import CACHE_DIR, CONFIG_PATH, MEMORY_DIR, personal_dir

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
        # Shards of the personal scope, kept in `<dir>.local`, which git ignores (adr/0040).
        "personalShards": {"personal": "The user's own role, preferences and background; only its owner sees it."},
    },
    "artifacts": {
        "committed": [".agents/memory/", "adr/", ".agents/runs/"],
        "ignored": [".cache/", "events.ndjson", "board.md"],
    },
}


@dataclass(frozen=True, slots=True)
class Config:
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
    shards: tuple[tuple[str, str], ...]  # the committed shards, then the personal ones
    personal: tuple[str, ...]
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
    def shared_names(self) -> tuple[str, ...]:
        """The committed shards, which INDEX.md, compaction and export stand for: all but the personal scope's."""
        return tuple(name for name in self.shard_names if name not in self.personal)

    @property
    def personal_dir(self) -> Path:
        return Path(personal_dir(str(self.root), str(self.memory_dir)))

    def shard_path(self, name: str) -> Path:
        """Where shard `name` is kept: in the personal folder when it is a personal shard."""
        return (self.personal_dir if name in self.personal else self.memory_dir) / f"{name}.md"


def compaction_threshold(token_budget: int, compact_at_percent: int) -> int:
    """The tokens above which compaction is due: memory.compactAtPercent of memory.tokenBudget, rounded down."""
    return token_budget * compact_at_percent // 100


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
    return found or _order_problems(user)


def load(root: Path) -> Config:
    """The validated config of the project at `root`."""
    path = root / CONFIG_PATH
    shown = display(path, root)
    if not path.is_file():
        raise LhError(f'no lean-harness config at {shown}; run "lh init"')
    user = parse_toml(read_text(path, root), shown)
    schema = json.loads((Path(__file__).parent / "schemas" / "config.schema.json").read_bytes())
    found = _order_problems(user) if _plainly_valid(user, schema) else problems(user)
    if found:
        raise LhError("\n".join(f"{shown}: {line}" for line in found))
    data = effective(user)
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
        shards=(*memory["shards"].items(), *memory["personalShards"].items()),
        personal=tuple(memory["personalShards"]),
        committed=tuple(artifacts["committed"]),
        ignored=tuple(artifacts["ignored"]),
        data=data,
    )


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


def _order_problems(user: dict[str, Any]) -> list[str]:
    """The rules the schema cannot state: a shard is in one scope; compaction's target is below its start."""
    memory = effective(user)["memory"]
    both = sorted(set(memory["shards"]) & set(memory["personalShards"]))
    if both:
        return [f"at memory.personalShards: {both[0]} is also in memory.shards; give it another name"]
    if memory["compactTargetPercent"] < memory["compactAtPercent"]:
        return []
    return [
        f"at memory.compactTargetPercent: {memory['compactTargetPercent']} is not below"
        f" memory.compactAtPercent ({memory['compactAtPercent']}); choose a lower target"
    ]


_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str, "integer": int, "boolean": bool}
_NOTES = frozenset({"$schema", "$id", "title", "description", "x-message"})  # keywords that check nothing
# Each keyword config.schema.json uses, as a check of a value `v`, the keyword's value `w` and the whole rule.
_KEYWORDS: dict[str, Callable[[Any, Any, dict[str, Any]], bool]] = {
    "type": lambda v, w, _: type(v) is _TYPES.get(w),
    "enum": lambda v, w, _: any(type(v) is type(choice) and v == choice for choice in w),
    "minimum": lambda v, w, _: type(v) is int and v >= w,
    "maximum": lambda v, w, _: type(v) is int and v <= w,
    "minLength": lambda v, w, _: type(v) is str and len(v) >= w,
    "maxLength": lambda v, w, _: type(v) is str and len(v) <= w,
    "pattern": lambda v, w, _: type(v) is str and re.search(w, v) is not None,
    "minProperties": lambda v, w, _: type(v) is dict and len(v) >= w,
    "propertyNames": lambda v, w, _: type(v) is dict and all(_plainly_valid(key, w) for key in v),
    "properties": lambda v, w, _: type(v) is dict and all(_plainly_valid(v[k], w[k]) for k in v if k in w),
    "additionalProperties": lambda v, w, rule: (
        type(v) is dict and all(_plainly_valid(v[k], w) for k in v if k not in rule.get("properties", {}))
    ),
    "items": lambda v, w, _: type(v) is list and all(_plainly_valid(item, w) for item in v),
    "uniqueItems": lambda v, w, _: (
        type(v) is list and (not w or (all(type(x) is str for x in v) and len(set(v)) == len(v)))
    ),
}


def _plainly_valid(value: Any, rule: Any) -> bool:
    """Whether `value` meets `rule` (the few keywords config.schema.json uses); stricter than JSON Schema,
    never looser: an unknown keyword or type counts as not valid, and the caller then asks jsonschema."""
    if isinstance(rule, bool):
        return rule  # "additionalProperties": false
    if not isinstance(rule, dict) or not _KEYWORDS.keys() | _NOTES >= rule.keys():
        return False
    return all(_KEYWORDS[key](value, want, rule) for key, want in rule.items() if key not in _NOTES)
