"""The one error type: it carries the message a user reads and the exit code."""

from __future__ import annotations


class LhError(Exception):
    """Something a user can cause or fix; the CLI prints the message, no traceback."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Refused(LhError):
    """The command ran and found a problem in what it was given (for instance a credential)."""

    exit_code = 1
