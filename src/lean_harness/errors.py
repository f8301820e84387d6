"""The one error type: it carries the message a user reads, made `readable`, and the exit code."""

from __future__ import annotations

import re

# An escape sequence (CSI, OSC and two-byte forms), or any other C0/C1 control character, line and
# paragraph separators included; a line feed stays (a config error lists one problem a line).
_CONTROL_RE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_]?)|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]"
)
MAX_WORD = 200  # a run without spaces longer than this is a value, cut to its first characters
MAX_LINE = 2000
_LONG_WORD_RE = re.compile(rf"[^\s:;,]{{{MAX_WORD + 1},}}")  # a value ends at a space or a separator


def readable(message: str) -> str:
    """A message made safe to print: control characters removed, long values and long lines cut."""
    if len(message) <= MAX_LINE and not _CONTROL_RE.search(message) and not _LONG_WORD_RE.search(message):
        return message
    lines = _LONG_WORD_RE.sub(lambda m: m.group()[: MAX_WORD - 1] + "…", _CONTROL_RE.sub("", message)).split("\n")
    # A long line keeps its end: it says what to do next.
    return "\n".join(line if len(line) <= MAX_LINE else line[: MAX_LINE - 301] + "…" + line[-300:] for line in lines)


class LhError(Exception):
    """Something a user can cause or fix; the CLI prints the message, no traceback."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        message = readable(message)
        super().__init__(message)
        self.message = message


class Refused(LhError):
    """The command ran and found a problem in what it was given (for instance a credential)."""

    exit_code = 1
