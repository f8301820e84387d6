"""SHA-256 and HMAC-SHA256, without OpenSSL's start-up cost where the input is small.

Every command hashes something small: the config's text, an entry's text for the token cache,
the remembered config's signature. `import hashlib` loads OpenSSL's libcrypto first, about 2.5 ms
of a command that starts in 60, and `import hmac` imports it too. CPython's own SHA-256 module
imports in a tenth of that; for an input of `LARGE` bytes or more hashlib is used after all, as its
OpenSSL code hashes about five times as fast and the import then pays for itself. Both give the
same digest, and the HMAC is RFC 2104's over the same function; tests hold each to hashlib and
hmac (adr/0029).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

LARGE = 1 << 18  # 256 KiB: from here on, hashlib's import costs less than the slower hashing
_BLOCK = 64  # SHA-256's block size, in bytes: the length of an HMAC key's pad

_small: Callable[[Any], Any]  # the annotation is never evaluated: see `from __future__` above
try:  # CPython's own module: `_sha2` from 3.12 on, `_sha256` before; any other Python: hashlib
    from _sha2 import sha256 as _small  # type: ignore[import-not-found,no-redef,unused-ignore]
except ImportError:
    try:
        from _sha256 import sha256 as _small  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        from hashlib import sha256 as _small
try:
    from _operator import _compare_digest
except ImportError:
    from hmac import compare_digest as _compare_digest  # type: ignore[no-redef]

_INNER = bytes(byte ^ 0x36 for byte in range(256))
_OUTER = bytes(byte ^ 0x5C for byte in range(256))


def _hasher(size: int) -> Callable[[Any], Any]:
    if size < LARGE:
        return _small
    import hashlib

    return hashlib.sha256


def sha256(data: bytes | bytearray | memoryview) -> str:
    """The SHA-256 of the bytes, in lowercase hex."""
    return str(_hasher(len(data))(data).hexdigest())


def hmac_sha256(key: bytes, data: bytes) -> str:
    """The HMAC-SHA256 of the bytes under the key (RFC 2104), in lowercase hex."""
    if len(key) > _BLOCK:
        key = bytes.fromhex(sha256(key))
    key = key.ljust(_BLOCK, b"\0")
    inner: bytes = _hasher(_BLOCK + len(data))(key.translate(_INNER) + data).digest()
    return str(_small(key.translate(_OUTER) + inner).hexdigest())


def same(left: str, right: str) -> bool:
    """Whether two strings (digests, signatures) are equal, in time that does not tell where they differ."""
    return bool(_compare_digest(left.encode(), right.encode()))
