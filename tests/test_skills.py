"""SKILL.md checks: the frontmatter subset, the specification's rules, and the skills-ref cross-check."""

from __future__ import annotations

from pathlib import Path

import pytest
import skills_ref

from lean_harness import skills
from lean_harness.errors import LhError

GOOD = "---\nname: demo\ndescription: Does one thing. Use it when that thing is needed.\n---\n\n# Demo\n"


def write(tmp_path: Path, text: str, folder: str = "demo") -> Path:
    skill = tmp_path / "skills" / folder
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(text, "utf-8")
    return skill


def verdict(folder: Path) -> list[str]:
    return [p.message for p in skills.check(folder, f"skills/{folder.name}") if not p.warning]


@pytest.mark.parametrize(
    ("frontmatter", "fields"),
    [
        pytest.param('description: "Use it: now"', {"description": "Use it: now"}, id="double-quoted"),
        pytest.param("description: 'it''s: fine'", {"description": "it's: fine"}, id="single-quoted"),
        pytest.param('description: "tab\\there \\u00e9"', {"description": "tab\there \u00e9"}, id="escapes"),
        pytest.param("description: plain # a comment", {"description": "plain"}, id="comment"),
        pytest.param("description: one\n  two\n  three", {"description": "one two three"}, id="continued"),
        pytest.param("description: >-\n  folded\n  text", {"description": "folded text"}, id="folded"),
        pytest.param("description: |\n  kept\n  lines", {"description": "kept\nlines\n"}, id="literal"),
        pytest.param("metadata:\n  author: me\n  version: '1.0'", {"metadata": {"author": "me", "version": "1.0"}}),
        pytest.param("license: MIT\n\n# a comment line", {"license": "MIT"}, id="blank-and-comment"),
    ],
)
def test_the_subset_reads_these_values(frontmatter: str, fields: dict[str, object]) -> None:
    parsed, _ = skills.parse(f"---\n{frontmatter}\n---\nbody\n", "SKILL.md")
    assert parsed == fields


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("name: x\n", "SKILL.md:1: does not start with a --- line; open the frontmatter with ---"),
        pytest.param("---\nname: x\n", "SKILL.md:1: the frontmatter is not closed; add a --- line after it"),
        pytest.param(
            "---\ndescription: Use it: now\n---\n",
            'SKILL.md:2: \': \' inside a plain value is not valid YAML; quote the value ("...") when it contains ": "',
            id="colon-space",
        ),
        pytest.param("---\nname: a\nname: b\n---\n", "SKILL.md:3: name appears twice; keep one", id="duplicate"),
        pytest.param(
            "---\nallowed-tools: [Read, Grep]\n---\n",
            "SKILL.md:2: '[Read, Grep]' starts with a YAML indicator lh does not read; quote the value",
            id="flow-sequence",
        ),
        pytest.param(
            "---\nname: *a\n---\n",
            "SKILL.md:2: '*a' starts with a YAML indicator lh does not read; quote the value",
            id="alias",
        ),
        pytest.param(
            '---\ndescription: "open\n---\n',
            "SKILL.md:2: a double-quoted value is not closed on its line",
            id="unclosed-quote",
        ),
        pytest.param(
            "---\n  name: x\n---\n",
            "SKILL.md:2: unexpected indented line; top-level keys start in column 1",
            id="indented",
        ),
        pytest.param(
            "---\n- name\n---\n",
            "SKILL.md:2: expected key: value at the start of the line (the YAML subset of adr/0013-doctor.md)",
            id="list",
        ),
    ],
)
def test_the_subset_refuses_what_it_does_not_read(text: str, message: str) -> None:
    with pytest.raises(LhError) as caught:
        skills.parse(text, "SKILL.md")
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("text", "folder", "message"),
    [
        pytest.param(
            GOOD.replace("name: demo", "name: other"),
            "demo",
            "skills/demo/SKILL.md: name 'other' differs from its folder 'demo'; make them equal",
            id="folder",
        ),
        pytest.param(
            GOOD.replace("name: demo", "name: De-mo"),
            "De-mo",
            "skills/De-mo/SKILL.md: name 'De-mo' is not allowed; use lowercase letters, digits and single"
            " hyphens, at most 64 characters, not starting or ending with a hyphen",
            id="uppercase",
        ),
        pytest.param(
            GOOD.replace("description: Does", "tags: x\ndescription: Does"),
            "demo",
            "skills/demo/SKILL.md: unknown field(s) tags; allowed: name, description, license,"
            " compatibility, metadata, allowed-tools",
            id="unknown-field",
        ),
        pytest.param(
            "---\nname: demo\n---\n",
            "demo",
            "skills/demo/SKILL.md: no description; add one saying what the skill does and when to use it",
            id="no-description",
        ),
        pytest.param(
            GOOD.replace("Does one thing. Use it when that thing is needed.", "x" * 1025),
            "demo",
            "skills/demo/SKILL.md: description is 1025 characters; shorten it to 1024",
            id="long",
        ),
    ],
)
def test_rules_name_the_file_and_the_fix(tmp_path: Path, text: str, folder: str, message: str) -> None:
    assert verdict(write(tmp_path, text, folder)) == [message]


def test_a_long_body_is_a_warning(tmp_path: Path) -> None:
    problems = skills.check(write(tmp_path, GOOD + "line\n" * 500), "skills/demo")
    assert [(p.message, p.warning) for p in problems] == [
        (
            "skills/demo/SKILL.md: the body is 502 lines; keep it under 500 and move details to references/ files",
            True,
        )
    ]


# The same SKILL.md files through lh and the reference library; both must reach the same verdict.
AGREE = [
    pytest.param(GOOD, "demo", True, id="good"),
    pytest.param(GOOD.replace("name: demo", 'name: "demo"'), "demo", True, id="quoted-name"),
    pytest.param(GOOD + "extra\n" * 10, "demo", True, id="body"),
    pytest.param(GOOD.replace("\n---\n", "\nlicense: MIT\ncompatibility: Python 3.11+\n---\n", 1), "demo", True),
    pytest.param(GOOD.replace("\n---\n", "\nmetadata:\n  author: someone\n---\n", 1), "demo", True, id="metadata"),
    pytest.param(GOOD.replace("\n---\n", "\nallowed-tools: Bash(lh:*) Read\n---\n", 1), "demo", True, id="tools"),
    pytest.param(GOOD.replace("Does one thing.", "Does: one thing."), "demo", False, id="colon-unquoted"),
    pytest.param(GOOD.replace("Does one thing. Use it when that thing is needed.", '"Does: one thing."'), "demo", True),
    pytest.param(GOOD.replace("name: demo", "name: other"), "demo", False, id="folder-mismatch"),
    pytest.param(GOOD.replace("name: demo", "name: Demo"), "Demo", False, id="uppercase"),
    pytest.param(GOOD.replace("name: demo", "name: -demo"), "-demo", False, id="leading-hyphen"),
    pytest.param(GOOD.replace("name: demo", "name: de--mo"), "de--mo", False, id="double-hyphen"),
    pytest.param(GOOD.replace("name: demo", "name: de_mo"), "de_mo", False, id="underscore"),
    pytest.param(GOOD.replace("name: demo", f"name: {'a' * 65}"), "a" * 65, False, id="name-too-long"),
    pytest.param(GOOD.replace("name: demo", f"name: {'a' * 64}"), "a" * 64, True, id="name-64"),
    pytest.param("---\nname: demo\n---\n", "demo", False, id="no-description"),
    pytest.param("---\ndescription: x\n---\n", "demo", False, id="no-name"),
    pytest.param(GOOD.replace("Does one thing. Use it when that thing is needed.", "x" * 1025), "demo", False),
    pytest.param(GOOD.replace("\n---\n", "\nversion: 1\n---\n", 1), "demo", False, id="unknown-field"),
    pytest.param(GOOD.replace("name: demo\n", "name: demo\nname: demo\n"), "demo", False, id="duplicate-key"),
    pytest.param(GOOD.replace("\n---\n", "\nallowed-tools: [Read]\n---\n", 1), "demo", False, id="flow"),
    pytest.param("no frontmatter\n", "demo", False, id="no-frontmatter"),
    pytest.param("---\nname: demo\n", "demo", False, id="unclosed"),
]


@pytest.mark.parametrize(("text", "folder", "valid"), AGREE)
def test_lh_and_skills_ref_agree(tmp_path: Path, text: str, folder: str, valid: bool) -> None:
    skill = write(tmp_path, text, folder)
    reference = skills_ref.validate(skill)
    assert (not verdict(skill), not reference) == (valid, valid), reference


# Where lh is deliberately stricter than skills-ref (adr/0013-doctor.md).
STRICTER = [
    pytest.param(GOOD.replace("name: demo", "name: démo"), "démo", id="non-ascii-name"),
]


@pytest.mark.parametrize(("text", "folder"), STRICTER)
def test_lh_is_stricter_than_skills_ref_here(tmp_path: Path, text: str, folder: str) -> None:
    skill = write(tmp_path, text, folder)
    assert skills_ref.validate(skill) == []
    assert verdict(skill) != []


def test_every_skill_of_this_repository_passes_both() -> None:
    root = Path(__file__).resolve().parents[1]
    for folder in skills.find(root):
        assert verdict(folder) == [], folder
        assert skills_ref.validate(folder) == [], folder
