"""memory/status.py: INDEX.md and the totals as the shards make them; ids that clash across shards named."""

from __future__ import annotations

from pathlib import Path

from support import lh

MEMORY = ".agents/memory"


def test_one_id_in_two_shards_is_reported_by_file_and_line(project: Path) -> None:
    assert lh("memory", "put", "seed", "one text", "--id", "shared", cwd=project).returncode == 0
    quirks = project / MEMORY / "quirks.md"
    text = (project / MEMORY / "seed.md").read_text("utf-8")
    block = text[text.index("<!-- lh:entry") :]
    quirks.write_text(quirks.read_text("utf-8") + "\n" + block.replace("one text", "another text"), encoding="utf-8")
    result = lh("memory", "index", cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        f"{MEMORY}/seed.md:5: entry shared is also in {MEMORY}/quirks.md:5; an id names one entry:"
        " delete one copy, or give it another id (lh memory put SHARD TEXT --id NEW)\n"
    )
    assert lh("doctor", cwd=project).returncode == 1
