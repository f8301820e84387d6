"""`lh config show`: the effective config, defaults included."""

from __future__ import annotations

import argparse

from lean_harness.commands import emit, project_root


def run(args: argparse.Namespace) -> int:
    from lean_harness import config

    cfg = config.load(project_root())
    if args.json:
        emit("config show", {"path": cfg.shown_path, "config": cfg.data})
    else:
        print(f"# effective config of {cfg.shown_path} (defaults included)")
        print(config.render(cfg.data), end="")
    return 0
