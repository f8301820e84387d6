"""Where the memory and cache live: the hooks' reading of the config agrees with the schema's."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lean_harness import locations

SCHEMA = Path(locations.__file__).with_name("schemas") / "config.schema.json"
VALUES = ["m", "notes/memory", ".agents/.cache", ".hidden", "m..n", "..m", "m..", "a/.../b", "a b/c"]
VALUES += ["1:y", "é:x", "ab:c", "m\r", "C:", "\\\\?\\c", "//srv/x"]
VALUES += ["m\n", "..\n", "a/..\n", "x\n../y", "a\nb", "\n"]
VALUES += ["", "..", "../m", "a/../b", "a/..", "..\\m", "a\\..\\b", "/abs", "\\abs", "C:x", "c:/x", "D:\\x", "x:y"]


@pytest.mark.parametrize("name", ["dir", "cacheDir"])
@pytest.mark.parametrize("value", VALUES)
def test_a_folder_is_used_exactly_when_the_schema_allows_it(name: str, value: str) -> None:
    rule = json.loads(SCHEMA.read_text("utf-8"))["properties"]["memory"]["properties"][name]
    allowed = len(value) >= rule["minLength"] and re.search(rule["pattern"], value) is not None
    assert locations.inside(value, "DEFAULT") == (value if allowed else "DEFAULT")


@pytest.mark.parametrize("value", [None, 3, ["m"], {"m": 1}])
def test_a_folder_that_is_not_text_is_the_default(value: object) -> None:
    assert locations.inside(value, "DEFAULT") == "DEFAULT"


@pytest.mark.parametrize(
    ("text", "records"),
    [
        ("", True),
        ("[memory]\nkeepNewest = 3\n", True),
        ("[memory]\nrecordUsage = true\n", True),
        ("[memory]\nrecordUsage = false\n", False),
        ("[memory]\r\n\trecordUsage=false\r\n", False),
        ("memory.recordUsage = false\n", False),
        ("[memory]\nrecordUsage = false # off\n", False),
        ('[memory]\nnote = "recordUsage = false"\n', True),
        ("[memory]\nrecordUsage = \n", False),  # not TOML: nothing is turned on
    ],
)
def test_the_usage_switch_reads_as_tomllib_reads_it(text: str, records: bool) -> None:
    assert locations.records_usage(text) is records


@pytest.mark.skipif(os.name == "nt", reason="POSIX paths written by hand")
@pytest.mark.parametrize(
    ("memory_dir", "expected"),
    [
        (".agents/memory", "/p/.agents/memory.local"),
        ("notes/", "/p/notes.local"),
        ("a/./b", "/p/a/b.local"),
        ("/p/.agents/memory", "/p/.agents/memory.local"),  # as the hooks join it
        (".", "/p/.local"),  # the memory is the project's own folder: never beside the project
        ("./", "/p/.local"),
        ("/p", "/p/.local"),
    ],
)
def test_the_personal_folder_is_beside_the_memory_and_inside_the_project(memory_dir: str, expected: str) -> None:
    assert locations.personal_dir("/p", memory_dir) == expected
