"""Find text that speaks as the system or the operator, before it is stored as project memory.

Memory is data, but its text reaches an agent's context at every session start. A note that
closes or opens framing tags (`</system-reminder>`, `<|im_start|>`), tells the reader to drop
its instructions, claims the user approved something in advance, addresses "the AI agent" or
pipes a remote script into a shell is a standing prompt injection, so writes refuse it
(adr/0019-injection-guard-and-masking.md). Ordinary imperative engineering notes ("Never push to main",
"Ignore the urllib3 warnings", "Run curl localhost:8080/health") are not directives to the
agent and do not match: every rule needs a phrase that only makes sense aimed at a model.

`scan(text, allow=())` returns findings shaped like the credential scanner's (rule id,
description, line, column, span, preview) so that callers treat both alike.
`neutralise(text)` escapes framing tags and chat-template tokens in text that is about to be
shown to an agent, for memory a hand edit wrote past the check. Both are pure; patterns are
compiled on first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from lean_harness import keywords
from lean_harness.finding import Finding
from lean_harness.values import Value

__all__ = ["RULES", "Finding", "Rule", "neutralise", "rule_ids", "scan", "scan_many"]


class Rule(Value):
    """One way text impersonates framing or overrides instructions; `pattern` runs lowercased."""

    id: str
    description: str
    pattern: str
    keywords: tuple[str, ...]  # the rule runs only when one of these occurs in the lowered text
    requires: tuple[str, ...] = ()  # and one of these: every match holds one (tests check it)


# Names a client's framing uses. Opening tags count only for names that are not also common
# placeholders (`<user>`, `<context>` in a command synopsis); closing tags count for all.
_OPEN = (
    r"system(?:[-_ ]?(?:reminder|message|prompt|instructions?|note))?|assistant|developer|human|"
    r"instructions?|tool[-_]?(?:result|use|call|response|output)s?|function[-_]?(?:results?|calls?)|"
    r"user[-_]?(?:prompt|message|query|input|instructions?|prompt-submit-hook)|im_start|im_end|important"
)
_CLOSE = rf"{_OPEN}|user|ai|model"
_GAP = "[\\s\u200b-\u200d\u2060\ufeff]*"  # spaces, and invisible characters that would hide a tag from the check
_TAG = (
    rf"<{_GAP}/{_GAP}(?:{_CLOSE}){_GAP}>|<{_GAP}(?:{_OPEN})(?:\s[^<>\n]{{0,80}})?{_GAP}/?>"
    rf"|<<{_GAP}/?{_GAP}sys{_GAP}>>"
)
_TOKEN = r"<\|[a-z_]{2,30}\|?>|<\uff5c[^\uff5c<>\n]{1,40}\uff5c>|\[/?inst\]|<(?:start|end)_of_turn>"
_AGENT = (
    r"(?:ai|llm|gpt|language[- ]model|coding[- ]agent|coding[- ]assistant|ai[- ](?:agent|assistant|model|bot)s?|"
    r"claude(?:[- ]code)?|copilot|codex|chatgpt|gemini)"
)
_EARLIER = r"(?:previous|prior|above|earlier|preceding|original|initial|system|safety)"
_ORDERS = (
    r"(?:instructions?|prompts?|directions?|directives?|guidelines?|guardrails?|rules|orders|"
    r"constraints|restrictions|context|programming|policies|system prompt)"
)

RULES: tuple[Rule, ...] = (
    Rule("framing-tag", "a tag that opens or closes system or conversation framing", _TAG, ("<",)),
    Rule(
        "chat-template-token",
        "a chat-template control token",
        _TOKEN,
        ("<|", "<\uff5c", "[inst]", "[/inst]", "_of_turn>"),
    ),
    Rule(
        "role-header",
        "a line that speaks as the system, the assistant or the user",
        r"(?m)^[ \t>#*\-]*\[?(?:(?:system|assistant|developer|human|ai)(?:[ _-](?:message|prompt|note|override))?"
        r"\]?[ \t]*[:\]][ \t]*(?:you\b|ignore\b|disregard\b|forget\b|from now on|new instructions|"
        r"as an? (?:ai|assistant))"
        r"|user[ \t]*[:\]][ \t]*(?:ignore|disregard|forget)\b)",
        (":", "]"),
    ),
    Rule(
        "override-instructions",
        "an attempt to override the agent's instructions",
        rf"(?:ignore|disregard|forget|override|overrule|bypass|set aside)\s+"
        rf"(?:(?:all|any|every|the|of|these|those|my)\s+){{0,3}}{_EARLIER}\s+(?:\w+\s+)?{_ORDERS}\b"
        rf"|(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?your\s+(?:\w+\s+)?{_ORDERS}\b"
        rf"|new\s+(?:system\s+)?instructions\s*:|from now on,?\s+you\s+(?:are|will|must|should|shall)\b"
        rf"|you\s+are\s+no\s+longer\s+(?:an?\s+|bound|restricted|required)|you\s+are\s+now\s+(?:in\s+)?"
        rf"(?:dan|free|unrestricted|jailbroken|developer mode|god mode|an? (?:unrestricted|different|new))\b"
        rf"|your\s+(?:new|real|true|actual)\s+(?:task|instructions?|role|goal|purpose)\s+(?:is|are)\b"
        rf"|(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to)"
        rf"\s+the\s+(?:user|operator|human)\s+(?:about\s+(?:this|these|it)\b|that\s+you\b|what\s+you\b)"
        rf"|(?:hide|conceal|keep)\s+this\s+(?:secret\s+)?from\s+the\s+(?:user|operator|human)\b",
        (
            "ignore",
            "disregard",
            "forget",
            "override",
            "overrule",
            "bypass",
            "set aside",
            "instructions",
            "from now on",
            "you are",
            "your ",
            "the user",
            "the operator",
            "the human",
        ),
    ),
    Rule(
        "claimed-approval",
        "a claim that the user or operator approved something in advance",
        r"pre-?\s?(?:approved|authori[sz]ed|consented)\b"
        r"|(?:user|operator|owner|maintainers?|admin(?:istrator)?|human)\s+(?:has\s+|have\s+|had\s+)?"
        r"(?:already\s+|explicitly\s+|previously\s+|fully\s+)*(?:approved|authori[sz]ed|consented|permitted|allowed|"
        r"granted|given)\s+(?:you\b|the\s+(?:agent|assistant|ai|model)\b|(?:blanket\s+)?permission\b|consent\b|"
        r"approval\b|everything\b|this\s+(?:in\s+advance|already)\b|in\s+advance\b|"
        r"(?:it|this)\s+(?:already|in advance))"
        r"|(?:user|operator|owner|human)\s+(?:has\s+|had\s+)?(?:already|explicitly|previously)\s+(?:approved|"
        r"authori[sz]ed|consented\s+to|agreed\s+to|okayed|signed\s+off\s+on)\s+(?!(?:the|this|that|a|an|your)\s"
        r"+(?:pr|pull|merge|review|design|schema|copy|change|rfc|proposal|plan|budget|release)\b)"
        r"|(?:permission|approval|consent|authori[sz]ation)\s+(?:is|was|has\s+been)\s+(?:already\s+)?"
        r"(?:granted|given|implied|assumed)\b"
        r"|you\s+(?:already\s+have|have\s+already\s+been\s+(?:given|granted)|have\s+been\s+(?:given|granted)|"
        r"are\s+(?:given|granted)|have\s+(?:full|blanket|standing|explicit))\s+(?:full\s+|blanket\s+|standing\s+)?"
        r"(?:permission|approval|consent|authori[sz]ation)\b"
        r"|(?:no\s+need|don'?t\s+need|do\s+not\s+need|never\s+need)\s+to\s+(?:ask|confirm|check)\s+(?:with\s+)?"
        r"(?:the\s+user|the\s+operator|for\s+(?:permission|approval|confirmation))",
        ("approv", "authori", "consent", "permi", "allowed", "granted", "given", "need to"),
    ),
    Rule(
        "addressed-to-agent",
        "an instruction addressed to the AI agent reading the memory",
        rf"(?:note|message|instructions?|attention|important|notice|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?"
        rf"(?:{_AGENT}|assistants?)\b"
        rf"|(?:dear|hey|hi|hello|attention)\s*,?\s+(?:the\s+)?(?:{_AGENT}|assistant)\b"
        rf"|if\s+you\s+are\s+(?:an?\s+)?(?:{_AGENT}|assistant|agent|model|bot)\b"
        rf"|you\s+are\s+(?:an?\s+)?(?:helpful\s+|autonomous\s+)?(?:ai|llm|language model|ai assistant|"
        rf"coding (?:agent|assistant))\b|as\s+an?\s+(?:ai|llm|language model)\b"
        rf"|(?:the|any|all|every)\s+(?:ai|llm)\s+(?:agents?|assistants?|models?|bots?)\s*(?:[,:]|must\b|should\b|"
        rf"shall\b|needs?\s+to\b|has\s+to\b|is\s+(?:instructed|required|expected)\b|reading\s+this\b)"
        rf"|(?m:^[ \t>*\-]*(?:claude|copilot|codex|chatgpt|gemini|assistant)\s*[,:]\s+"
        rf"(?:you\b|please\b|always\b|never\b|ignore\b|do\b|run\b|delete\b|execute\b))",
        (
            "note",
            "message",
            "instruction",
            "attention",
            "important",
            "notice",
            "reminder",
            "dear",
            "hey",
            "hi",
            "hello",
            "if you are",
            "you are",
            "as a",
            "ai ",
            "llm",
            "claude",
            "copilot",
            "codex",
            "chatgpt",
            "gemini",
            "assistant",
        ),
    ),
    Rule(
        "remote-pipe-shell",
        "a remote script piped into a shell",
        r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b(?P<a1>[^\n|;`]{0,300}?)"
        r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:(?:ba|z|k|da|fi|c|tc)?sh|iex|invoke-expression)\b"
        r"|(?:python[0-9.]*|perl|ruby|node)(?=[ \t]*(?:$|-(?:\s|$)|[;&)\"'`])))"
        r"|(?:ba|z|k)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b(?P<a2>[^\n)]{0,300})"
        r"|(?:iex|invoke-expression)\b[^\n]{0,20}?\(\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object)"
        r"(?P<a3>[^\n]{0,300})",
        ("sh", "iex", "invoke-expression", "python", "perl", "ruby", "node"),
        ("curl", "wget", "iwr", "irm", "iex", "invoke-"),  # what each branch downloads with
    ),
    Rule(
        "hidden-characters",
        "invisible characters that hide text from a reader (tag or bidirectional-override characters)",
        "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b\u200c\u2060]",
        (),
    ),
)

# A host in a download command: after a scheme, or a dotted word standing alone.
_HOST = r"(?:(?:https?|ftp)://|(?<![^\s\"'=@]))(\[[0-9a-f:]+\]|[a-z0-9\-]+(?:\.[a-z0-9\-]+)*)(?=[:/\s\"']|$)"
_LOOPBACK = r"localhost|[a-z0-9\-.]+\.localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[::1\]"
_compiled: dict[str, re.Pattern[str]] = {}
_KEYWORDS: list[str] = []  # every rule's keywords, once each


def rule_ids() -> tuple[str, ...]:
    """The id of every rule, in registry order."""
    return tuple(rule.id for rule in RULES)


def _pattern(rule: Rule) -> re.Pattern[str]:
    if rule.id not in _compiled:
        _compiled[rule.id] = re.compile(rule.pattern)
    return _compiled[rule.id]


def _remote(match: re.Match[str]) -> bool:
    """A piped download counts only when it names a host other than this machine (or none we can read)."""
    args = next((g for g in match.groups() if g is not None), "")
    hosts = [h for h in re.findall(_HOST, args) if "." in h or h.startswith("[") or h == "localhost"]
    return not hosts or not all(re.fullmatch(_LOOPBACK, h) for h in hosts)


def _lower(text: str) -> str:
    """Lowercase without moving offsets."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate({c: c + 32 for c in range(65, 91)})


def scan(text: str, allow: Iterable[str] = ()) -> tuple[Finding, ...]:
    """Every directive in `text`, sorted by position; rules in `allow` are skipped."""
    return scan_many([text], [allow])[0]


def scan_many(texts: Sequence[str], allows: Sequence[Iterable[str]] = ()) -> list[tuple[Finding, ...]]:
    """`scan` of each text, with its allowed rules at the same place in `allows` (or none when
    `allows` is empty); each keyword is searched for once in a run of texts (keywords.py)."""
    if allows and len(allows) != len(texts):
        raise ValueError("scan_many needs one allowance per text, or none at all")
    results: list[tuple[Finding, ...]] = []
    for begin, end in keywords.runs(texts):
        chunk = texts[begin:end]
        allowed = [frozenset(allow) for allow in allows[begin:end]] if allows else []
        results += _scan_run(chunk, allowed)
    return results


def _scan_run(texts: Sequence[str], allowed: Sequence[frozenset[str]]) -> list[tuple[Finding, ...]]:
    lowered = [_lower(text) for text in texts]
    if not _KEYWORDS:
        _KEYWORDS.extend(dict.fromkeys(k for rule in RULES for k in rule.keywords + rule.requires))
    hits = keywords.holding(lowered, _KEYWORDS)
    found: list[list[Finding]] = [[] for _ in texts]
    for rule in RULES:
        if rule.keywords:
            lists = [hits[k] for k in rule.keywords if k in hits]
            if not lists:
                continue
            indices = lists[0] if len(lists) == 1 else sorted(set().union(*lists))
            if rule.requires:
                needed = set().union(*[hits[k] for k in rule.requires if k in hits])
                indices = [index for index in indices if index in needed]
        else:
            indices = [index for index, text in enumerate(texts) if not text.isascii()]
        for index in indices:
            if allowed and rule.id in allowed[index]:
                continue
            text, low = texts[index], lowered[index]
            for match in _pattern(rule).finditer(low):
                if rule.id == "remote-pipe-shell" and not _remote(match):
                    continue
                start, end = match.span()
                if start and low[start].isalnum() and (low[start - 1].isalnum() or low[start - 1] == "_"):
                    continue  # starts mid-word; patterns leave the left boundary to this check to stay fast
                line = text.count("\n", 0, start) + 1
                column = start - (text.rfind("\n", 0, start) + 1) + 1
                found[index].append(
                    Finding(rule.id, rule.description, line, column, start, end, _preview(text[start:end]))
                )
    return [tuple(sorted(each, key=lambda f: (f.start, f.rule))) for each in found]


def shown(text: str) -> str:
    """Anyone's text as lh shows it to an agent: credentials masked, framing tags escaped."""
    from lean_harness import secret_scan  # only when text from outside lh is shown

    return neutralise(secret_scan.redact(text))


def _preview(phrase: str) -> str:
    """The matched phrase as one short, escaped line that cannot itself act as framing, credentials masked."""
    from lean_harness import secret_scan  # only for a finding: the phrase may hold a token (`curl https://u:TOKEN@...`)

    credentials = secret_scan.scan(phrase)
    flat = " ".join((secret_scan.mask(phrase, credentials) if credentials else phrase).split())
    flat = "".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in flat)
    flat = flat if len(flat) <= 60 else flat[:57] + "..."
    return flat.replace("<", "&lt;").replace(">", "&gt;")


# Framing tags and chat-template tokens, escaped wherever memory text is shown to an agent.
_NEUTRAL = f"{_TAG}|{_TOKEN}"
_neutral: list[re.Pattern[str]] = []
_MARKS = ("<", "[inst]", "[/inst]")


def neutralise(text: str) -> str:
    """`text` with framing tags and chat-template tokens escaped (`<` becomes `&lt;`), else unchanged."""
    # An HTML comment's "<!--" starts no tag or token, and INDEX.md has several: skip compiling for it.
    lowered = text.lower().replace("<!--", "")
    if not any(mark in lowered for mark in _MARKS):
        return text
    if not _neutral:
        _neutral.append(re.compile(_NEUTRAL, re.IGNORECASE))
    return _neutral[0].sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    tag = match.group()
    if tag.startswith("["):
        return tag.replace("[", "&#91;").replace("]", "&#93;")
    return tag.replace("<", "&lt;").replace(">", "&gt;")
