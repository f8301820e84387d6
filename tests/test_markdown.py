"""What a Markdown line is, as shard prose and MEMORY.md import both read it."""

from __future__ import annotations

import pytest

from lean_harness import markdown


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("# Title", True),
        ("###### Six", True),
        ("####### Seven", False),
        ("#", True),
        ("## ", True),
        ("   ## Indented three", True),
        ("    ## Indented four (code)", False),
        ("#hashtag", False),
        ("#\tTabbed", True),
        ("text # not a heading", False),
    ],
)
def test_headings_follow_commonmark_atx(line: str, heading: bool) -> None:
    assert markdown.is_heading(line) is heading


def test_heading_text_drops_marks_and_indent() -> None:
    assert markdown.heading_text("  ## Deploys ") == "Deploys"
    assert markdown.heading_text("#") == ""


@pytest.mark.parametrize(
    ("line", "item"),
    [
        ("- a", True),
        ("* a", True),
        ("+ a", True),
        ("1. a", True),
        ("12) a", True),
        ("-", True),
        ("-a", False),
        ("1.a", False),
    ],
)
def test_list_items(line: str, item: bool) -> None:
    assert markdown.is_item(line) is item


def test_a_fence_is_closed_only_by_its_own_character() -> None:
    assert markdown.fence_opened("```python") == "```"
    assert markdown.fence_opened("   ~~~~") == "~~~"
    assert markdown.fence_opened("``") is None
    assert markdown.fence_opened("    ```") is None
    assert markdown.fence_closed("~~~", "```") is False
    assert markdown.fence_closed("  ```", "```") is True
    assert markdown.fence_closed("````", "```") is True
