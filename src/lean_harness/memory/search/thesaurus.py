"""General English word relations that ship with the package, looked up one word at a time.

`wordnet.tsv` is derived from WordNet 3.0 (Princeton University; its licence is in
`wordnet-LICENSE.txt` beside it) by `benchmarks/retrieval/make_thesaurus.py`: one line per
word, sorted by the word's UTF-8 bytes, ``word<TAB>related related ...\\n``, the related words
in WordNet's order of senses (the commonest first). A lookup reads the file once per process
and bisects it for the query's words; nothing is parsed ahead (adr/0024).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("wordnet.tsv")


@cache
def _table() -> bytes:
    """The shipped table, read once per process."""
    try:
        return TABLE.read_bytes()
    except OSError:  # a broken install loses the widening, not the search
        return b""


@cache
def related(word: str) -> tuple[str, ...]:
    """Words WordNet relates to a lowercase word or to its base form, commonest sense first."""
    data = _table()
    found = dict.fromkeys(other for form in base_forms(word) for other in lookup(data, form))
    found.pop(word, None)
    return tuple(found)


def base_forms(word: str) -> list[str]:
    """The word and the forms it may be inflected from ("laptops" -> laptop, "stopped" -> stop)."""
    forms = [word]
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return forms
    for suffix, endings in (
        ("ies", ("y",)),
        ("es", ("", "e")),
        ("s", ("",)),
        ("ing", ("", "e")),
        ("ed", ("", "e")),
        ("er", ("", "e")),
        ("est", ("", "e")),
    ):
        if word.endswith(suffix) and not word.endswith("ss"):
            base = word[: -len(suffix)]
            forms.extend(base + ending for ending in endings)
            if suffix in ("ing", "ed", "er", "est") and len(base) > 3 and base[-1] == base[-2]:
                forms.append(base[:-1])
            break
    return forms


def lookup(data: bytes, word: str) -> list[str]:
    """The related words on `word`'s line of a table in the format above, or none."""
    key = word.encode() + b"\t"
    low, high = 0, len(data)
    while low < high:  # `low` and `high` stay at line starts; find the first line >= key
        middle = (low + high) // 2
        start = data.rfind(b"\n", low, middle) + 1 or low
        end = data.find(b"\n", start) + 1 or len(data)
        if data[start : min(end, start + len(key))] < key:
            low = end
        else:
            high = start
    if data.startswith(key, low):
        end = data.find(b"\n", low)
        return data[low + len(key) : end if end >= 0 else len(data)].decode().split()
    return []
