"""Compaction: plans (pure), the archive they write, expanding digests; imports the core, evidence, status."""
