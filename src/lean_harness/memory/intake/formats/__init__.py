"""Readers of the memory formats people arrive with, and the jsonl form `lh memory export` writes.

Each format module reads a source into plain `Record`s and the problems it found, without
looking at the project's memory; `memory/intake/importing.py` validates, plans and writes them
(adr/0014-import-and-inbox.md).
"""
