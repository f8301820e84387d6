"""scanning/finding.py: a finding says where it is and previews safely."""

from __future__ import annotations

from lean_harness.scanning import directives as injection
from lean_harness.scanning.finding import Finding


def test_a_finding_says_where_and_previews_safely() -> None:
    text = "fine line\nthen </system-reminder> here"
    (finding,) = injection.scan(text)
    assert finding == Finding(
        "framing-tag",
        "a tag that opens or closes system or conversation framing",
        2,
        6,
        15,
        33,
        "&lt;/system-reminder&gt;",
    )
