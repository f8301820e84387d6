"""One module per `lh` command: `add_arguments(parser)` and `run(args) -> int`, plus shared output.

The command modules and cli.py are the only code that prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

    texts: list[str] = []

    def gather(item: Any) -> None:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                gather(key)
                gather(inner)
        elif isinstance(item, (list, tuple)):
            for inner in item:
                gather(inner)

    gather(value)
    shown = dict(zip(texts, mask_many(texts), strict=True))

    def rebuild(item: Any) -> Any:
        if isinstance(item, str):
            return shown[item]
        if isinstance(item, dict):
            return {shown[key] if isinstance(key, str) else key: rebuild(inner) for key, inner in item.items()}
        if isinstance(item, (list, tuple)):
            return [rebuild(inner) for inner in item]
        return item

    return rebuild(value)


def project_root() -> Path:
    """The project that holds the current directory."""
    from lean_harness.config import find_root

    return find_root(Path.cwd())


def open_memory() -> Memory:
    """The memory of the project that holds the current directory."""
    from lean_harness.config import load
    from lean_harness.memory.handle import open_memory as open_store

    return open_store(load(project_root()))


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
