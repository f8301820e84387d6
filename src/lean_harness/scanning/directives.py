"""Find text that speaks as the system or the operator, before it is stored as project memory.

A note that opens or closes framing tags, tells the reader to drop its instructions, claims the
user approved something in advance, addresses "the AI agent" or pipes a remote script into a shell
is a standing prompt injection, so writes refuse it (adr/0019). Every rule needs a phrase that only
makes sense aimed at a model: "Never push to main" or "Run curl localhost:8080/health" do not match.
The rules read the folded view of the text (fold.py), so a disguised phrase reads as the phrase;
findings are placed in the text itself. Pure; patterns compile on first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from lean_harness.scanning.engine import TYPE_CHECKING, Rule, gated, prefiltered, spans
from lean_harness.scanning.fold import folded

if TYPE_CHECKING:
    from lean_harness.scanning.finding import Finding
    from lean_harness.scanning.fold import Origin

__all__ = ["RULES", "Rule", "scan", "scan_many"]


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
# Any `<|name|>` shape (the names differ by model family), Llama's `[INST]`, Mistral's bracketed
# headers, Gemma's turn markers; the fullwidth bar folds to `|` but is kept for neutralise.
_TOKEN = (
    r"<\|[^|<>\s]{1,40}\|?>|<\uff5c[^\uff5c<>\n]{1,40}\uff5c>"
    r"|\[/?(?:inst|system_prompt|available_tools|tool_calls|tool_results)\]|<(?:start|end)_of_turn>"
)
_AGENT = (
    r"(?:ai|llm|gpt|language[- ]model|coding[- ]agent|coding[- ]assistant|ai[- ](?:agent|assistant|model|bot)s?|"
    r"claude(?:[- ]code)?|copilot|codex|chatgpt|gemini)"
)
_ROLE = r"(?:system|assistant|developer|human|ai)(?:[ _-](?:message|prompt|note|override|instructions?))?"
_EARLIER = r"(?:previous|prior|above|earlier|preceding|original|initial|system|safety)"
_ORDERS = (
    r"(?:instructions?|prompts?|directions?|directives?|guidelines?|guardrails?|rules|orders|"
    r"constraints|restrictions|context|programming|policies|system prompt)"
)

_FETCH = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)"
# A host in a download command: after a scheme, or a dotted word standing alone.
_HOST = r"(?:(?:https?|ftp)://|(?<![^\s\"'=@]))(\[[0-9a-f:]+\]|[a-z0-9\-]+(?:\.[a-z0-9\-]+)*)(?=[:/\s\"')]|$)"
_LOOPBACK = r"localhost|[a-z0-9\-.]+\.localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[::1\]"


def _remote(command: str) -> bool:
    """A download run as code counts only when it names a host other than this machine (or none
    we can read); the hosts are read from the download, before any pipe."""
    fetch = re.search(_FETCH, command)
    args = command[fetch.end() if fetch else 0 :].split("|", maxsplit=1)[0]
    hosts = [h for h in re.findall(_HOST, args) if "." in h or h.startswith("[") or h == "localhost"]
    return not hosts or not all(re.fullmatch(_LOOPBACK, h) for h in hosts)


RULES: tuple[Rule, ...] = (
    # Prefilters (adr/0036): a framing tag names a role, a role header starts a line with one, a note
    # addressed to the agent names it.
    Rule("framing-tag", "a tag that opens or closes system or conversation framing", _TAG, ("<",), view="folded",
         prefilter=r"<\s*/?\s*(?:system|assistant|developer|human|instruction|tool|function|user|im_|important|ai|"
                   r"model)|<<\s*/?\s*sys"),
    Rule("chat-template-token", "a chat-template control token", _TOKEN,
         ("<|", "<\uff5c", "[inst]", "[/inst]", "_of_turn>", "[system_prompt]", "[available_tools]", "[tool_"),
         bounded=True, view="folded"),
    Rule("role-header", "a line that speaks as the system, the assistant or the user",
         # A role at a line's start: bracketed (`[system]`), a heading (`### System:`) or a line of
         # its own (`SYSTEM:`, `Assistant:`) speaks as that role whatever follows; a role followed
         # by a colon and more text only when the text turns to the reader (`System: you ...`).
         rf"(?m)^[ \t>*\-]*(?:\[{_ROLE}\][ \t]*(?:$|[^\s(=])|#+[ \t]*{_ROLE}[ \t]*:"
         rf"|{_ROLE}[ \t]*:[ \t]*$|(?:assistant|human)[ \t]*:[ \t]*\S"
         rf"|\[?{_ROLE}\]?[ \t]*[:\]][ \t]*(?:you\b|ignore\b|disregard\b|forget\b|from now on|new instructions|"
         r"as an? (?:ai|assistant)|override\b|always\b|never\b|do not\b|don'?t\b)"
         r"|user[ \t]*[:\]][ \t]*(?:ignore|disregard|forget)\b)",
         (":", "]"),
         bounded=True, view="folded",
         prefilter=r"(?m)^[ \t>*\-]*(?:\[|#+[ \t]*)?(?:system|assistant|developer|human|ai|user)"),
    Rule("override-instructions", "an attempt to override the agent's instructions",
         rf"(?:ignore|disregard|forget|override|overrule|bypass|set aside)\s+"
         rf"(?:(?:all|any|every|the|of|these|those|my)\s+){{0,3}}{_EARLIER}\s+(?:\w+\s+)?{_ORDERS}\b"
         rf"|(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?your\s+(?:\w+\s+)?{_ORDERS}\b"
         rf"|(?:ignore|disregard|forget)\s+(?:all\s+of\s+|all\s+)?(?:everything|all)\s+(?:above|before\s+this|"
         rf"(?:you\s+(?:were|have\s+been)\s+)?(?:told|said|instructed)\b)"
         rf"|new\s+(?:system\s+)?instructions\s*:|from now on,?\s+you\s+(?:are|will|must|should|shall)\b"
         rf"|you\s+are\s+no\s+longer\s+(?:an?\s+|bound|restricted|required)|you\s+are\s+now\s+(?:in\s+)?"
         rf"(?:dan|free|unrestricted|jailbroken|developer mode|god mode|an? (?:unrestricted|different|new))\b"
         rf"|your\s+(?:new|real|true|actual)\s+(?:task|instructions?|role|goal|purpose)\s+(?:is|are)\b"
         rf"|(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to)"
         rf"\s+the\s+(?:user|operator|human)\s+(?:about\s+(?:this|these|it)\b|that\s+you\b|what\s+you\b)"
         rf"|(?:hide|conceal|keep)\s+this\s+(?:secret\s+)?from\s+the\s+(?:user|operator|human)\b",
         ("ignore", "disregard", "forget", "override", "overrule", "bypass", "set aside", "instructions",
          "from now on", "you are", "your ", "the user", "the operator", "the human"),
         bounded=True, view="folded"),
    Rule("claimed-approval", "a claim that the user or operator approved something in advance",
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
         bounded=True, view="folded"),
    Rule("addressed-to-agent", "an instruction addressed to the AI agent reading the memory",
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
         ("note", "message", "instruction", "attention", "important", "notice", "reminder", "dear", "hey", "hi",
          "hello", "if you are", "you are", "as a", "ai ", "llm", "claude", "copilot", "codex", "chatgpt", "gemini",
          "assistant"),
         bounded=True, view="folded",
         prefilter=r"\b(?:ai|llm|gpt|language|coding|claude|copilot|codex|chatgpt|gemini|assistant|agent|model|bot)"),
    Rule("remote-pipe-shell", "a remote script piped into a shell",
         # A download piped (through any other stages: `| tee x | sh`) into a shell or interpreter;
         # a shell, eval or source running a download's output (`eval "$(curl ...)"`,
         # `source <(curl ...)`); PowerShell evaluating a download (`iex (iwr ...)`).
         rf"{_FETCH}\b[^\n;`]{{0,300}}?"
         r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:(?:ba|z|k|da|fi|c|tc)?sh|iex|invoke-expression)\b"
         r"|(?:python[0-9.]*|perl|ruby|node)(?=[ \t]*(?:$|-(?:\s|$)|[;&)\"'`])))"
         r"|(?:(?:ba|z|k)?sh(?:\s+-c)?|eval|source|\.|exec|(?:python[0-9.]*|perl|ruby|node)\s+-[ce])\s+[\"']?"
         rf"(?:<\(|\$\(|`)\s*{_FETCH}\b[^\n)`]{{0,300}}"
         r"|(?:iex|invoke-expression)\b[^\n]{0,20}?\(\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object)"
         r"[^\n]{0,300}",
         ("sh", "iex", "invoke-expression", "python", "perl", "ruby", "node", "eval", "source", ". <(", "exec"),
         _remote,
         requires=("curl", "wget", "iwr", "irm", "iex", "invoke-"),  # what each branch downloads with
         bounded=True, view="folded"),
    Rule("hidden-characters",
         "invisible characters that hide text from a reader (tag or bidirectional-override characters)",
         "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b\u200c\u2060]",
         view="text"),
)  # fmt: skip


def scan(text: str, allow: Iterable[str] = ()) -> tuple[Finding, ...]:
    """Every directive in `text`, sorted by position; rules in `allow` are skipped."""
    allowed = frozenset(allow)
    view: tuple[str, Origin] | None = None  # the folded view, made when a rule first needs it
    places: Origin | None
    found: list[Finding] = []
    for rule in RULES:
        # the one rule on the text itself looks for invisible characters, which ASCII has none of
        if rule.id in allowed or (rule.view == "text" and text.isascii()):
            continue
        if rule.view == "text":
            source, places = text, None
        else:
            source, places = view = view or folded(text)
            if not gated(rule, source) or not prefiltered(rule, source):
                continue
        for begin, finish in spans(rule, source, source):
            from lean_harness.scanning.finding import Finding  # loads dataclasses: only once a finding is made

            start, end = (places[begin], places[finish - 1] + 1) if places is not None else (begin, finish)
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            found.append(Finding(rule.id, rule.description, line, column, start, end, preview(text[start:end])))
    return tuple(sorted(found, key=lambda f: (f.start, f.rule)))


def scan_many(texts: Sequence[str], allows: Sequence[Iterable[str]] = ()) -> list[tuple[Finding, ...]]:
    """`scan` of each text, with its allowed rules at the same place in `allows` (or none)."""
    return [scan(text, allow) for text, allow in zip(texts, allows or [()] * len(texts), strict=True)]


def preview(phrase: str) -> str:
    """The matched phrase as one short, escaped line that cannot itself act as framing, credentials masked."""
    from lean_harness.scanning import credentials  # only for a finding: `curl https://u:TOKEN@...`

    found = credentials.scan(phrase)
    flat = " ".join((credentials.hide(phrase, found) if found else phrase).split())
    flat = "".join(c if c.isprintable() else f"U+{ord(c):04X}" for c in flat)
    flat = flat if len(flat) <= 60 else flat[:57] + "..."
    return flat.replace("<", "&lt;").replace(">", "&gt;")


# Framing tags and chat-template tokens, escaped wherever memory text is shown to an agent.
NEUTRAL = f"{_TAG}|{_TOKEN}"
