"""Lexical retrieval: index, its cache on disk, queries, lint; imports the memory core, nothing beside or above."""
