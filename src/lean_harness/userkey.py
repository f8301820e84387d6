"""The user's own key, kept outside every project, that the search cache's clean verdicts are
signed with (memory/scans.py `vouch`), and the folder the hooks keep clean INDEX.md copies in.

Both uses go when those modules scan what they print (adr/0030); nothing else uses this module.
The key is 32 random bytes in `$XDG_CACHE_HOME/lean-harness/key` (`~/.cache/...` when that is
unset or relative; `%LOCALAPPDATA%` on Windows), made on first use and readable by the user alone.
"""

from __future__ import annotations

import os

from lean_harness import digests

KEY_BYTES = 32


def folder() -> str:
    """Where the key lives. A relative XDG_CACHE_HOME (or LOCALAPPDATA) is ignored, as the XDG spec
    asks: it would name a folder of the project lh runs in, where a repository can hold a key."""
    chosen = [os.environ.get("XDG_CACHE_HOME"), os.environ.get("LOCALAPPDATA") if os.name == "nt" else None]
    base = next((path for path in chosen if path and os.path.isabs(path)), None)
    return os.path.join(base or os.path.join(os.path.expanduser("~"), ".cache"), "lean-harness")


def key() -> bytes | None:
    """The user's key, made when there is none yet (or it is damaged); None when it can be neither read nor made."""
    path = os.path.join(folder(), "key")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return _made(path, replace=False)
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else _made(path, replace=True)


def _made(path: str, *, replace: bool) -> bytes | None:
    """A new key, published whole: written to a file of this process, then linked in (or, over a
    damaged key, renamed in), so a kill at any step never leaves a short key behind."""
    from lean_harness.files import stage  # only when a key is made

    data = os.urandom(KEY_BYTES)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        temp = stage(path, data, mode=0o600)
        if replace:
            os.replace(temp, path)
        else:
            try:
                os.link(temp, path)  # never over a key another process made a moment ago
            finally:
                os.unlink(temp)
    except OSError:  # FileExistsError included: that process's key is used from the next command on
        return None
    return data


def sign(text: str) -> str | None:
    """An HMAC-SHA256 of the text under the user's key, in hex; None without a key."""
    found = key()
    return digests.hmac_sha256(found, text.encode()) if found is not None else None


def signed(text: str, signature: str) -> bool:
    """Whether `signature` is the user's signature of `text`."""
    expected = sign(text)
    return expected is not None and digests.same(expected, signature)
