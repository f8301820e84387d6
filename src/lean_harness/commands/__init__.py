"""One module per `lh` command: `run(args) -> int` and, with options, `add_arguments(parser)`; shared output.

The command modules and cli.py are the only code that prints.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argparse import ArgumentParser
    from typing import Any

    from lean_harness.memory.handle import Memory

JSON_VERSION = 1


def emit(command: str, payload: dict[str, Any], problems: Sequence[str] = ()) -> None:
    """Print the versioned JSON envelope: version, command, the payload's fields, problems; every
    string in it, keys included, through `scanning.mask` before it is encoded (a credential split
    by a JSON escape, as a PEM block's line breaks are, would not be found in the encoded text)."""
    envelope = {"version": JSON_VERSION, "command": command, **payload, "problems": list(problems)}
    print(json.dumps(masked(envelope), indent=2, ensure_ascii=False))


def masked(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, tuples, strings, numbers) with every string in it, keys
    included, through `scanning.mask`: how a record leaves lh, whatever field a value came from."""
    from lean_harness.scanning.masking import mask_many

    texts: dict[str, str] = {}
    _strings(value, lambda text: texts.setdefault(text, text))  # gathered first: one scan for them all
    return _strings(value, dict(zip(texts, mask_many(list(texts)), strict=True)).__getitem__)


def _strings(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with `change` applied to every string in it, keys included (tuples become lists)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {change(k) if isinstance(k, str) else k: _strings(inner, change) for k, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strings(inner, change) for inner in value]
    return value


def project_root() -> Path:
    """The project that holds the current directory."""
    from lean_harness.config import find_root

    return find_root(Path.cwd())


def open_memory() -> Memory:
    """The memory of the project that holds the current directory."""
    from lean_harness.config import load
    from lean_harness.memory.handle import open_memory as open_store

    return open_store(load(project_root()))


def add_allowances(parser: ArgumentParser) -> None:
    """--allow-secret and --allow-directive: the rules a stored note may trip, recorded with it."""
    for name, what, when in (("secret", "scanner", ""), ("directive", "injection", ", when it only quotes such text")):
        parser.add_argument(
            f"--allow-{name}",
            action="append",
            default=[],
            metavar="RULE",
            help=f"store despite a finding of {what} rule RULE{when} (recorded in the entry)",
        )


def positive(text: str) -> int:
    """An argparse type: a whole number of 1 or more."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value
