"""`lh config set KEY VALUE`: change one key, validated before anything is written."""

from __future__ import annotations

import argparse
import sys

from lean_harness.commands import open_memory, project_root
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", metavar="KEY", help="a dotted key path, for instance memory.tokenBudget")
    parser.add_argument("value", metavar="VALUE", help='a TOML value (30000, true, ["a"]) or plain text')
    parser.add_argument(
        "--drop-comments", action="store_true", help="rewrite a config that has comments, dropping them"
    )


def run(args: argparse.Namespace) -> int:
    from lean_harness import config, locations
    from lean_harness.files import read_text, write_text

    root = project_root()
    path = root / locations.CONFIG_PATH
    shown = path.relative_to(root).as_posix()
    text = read_text(path, root)
    if not args.drop_comments and any(line.lstrip().startswith("#") for line in text.splitlines()):
        raise LhError(
            f"{shown} has comments, which rewriting it would drop; edit the file by hand, or pass --drop-comments"
        )
    user = config.parse_toml(text, shown)
    from lean_harness.memory.rules import refuse_setting

    refuse_setting(args.key, args.value, shown)  # before any message could quote the value
    updated = config.with_value(user, args.key, config.parse_value(args.value))
    problems = config.problems(updated)
    if problems:
        raise LhError("\n".join(f"{shown}: {line}; file not changed" for line in problems))
    write_text(path, config.render(updated))
    print(f"set {args.key} in {shown}")
    # Budgets, shards and descriptions are shown in INDEX.md, and the folders decide what git ignores
    # (the personal one above all): keep both what the config makes them.
    from lean_harness import init
    from lean_harness.memory.status import write_index

    try:
        memory = open_memory()
        for name, write in ((".gitignore", init.write_ignore_block), (".gitattributes", init.write_attributes_block)):
            if write(memory.config):
                print(f"updated {name}")
        if memory.config.memory_dir.is_dir():
            with memory.writing():
                write_index(memory)
    except LhError as error:
        print(f'warning: INDEX.md was not regenerated: {error.message}; run "lh memory index"', file=sys.stderr)
    return 0
