"""`lh config schema`: print the config's JSON Schema."""

from __future__ import annotations

import argparse
import json


def run(args: argparse.Namespace) -> int:
    from lean_harness import schema

    print(json.dumps(schema.load("config"), indent=2))
    return 0
