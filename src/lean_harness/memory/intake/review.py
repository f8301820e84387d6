"""`lh memory review`: what may make memory wrong or larger than it needs to be, found without writing.

Five kinds of finding (adr/0039-supersede-review-receipts.md, docs/review.md): `contradiction`
and `duplicate` (pairs of entries on one subject), `superseded`, `stale` and `pending`. Two
entries are on one subject when they share at least MIN_SHARED content terms (`search.tokenize`,
less numbers) not common in this memory, making a Dice overlap of SAME_SUBJECT: a word alone never
pairs two notes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lean_harness import hookstate
from lean_harness.memory.handle import Memory
from lean_harness.memory.search.search import STOPWORDS, tokenize
from lean_harness.memory.shard import title_of

MIN_SHARED = 3
SAME_SUBJECT = 0.3  # Dice of content terms for a contradiction
SAME_TEXT = 0.6  # Dice of content terms for a duplicate
# Words, and numbers or versions standing alone: the digits inside an identifier or a commit hash are neither.
_WORD_RE = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)*(?![\w.]*\w)|[A-Za-z][A-Za-z_'-]*")
_NEGATIONS = {"not", "no", "never", "don't", "doesn't", "isn't", "aren't", "won't", "can't", "cannot", "without"}
_POLES = ({"always", "must"}, {"never"}), ({"enabled", "enable", "true"}, {"disabled", "disable", "false"})


@dataclass(frozen=True, slots=True)
class Item:
    """An entry or a pending note as a finding names it."""

    shard: str
    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing to look at: its kind, the entries it is about, and why."""

    kind: str
    entries: tuple[Item, ...]
    why: str


def review(memory: Memory) -> tuple[Finding, ...]:
    """Every finding in the memory and its inbox, in a fixed order; nothing is written."""
    from lean_harness.memory.compaction.archive import superseded
    from lean_harness.memory.evidence import stale

    memory.check_dir()
    with memory.reading():
        live: dict[str, tuple[Item, str]] = {}
        for name in memory.config.shard_names:
            for e in memory.entries(name):
                live[e.id] = Item(name, e.id, e.title, e.text), e.attr("supersedes") or ""
        waiting = notes(memory)
        found = pairs([*(item for item, _ in live.values()), *waiting])  # a note may repeat an entry
        for item, named in live.values():
            for key in sorted(set(named.replace(",", " ").split()) & set(live)):
                found.append(Finding("superseded", (live[key][0], item), f"{item.id} names {key} as superseded"))
        for link in superseded(memory):
            if link.entry.id in live and link.successor in live:
                why = f"the archive keeps {link.entry.id} as superseded by {link.successor}"
                found.append(Finding("superseded", (live[link.entry.id][0], live[link.successor][0]), why))
        for cited in stale.report(memory).stale:
            if cited.id in live:
                why = cited.problem or "; ".join(f"{f.anchor.path}: {f.status}" for f in cited.findings if f.stale)
                found.append(Finding("stale", (live[cited.id][0],), why))
        hookstate.record_review(memory.config.cache_dir, len(found), memory.root)  # for the session start
        found += [Finding("pending", (n,), f"pending for {hookstate.said_age(hookstate.age(n.id))}") for n in waiting]
    return tuple(found)


def notes(memory: Memory) -> list[Item]:
    """The pending notes as items: shard "" or the one they name, id the file name (it starts with its time)."""
    from lean_harness.memory.intake import inbox
    from lean_harness.memory.intake.formats import frontmatter

    fronts = [
        (note.path.name, frontmatter.split(note.data.decode("utf-8", "replace"))) for note in inbox.snapshot(memory)
    ]
    return [Item(front.strings().get("shard", ""), name, title_of(front.body), front.body) for name, front in fronts]


def pairs(items: Sequence[Item]) -> list[Finding]:
    """Contradictions and duplicates among `items`, each pair once, in the items' order."""
    terms = [_terms(item.text) for item in items]
    counts = Counter(t for found in terms for t in found)
    common = {t for t, n in counts.items() if n > max(10, len(items) // 10)}
    said = [(set(words), _slots(words), _negated(words)) for words in (_words(item.text) for item in items)]
    heads = [frozenset(_terms(item.title)) for item in items]
    holders: dict[str, list[int]] = {}
    for number, found in enumerate(terms):
        for term in found - common:
            holders.setdefault(term, []).append(number)
    found_pairs: list[Finding] = []
    for a in range(len(items)):
        shared_with = Counter(b for t in terms[a] - common for b in holders[t] if b > a)
        for b, shared in sorted(shared_with.items()):
            dice = 2 * shared / (len(terms[a] - common) + len(terms[b] - common))
            if shared < MIN_SHARED or dice < SAME_SUBJECT:
                continue
            why = _contradiction(said[a], said[b], terms[a], terms[b])
            kind = "contradiction" if why else ""
            if not why and (dice >= SAME_TEXT or (heads[a] == heads[b] and len(heads[a]) >= 2)):
                kind, why = "duplicate", f"{shared} content words in common (overlap {dice:.2f})"
            if kind:
                found_pairs.append(Finding(kind, (items[a], items[b]), why))
    return found_pairs


Said = tuple[set[str], dict[tuple[str, str], set[str]], set[str]]  # words, numbers by word, terms negated


def _contradiction(a: Said, b: Said, states_a: set[str], states_b: set[str]) -> str:
    """Why two texts on one subject disagree, or ""."""
    (words_a, slots_a, no_a), (words_b, slots_b, no_b) = a, b
    for key, value in slots_a.items():
        other = slots_b.get(key)
        if other is not None and not other & value:
            return f"{key[1]}: {' '.join(sorted(value))} against {' '.join(sorted(other))}"
    for yes, no in _POLES:
        if any(yes & this and no & that and not no & this for this, that in ((words_a, words_b), (words_b, words_a))):
            return f"one says {'/'.join(sorted(yes))}, the other {'/'.join(sorted(no))}"
    for negated, states in ((no_a - no_b, states_b), (no_b - no_a, states_a)):
        if negated & states:
            return f"one negates what the other states ({', '.join(sorted(negated & states))})"
    return ""


def _negated(words: list[str]) -> set[str]:
    """The terms of the two words after each negation: what a text says is not so."""
    return {t for at, w in enumerate(words) if w in _NEGATIONS for n in words[at + 1 : at + 3] for t in tokenize(n)}


def _slots(words: list[str]) -> dict[tuple[str, str], set[str]]:
    """Each number or version by the content word before it and the one after it."""
    slots: dict[tuple[str, str], set[str]] = {}
    for at, word in enumerate(words):
        if not word.lstrip("v")[:1].isdigit():
            continue
        before = next((w for w in reversed(words[max(0, at - 3) : at]) if w.isalpha() and w not in STOPWORDS), "")
        after = next((w for w in words[at + 1 : at + 2] if w.isalpha() and w not in STOPWORDS), "")
        for side, near in (("<", before), (">", after)):
            if near:
                slots.setdefault((side, near), set()).add(word.lstrip("v"))
    return slots


def _terms(text: str) -> set[str]:
    return {t for t in tokenize(text) if not any(c.isdigit() for c in t)}


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text.replace("’", "'"))]
