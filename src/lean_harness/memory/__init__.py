"""Project memory: shards of entries, their summaries, INDEX.md, token counts."""
