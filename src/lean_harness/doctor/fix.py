"""`lh doctor --fix`: repair only what is derived or empty, and say what changed.

That is missing empty shards (and the memory dir), the managed .gitignore and .gitattributes blocks,
and INDEX.md; no entry is ever deleted or rewritten, and a shard that does not parse stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from lean_harness import init
from lean_harness.doctor import Project
from lean_harness.errors import LhError


def fix(project: Project) -> tuple[list[str], list[str]]:
    """Repair what is safe in `project`; what changed, and what could not be repaired."""
    from lean_harness.memory import status

    config = project.config
    if config is None:
        return [], ["the config did not load; fix it first (see the config check)"]
    changed: list[str] = []
    refused: list[str] = []

    steps: tuple[Callable[[], list[str]], ...] = (
        lambda: [f"created {path} (empty shard)" for path in init.create_shards(config)],
        lambda: ["wrote the lean-harness block in .gitignore"] if init.write_ignore_block(config) else [],
        lambda: ["wrote the lean-harness block in .gitattributes"] if init.write_attributes_block(config) else [],
    )
    for step in steps:
        try:
            changed += step()
        except LhError as error:
            refused.append(error.message)
    project = replace(project)  # read afresh: shards created above are part of the index
    memory = project.memory
    if memory is not None and not project.shard_state[1]:
        try:
            with memory.writing():
                _, written = status.write_index(memory)
            if written:
                changed.append(f"regenerated {memory.shown(memory.index_path)}")
        except LhError as error:
            refused.append(error.message)
    return changed, refused
