"""Record the real command output of the `fresh6` replay set: capture.py's runner, with cases of its own.

    PATH=VENV/bin:NODE_MODULES/.bin:$PATH WREN_NODE_MODULES=NODE_MODULES \\
        python3 benchmarks/replay/capture_fresh6.py > benchmarks/replay/fresh6.jsonl

The cases are failures (and a few successes) of one embedded project, `wren`: the firmware logic
of a battery soil-moisture node in C11 (framed serial protocol with a CRC-16, a ring buffer,
fixed-point sensor scaling), built by make with gcc under -Wall -Wextra -Werror into a host
simulator and a tiny unit-test runner, with a flash budget check on the binary's size; a Python
host tool (pyserial, crcmod, pytest, ruff) speaking the protocol; a TypeScript flasher (tsc and
node:test) reading the boards' YAML configs turned into JSON by a PyYAML script; jq and git hooks.
VENV is a Python 3.11 virtualenv with pyserial, crcmod, pyyaml, pytest and ruff; NODE_MODULES
holds typescript and @types/node from npm. gcc, make, jq and git are Debian's. Each case runs in
a fresh folder as capture.py does; nothing here knows the set's notes or labels (sets/fresh6.json).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture

capture.VERSION.update({"jq": "jq --version", "tsc": "tsc --version", "ruff": "ruff --version"})

# ---- the repository's files -----------------------------------------------------------------------

README = """# wren

Firmware and tools for the wren soil-moisture node (a battery sensor that reports over a UART
radio bridge). The firmware logic in fw/ is plain C11 built for a host simulator; the real
target build lives in the vendor IDE project and shares these sources.

    make sim                    # build/wren-sim, the firmware logic on this machine
    make test                   # C unit tests (build/unit)
    make size BOARD=wren-v1     # text+data against the board's flash budget
    make boards                 # flasher/boards.json from boards/*.yaml
    make host-test              # pytest for host/wrentool
    make flasher                # tsc + node --test for flasher/

    python3 -m wrentool encode ping | build/wren-sim     # from host/

Wire format: docs/protocol.md. Commit subjects start with the area (CONTRIBUTING.md).
"""
CONTRIBUTING = """# Contributing

- Subject lines start with the area: `fw:`, `host:`, `flasher:`, `boards:`, `scripts:`, `docs:`.
  The commit-msg hook checks it; install the hooks once with `scripts/install-hooks.sh`.
- The pre-commit hook runs `make -s test`.
- fw/ is built with `-Wall -Wextra -Werror`; fix warnings, don't silence them in the Makefile.
- fw/ has no heap and no floating point: the v1 board's MCU has no FPU.
"""
PROTOCOL_MD = """# Wire protocol

One frame:

| byte      | meaning                                   |
|-----------|-------------------------------------------|
| 0         | SOF, 0x7E                                 |
| 1         | payload length N (0..64)                  |
| 2         | command id (fw/include/proto.h)           |
| 3..3+N-1  | payload                                   |
| 3+N, 4+N  | CRC-16/CCITT-FALSE over bytes 1..2+N      |

The CRC goes high byte first. Multi-byte payload fields are little-endian, as the MCU stores
them (struct sensor_reading in fw/include/sensor.h is sent as is).

READ_SENSOR replies with 8 bytes: moisture in permille (u16), temperature in centi-degrees
(i16), uptime in seconds (u32).
"""
GITIGNORE = "build/\nflasher/dist/\nflasher/node_modules/\nflasher/boards.json\n__pycache__/\n.pytest_cache/\n"
MAKEFILE = """CC ?= gcc
BOARD ?= wren-v2
CFLAGS = -std=c11 -Os -Wall -Wextra -Werror -Wdouble-promotion -Wshadow -Ifw/include
ifeq ($(BOARD),wren-v1)
CFLAGS += -DWREN_LOG=0
endif

FW_SRCS = fw/src/proto.c fw/src/ringbuf.c fw/src/sensor.c
TEST_SRCS = tests/unit/test_main.c tests/unit/test_proto.c tests/unit/test_ringbuf.c

.PHONY: all sim test size boards host-test flasher clean

all: sim test

build:
\tmkdir -p build

sim: build/wren-sim

build/wren-sim: $(FW_SRCS) fw/src/sim_main.c | build
\t$(CC) $(CFLAGS) -o $@ $^

build/unit: $(FW_SRCS) $(TEST_SRCS) | build
\t$(CC) $(CFLAGS) -Itests/unit -o $@ $^

test: build/unit
\t./build/unit

size: sim
\tscripts/size_check.sh $(BOARD)

boards:
\tpython3 scripts/boards_to_json.py boards/*.yaml > flasher/boards.json

host-test:
\tcd host && python3 -m pytest -q

flasher: boards
\tcd flasher && npm test

clean:
\trm -rf build flasher/dist
"""
CONFIG_H = """#ifndef WREN_CONFIG_H
#define WREN_CONFIG_H

/* Bytes buffered from the radio UART; the ring buffer masks with RB_SIZE - 1. */
#define RB_SIZE 64

#define SAMPLE_PERIOD_DEFAULT_S 900

#ifndef WREN_LOG
#define WREN_LOG 1
#endif

#endif
"""
UTIL_H = """#ifndef WREN_UTIL_H
#define WREN_UTIL_H

#define UNUSED(x) ((void)(x))
#define FALLTHROUGH __attribute__((fallthrough))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
"""
PROTO_H = """#ifndef WREN_PROTO_H
#define WREN_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_SOF 0x7E
#define PROTO_MAX_PAYLOAD 64
#define PROTO_OVERHEAD 5 /* SOF, length, command, CRC high, CRC low */

enum proto_cmd {
    CMD_PING = 0x01,
    CMD_READ_SENSOR = 0x02,
    CMD_SET_PERIOD = 0x03,
    CMD_GET_CONFIG = 0x04,
    CMD_ERROR = 0x7F,
};

uint16_t proto_crc16(const uint8_t *data, size_t n);
size_t proto_encode(uint8_t cmd, const uint8_t *payload, size_t len, uint8_t *out, size_t cap);
int proto_decode(const uint8_t *frame, size_t n, uint8_t *cmd, const uint8_t **payload, size_t *len);

#endif
"""
PROTO_C = """#include "proto.h"

/* CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection. */
uint16_t proto_crc16(const uint8_t *data, size_t n)
{
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(data[i] << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

size_t proto_encode(uint8_t cmd, const uint8_t *payload, size_t len, uint8_t *out, size_t cap)
{
    if (len > PROTO_MAX_PAYLOAD || cap < len + PROTO_OVERHEAD)
        return 0;
    out[0] = PROTO_SOF;
    out[1] = (uint8_t)len;
    out[2] = cmd;
    for (size_t i = 0; i < len; i++)
        out[3 + i] = payload[i];
    uint16_t crc = proto_crc16(out + 1, len + 2);
    out[3 + len] = (uint8_t)(crc >> 8);
    out[4 + len] = (uint8_t)(crc & 0xFF);
    return len + PROTO_OVERHEAD;
}

int proto_decode(const uint8_t *frame, size_t n, uint8_t *cmd, const uint8_t **payload, size_t *len)
{
    if (n < PROTO_OVERHEAD || frame[0] != PROTO_SOF)
        return -1;
    size_t body = frame[1];
    if (body > PROTO_MAX_PAYLOAD || n != body + PROTO_OVERHEAD)
        return -2;
    uint16_t crc = (uint16_t)((frame[3 + body] << 8) | frame[4 + body]);
    if (crc != proto_crc16(frame + 1, body + 2))
        return -3;
    *cmd = frame[2];
    *payload = frame + 3;
    *len = body;
    return 0;
}
"""
RINGBUF_H = """#ifndef WREN_RINGBUF_H
#define WREN_RINGBUF_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

_Static_assert((RB_SIZE & (RB_SIZE - 1)) == 0, "RB_SIZE must be a power of two");

/* Single producer (UART interrupt), single consumer (main loop); head and tail run free. */
struct ringbuf {
    uint8_t data[RB_SIZE];
    size_t head;
    size_t tail;
};

void rb_init(struct ringbuf *rb);
int rb_put(struct ringbuf *rb, uint8_t byte);
int rb_get(struct ringbuf *rb, uint8_t *byte);
size_t rb_count(const struct ringbuf *rb);

#endif
"""
RINGBUF_C = """#include "ringbuf.h"

void rb_init(struct ringbuf *rb)
{
    rb->head = 0;
    rb->tail = 0;
}

size_t rb_count(const struct ringbuf *rb)
{
    return rb->head - rb->tail;
}

int rb_put(struct ringbuf *rb, uint8_t byte)
{
    if (rb_count(rb) == RB_SIZE)
        return -1;
    rb->data[rb->head & (RB_SIZE - 1)] = byte;
    rb->head++;
    return 0;
}

int rb_get(struct ringbuf *rb, uint8_t *byte)
{
    if (rb_count(rb) == 0)
        return -1;
    *byte = rb->data[rb->tail & (RB_SIZE - 1)];
    rb->tail++;
    return 0;
}
"""
SENSOR_H = """#ifndef WREN_SENSOR_H
#define WREN_SENSOR_H

#include <stdint.h>

/* Sent as is in the READ_SENSOR reply, hence packed (8 bytes, little-endian fields). */
struct __attribute__((packed)) sensor_reading {
    uint16_t moisture_permille;
    int16_t temp_centi;
    uint32_t uptime_s;
};

uint16_t sensor_permille(uint16_t counts, uint16_t dry, uint16_t wet);
void sensor_fill(struct sensor_reading *r, uint16_t counts, int16_t temp_centi, uint32_t uptime_s);

#endif
"""
SENSOR_C = """#include "sensor.h"

/* Capacitive probe: more water, fewer counts. Calibrated per probe: `dry` in air, `wet` in water. */
uint16_t sensor_permille(uint16_t counts, uint16_t dry, uint16_t wet)
{
    if (counts >= dry)
        return 0;
    if (counts <= wet)
        return 1000;
    return (uint16_t)((uint32_t)(dry - counts) * 1000u / (uint32_t)(dry - wet));
}

void sensor_fill(struct sensor_reading *r, uint16_t counts, int16_t temp_centi, uint32_t uptime_s)
{
    r->moisture_permille = sensor_permille(counts, 3100, 1400);
    r->temp_centi = temp_centi;
    r->uptime_s = uptime_s;
}
"""
SIM_MAIN_C = """/* The firmware's command handling on the host: one frame per line of hex on stdin, the reply as
 * hex on stdout. `python3 -m wrentool encode ping | build/wren-sim` (from host/). */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "proto.h"
#include "sensor.h"
#include "util.h"

#if WREN_LOG
static const char *const LOG_TEXT[] = {
    "wren: boot, sample period %u s\\n",
    "wren: frame rejected: no start byte or too short\\n",
    "wren: frame rejected: length field does not match the bytes received\\n",
    "wren: frame rejected: CRC mismatch (CRC-16/CCITT-FALSE, high byte first)\\n",
    "wren: unknown command, replying with ERROR\\n",
    "wren: sample period changed, next reading follows the new period\\n",
    "wren: radio bridge silent for three periods, resetting the UART\\n",
    "wren: probe reading out of calibration range, clamped to 0 or 1000 permille\\n",
};
#define LOG(i, ...) fprintf(stderr, LOG_TEXT[i], ##__VA_ARGS__)
#else
#define LOG(i, ...) ((void)0)
#endif

static uint16_t period_s = SAMPLE_PERIOD_DEFAULT_S;
static uint32_t uptime_s;

static size_t handle(uint8_t cmd, const uint8_t *payload, size_t len, uint8_t *out, size_t cap)
{
    struct sensor_reading reading;
    uint8_t period[2];

    switch (cmd) {
    case CMD_PING:
        return proto_encode(CMD_PING, NULL, 0, out, cap);
    case CMD_READ_SENSOR:
        sensor_fill(&reading, 2250, 1875, uptime_s);
        return proto_encode(CMD_READ_SENSOR, (const uint8_t *)&reading, sizeof reading, out, cap);
    case CMD_SET_PERIOD:
        if (len != 2)
            break;
        period_s = (uint16_t)(payload[0] | (payload[1] << 8));
        LOG(5);
        return proto_encode(CMD_SET_PERIOD, payload, len, out, cap);
    case CMD_GET_CONFIG:
        period[0] = (uint8_t)(period_s & 0xFF);
        period[1] = (uint8_t)(period_s >> 8);
        return proto_encode(CMD_GET_CONFIG, period, sizeof period, out, cap);
    default:
        break;
    }
    LOG(4);
    return proto_encode(CMD_ERROR, &cmd, 1, out, cap);
}

int main(void)
{
    char line[2 * (PROTO_MAX_PAYLOAD + PROTO_OVERHEAD) + 2];
    uint8_t frame[PROTO_MAX_PAYLOAD + PROTO_OVERHEAD], reply[PROTO_MAX_PAYLOAD + PROTO_OVERHEAD];

    LOG(0, period_s);
    while (fgets(line, sizeof line, stdin)) {
        size_t n = 0;
        unsigned byte;
        for (const char *p = line; n < sizeof frame && sscanf(p, "%2x", &byte) == 1; p += 2)
            frame[n++] = (uint8_t)byte;
        uint8_t cmd;
        const uint8_t *payload;
        size_t len;
        int error = proto_decode(frame, n, &cmd, &payload, &len);
        if (error) {
            LOG((size_t)-error);
            printf("error %d\\n", error);
            continue;
        }
        size_t out = handle(cmd, payload, len, reply, sizeof reply);
        for (size_t i = 0; i < out; i++)
            printf("%02x", reply[i]);
        printf("\\n");
        uptime_s += period_s;
    }
    return 0;
}
"""
UNIT_H = """#ifndef WREN_UNIT_H
#define WREN_UNIT_H

#include <stdio.h>

extern int unit_failures;

#define CHECK(cond)                                                                \\
    do {                                                                           \\
        if (!(cond)) {                                                             \\
            printf("FAIL %s:%d: %s\\n", __FILE__, __LINE__, #cond);                 \\
            unit_failures++;                                                       \\
        }                                                                          \\
    } while (0)

#define CHECK_EQ(a, b)                                                             \\
    do {                                                                           \\
        long long _a = (long long)(a), _b = (long long)(b);                        \\
        if (_a != _b) {                                                            \\
            printf("FAIL %s:%d: %s == %s (%lld != %lld)\\n", __FILE__, __LINE__, #a, \\
                   #b, _a, _b);                                                    \\
            unit_failures++;                                                       \\
        }                                                                          \\
    } while (0)

#endif
"""
TEST_MAIN_C = """/* The unit test runner: every suite is listed in SUITES and its file in the Makefile's TEST_SRCS. */
#include <stdio.h>

#include "unit.h"
#include "util.h"

int unit_failures;

void test_proto(void);
void test_ringbuf(void);

static const struct {
    const char *name;
    void (*run)(void);
} SUITES[] = {
    {"proto", test_proto},
    {"ringbuf", test_ringbuf},
};

int main(void)
{
    for (size_t i = 0; i < ARRAY_LEN(SUITES); i++) {
        printf("== %s\\n", SUITES[i].name);
        SUITES[i].run();
    }
    if (unit_failures) {
        printf("%d check(s) FAILED\\n", unit_failures);
        return 1;
    }
    printf("all passed\\n");
    return 0;
}
"""
TEST_PROTO_C = """#include <string.h>

#include "proto.h"
#include "unit.h"

void test_proto(void)
{
    const uint8_t check[] = "123456789";
    CHECK_EQ(proto_crc16(check, 9), 0x29B1);

    uint8_t frame[16];
    CHECK_EQ(proto_encode(CMD_PING, NULL, 0, frame, sizeof frame), 5);
    const uint8_t ping[] = {0x7E, 0x00, 0x01, 0x0D, 0x2E};
    CHECK(memcmp(frame, ping, sizeof ping) == 0);

    const uint8_t period[] = {0x84, 0x03};
    size_t n = proto_encode(CMD_SET_PERIOD, period, 2, frame, sizeof frame);
    uint8_t cmd;
    const uint8_t *payload;
    size_t len;
    CHECK_EQ(proto_decode(frame, n, &cmd, &payload, &len), 0);
    CHECK_EQ(cmd, CMD_SET_PERIOD);
    CHECK_EQ(len, 2);
    frame[3] ^= 0x01;
    CHECK_EQ(proto_decode(frame, n, &cmd, &payload, &len), -3);
}
"""
TEST_RINGBUF_C = """#include "ringbuf.h"
#include "unit.h"

void test_ringbuf(void)
{
    struct ringbuf rb;
    uint8_t byte = 0;
    rb_init(&rb);
    CHECK_EQ(rb_get(&rb, &byte), -1);
    for (int i = 0; i < RB_SIZE; i++)
        CHECK_EQ(rb_put(&rb, (uint8_t)i), 0);
    CHECK_EQ(rb_put(&rb, 0xAA), -1);
    CHECK_EQ(rb_count(&rb), RB_SIZE);
    CHECK_EQ(rb_get(&rb, &byte), 0);
    CHECK_EQ(byte, 0);
    CHECK_EQ(rb_put(&rb, 0xAA), 0);
    CHECK_EQ(rb_count(&rb), RB_SIZE);
}
"""
SIZE_CHECK_SH = """#!/bin/sh
# usage: scripts/size_check.sh BOARD
# Fails when build/wren-sim's text+data exceed flash_budget_bytes in boards/BOARD.yaml. The host
# binary stands in for the target image: the budgets are the target's minus the vendor startup code.
set -eu
board=${1:?usage: scripts/size_check.sh BOARD}
budget=$(sed -n 's/^flash_budget_bytes: *//p' "boards/$board.yaml")
set -- $(size build/wren-sim | tail -n 1)
used=$(($1 + $2))
echo "$board: $used of $budget bytes"
if [ "$used" -gt "$budget" ]; then
    echo "$board: over the flash budget by $((used - budget)) bytes" >&2
    exit 1
fi
"""
BOARDS_TO_JSON_PY = '''"""The board configs, boards/*.yaml, as one JSON object keyed by board name (for the flasher)."""

import json
import sys

import yaml

REQUIRED = {
    "name": str,
    "mcu": str,
    "flash_budget_bytes": int,
    "country": str,
    "fw_version": str,
    "sample_period_s": int,
}


def load(path):
    with open(path, encoding="utf-8") as handle:
        board = yaml.safe_load(handle)
    for key, kind in REQUIRED.items():
        if not isinstance(board.get(key), kind):
            raise SystemExit(f"{path}: {key} must be a {kind.__name__}, got {board.get(key)!r}")
    return board


def main(paths):
    boards = {board["name"]: board for board in map(load, paths)}
    print(json.dumps(boards, indent=2, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
'''
INSTALL_HOOKS_SH = """#!/bin/sh
# Use the repository's hooks (scripts/hooks) instead of .git/hooks.
git config core.hooksPath scripts/hooks
echo "hooks: scripts/hooks"
"""
PRE_COMMIT_HOOK = """#!/bin/sh
# The C unit tests must pass before a commit.
exec make -s test
"""
COMMIT_MSG_HOOK = """#!/bin/sh
# Subject lines start with the area: fw:, host:, flasher:, boards:, scripts:, docs:
if ! head -n 1 "$1" | grep -qE '^(fw|host|flasher|boards|scripts|docs): '; then
    echo "commit-msg: start the subject with its area, like 'fw: ...' (see CONTRIBUTING.md)" >&2
    exit 1
fi
"""
BOARD_V1 = """# wren v1: the 2025 field run. SAMD10, 16 KiB flash, no FPU.
name: wren-v1
mcu: samd10
flash_budget_bytes: 4096
country: "DE"
fw_version: "1.4"
sample_period_s: 900
sensors: [moisture]
"""
BOARD_V2 = """# wren v2: SAMD21, 64 KiB flash, moisture and temperature.
name: wren-v2
mcu: samd21
flash_budget_bytes: 8192
country: "DE"
fw_version: "2.3"
sample_period_s: 600
sensors: [moisture, temperature]
"""
HOST_PYPROJECT = """[project]
name = "wrentool"
version = "0.3.0"
requires-python = ">=3.10"
dependencies = ["pyserial>=3.5", "crcmod>=1.7"]

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "I", "T20"]

[tool.ruff.lint.per-file-ignores]
"wrentool/cli.py" = ["T201"]
"""
HOST_REQS = "pyserial==3.5\ncrcmod==1.7\npytest==9.0.2\npyyaml==6.0.3\n"
WT_INIT = '"""wrentool: talk to a wren node (or build/wren-sim) in its framed serial protocol."""\n'
WT_MAIN = "from wrentool.cli import main\n\nraise SystemExit(main())\n"
WT_PROTOCOL = '''"""Frames: SOF, length, command, payload, CRC-16/CCITT-FALSE (see docs/protocol.md)."""

from __future__ import annotations

import struct

import crcmod.predefined

SOF = 0x7E
MAX_PAYLOAD = 64
CMD = {"ping": 0x01, "read_sensor": 0x02, "set_period": 0x03, "get_config": 0x04, "error": 0x7F}

crc16 = crcmod.predefined.mkCrcFun("crc-ccitt-false")


class FrameError(ValueError):
    pass


def encode(cmd: int, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload too long ({len(payload)} > {MAX_PAYLOAD})")
    body = bytes([len(payload), cmd]) + payload
    return bytes([SOF]) + body + struct.pack(">H", crc16(body))


def decode(frame: bytes) -> tuple[int, bytes]:
    if len(frame) < 5 or frame[0] != SOF:
        raise FrameError(f"not a frame: {frame.hex()}")
    length = frame[1]
    if len(frame) != length + 5:
        raise FrameError(f"length {length} but {len(frame) - 5} payload bytes")
    (crc,) = struct.unpack(">H", frame[-2:])
    if crc != crc16(frame[1:-2]):
        raise FrameError(f"CRC mismatch: {crc:#06x}")
    return frame[2], frame[3:-2]


def parse_reading(payload: bytes) -> dict[str, float]:
    moisture, temp_centi, uptime = struct.unpack("<HhI", payload)
    return {"moisture_permille": moisture, "temp_c": temp_centi / 100, "uptime_s": uptime}
'''
WT_LINK = '''"""A serial link to a node: pyserial, so `loop://` and `socket://host:port` work as ports too."""

from __future__ import annotations

import serial

from wrentool.protocol import decode, encode


class Link:
    def __init__(self, port: str, baudrate: int = 115200, timeout: float = 0.5) -> None:
        self.serial = serial.serial_for_url(port, baudrate=baudrate, timeout=timeout)

    def request(self, cmd: int, payload: bytes = b"") -> tuple[int, bytes]:
        self.serial.write(encode(cmd, payload))
        head = self.serial.read(3)
        rest = self.serial.read(head[1] + 2) if len(head) == 3 else b""
        return decode(head + rest)

    def close(self) -> None:
        self.serial.close()
'''
WT_CLI = '''"""wrentool ping|read|encode: talk to a node on --port (default the USB bridge)."""

from __future__ import annotations

import argparse

from wrentool.link import Link
from wrentool.protocol import CMD, encode, parse_reading


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wrentool")
    parser.add_argument("--port", default="/dev/ttyUSB0", help="serial port or pyserial URL")
    parser.add_argument("--baud", type=int, default=115200)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("ping")
    sub.add_parser("read")
    encode_parser = sub.add_parser("encode", help="print a frame as hex (for build/wren-sim)")
    encode_parser.add_argument("command", choices=sorted(CMD))
    encode_parser.add_argument("payload", nargs="?", default="")
    args = parser.parse_args(argv)

    if args.action == "encode":
        print(encode(CMD[args.command], bytes.fromhex(args.payload)).hex())
        return 0
    link = Link(args.port, args.baud)
    try:
        if args.action == "ping":
            cmd, _ = link.request(CMD["ping"])
            print("pong" if cmd == CMD["ping"] else f"unexpected reply {cmd:#04x}")
        else:
            cmd, payload = link.request(CMD["read_sensor"])
            print(parse_reading(payload))
    finally:
        link.close()
    return 0
'''
TEST_PROTOCOL_PY = """import pytest

from wrentool.protocol import CMD, FrameError, crc16, decode, encode, parse_reading


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1


def test_ping_frame():
    assert encode(CMD["ping"]).hex() == "7e00010d2e"


def test_roundtrip():
    assert decode(encode(CMD["set_period"], b"\\x84\\x03")) == (CMD["set_period"], b"\\x84\\x03")


def test_bad_crc():
    frame = bytearray(encode(CMD["ping"]))
    frame[-1] ^= 0xFF
    with pytest.raises(FrameError):
        decode(bytes(frame))


def test_reading():
    reading = parse_reading(bytes.fromhex("c201530794020000"))
    assert reading == {"moisture_permille": 450, "temp_c": 18.75, "uptime_s": 660}
"""
TEST_CMD_IDS_PY = """import re
from pathlib import Path

from wrentool.protocol import CMD

HEADER = Path(__file__).resolve().parents[2] / "fw" / "include" / "proto.h"


def test_command_ids_match_firmware():
    found = re.findall(r"CMD_([A-Z_]+) = (0x[0-9A-F]+)", HEADER.read_text())
    assert {name.lower(): int(value, 16) for name, value in found} == CMD
"""
TEST_LINK_PY = """from wrentool.link import Link
from wrentool.protocol import CMD


def test_loopback_echoes_a_frame():
    link = Link("loop://")
    assert link.request(CMD["ping"]) == (CMD["ping"], b"")
    link.close()
"""
FLASHER_PACKAGE = """{
  "name": "wren-flasher",
  "version": "0.2.0",
  "private": true,
  "type": "module",
  "scripts": {
    "build": "tsc",
    "test": "tsc && node --test dist/test/"
  },
  "devDependencies": {
    "@types/node": "^20.0.0",
    "typescript": "^5.9.0"
  }
}
"""
FLASHER_TSCONFIG = """{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "outDir": "dist",
    "rootDir": ".",
    "types": ["node"]
  },
  "include": ["src", "test"]
}
"""
CRC_TS = """/** CRC-16/CCITT-FALSE, as fw/src/proto.c and wrentool compute it. */
export function crc16(data: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}
"""
FRAME_TS = """import { crc16 } from "./crc.js";

export const SOF = 0x7e;
export const MAX_PAYLOAD = 64;

export function encode(cmd: number, payload: Uint8Array = new Uint8Array()): Uint8Array {
  if (payload.length > MAX_PAYLOAD) {
    throw new RangeError(`payload too long (${payload.length} > ${MAX_PAYLOAD})`);
  }
  const frame = new Uint8Array(payload.length + 5);
  frame.set([SOF, payload.length, cmd]);
  frame.set(payload, 3);
  const crc = crc16(frame.subarray(1, 3 + payload.length));
  frame.set([crc >> 8, crc & 0xff], 3 + payload.length);
  return frame;
}

/** A firmware image as payload-sized blocks for the bootloader. */
export function chunks(image: Uint8Array, size = MAX_PAYLOAD): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  for (let offset = 0; offset < image.length; offset += size) {
    blocks.push(image.subarray(offset, offset + size));
  }
  return blocks;
}
"""
BOARDS_TS = """import { readFileSync } from "node:fs";

export interface Board {
  name: string;
  mcu: string;
  flash_budget_bytes: number;
  country: string;
  fw_version: string;
  sample_period_s: number;
  sensors: string[];
}

/** flasher/boards.json, written by `make boards` from boards/*.yaml. */
export function loadBoards(path = new URL("../../boards.json", import.meta.url)): Record<string, Board> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, Board>;
}

export function boardFor(name: string, boards = loadBoards()): Board {
  const board = boards[name];
  if (board === undefined) {
    throw new Error(`unknown board ${name}; known: ${Object.keys(boards).join(", ")}`);
  }
  return board;
}
"""
CRC_TEST_TS = """import assert from "node:assert/strict";
import { test } from "node:test";

import { crc16 } from "../src/crc.js";
import { chunks, encode } from "../src/frame.js";

test("CRC check value", () => {
  assert.equal(crc16(new TextEncoder().encode("123456789")), 0x29b1);
});

test("ping frame matches the firmware's", () => {
  assert.deepEqual(Array.from(encode(0x01)), [0x7e, 0x00, 0x01, 0x0d, 0x2e]);
});

test("image in 64-byte blocks", () => {
  assert.deepEqual(chunks(new Uint8Array(150)).map((block) => block.length), [64, 64, 22]);
});
"""
BOARDS_TEST_TS = """import assert from "node:assert/strict";
import { test } from "node:test";

import { boardFor } from "../src/boards.js";

test("v1 is the small board", () => {
  const board = boardFor("wren-v1");
  assert.equal(board.mcu, "samd10");
  assert.deepEqual(board.sensors, ["moisture"]);
});

test("unknown board", () => {
  assert.throws(() => boardFor("wren-v9"), /unknown board wren-v9/);
});
"""

FILES = {
    "README.md": README,
    "CONTRIBUTING.md": CONTRIBUTING,
    "docs/protocol.md": PROTOCOL_MD,
    ".gitignore": GITIGNORE,
    "Makefile": MAKEFILE,
    "fw/include/config.h": CONFIG_H,
    "fw/include/util.h": UTIL_H,
    "fw/include/proto.h": PROTO_H,
    "fw/include/ringbuf.h": RINGBUF_H,
    "fw/include/sensor.h": SENSOR_H,
    "fw/src/proto.c": PROTO_C,
    "fw/src/ringbuf.c": RINGBUF_C,
    "fw/src/sensor.c": SENSOR_C,
    "fw/src/sim_main.c": SIM_MAIN_C,
    "tests/unit/unit.h": UNIT_H,
    "tests/unit/test_main.c": TEST_MAIN_C,
    "tests/unit/test_proto.c": TEST_PROTO_C,
    "tests/unit/test_ringbuf.c": TEST_RINGBUF_C,
    "scripts/size_check.sh": SIZE_CHECK_SH,
    "scripts/boards_to_json.py": BOARDS_TO_JSON_PY,
    "scripts/install-hooks.sh": INSTALL_HOOKS_SH,
    "scripts/hooks/pre-commit": PRE_COMMIT_HOOK,
    "scripts/hooks/commit-msg": COMMIT_MSG_HOOK,
    "boards/wren-v1.yaml": BOARD_V1,
    "boards/wren-v2.yaml": BOARD_V2,
    "host/pyproject.toml": HOST_PYPROJECT,
    "host/requirements.txt": HOST_REQS,
    "host/wrentool/__init__.py": WT_INIT,
    "host/wrentool/__main__.py": WT_MAIN,
    "host/wrentool/protocol.py": WT_PROTOCOL,
    "host/wrentool/link.py": WT_LINK,
    "host/wrentool/cli.py": WT_CLI,
    "host/tests/test_protocol.py": TEST_PROTOCOL_PY,
    "host/tests/test_cmd_ids.py": TEST_CMD_IDS_PY,
    "host/tests/test_link.py": TEST_LINK_PY,
    "flasher/package.json": FLASHER_PACKAGE,
    "flasher/tsconfig.json": FLASHER_TSCONFIG,
    "flasher/src/crc.ts": CRC_TS,
    "flasher/src/frame.ts": FRAME_TS,
    "flasher/src/boards.ts": BOARDS_TS,
    "flasher/test/crc.test.ts": CRC_TEST_TS,
    "flasher/test/boards.test.ts": BOARDS_TEST_TS,
}
EXECUTABLE = (
    "scripts/size_check.sh",
    "scripts/install-hooks.sh",
    "scripts/hooks/pre-commit",
    "scripts/hooks/commit-msg",
)


def project(changes: dict[str, str] | None = None) -> dict[str, str]:
    """The repository's files with some replaced or added."""
    return {**FILES, **(changes or {})}


def edit(name: str, old: str, new: str) -> dict[str, str]:
    """One file of the repository with `old` replaced by `new` (which must be there)."""
    text = FILES[name]
    assert old in text, (name, old)
    return {name: text.replace(old, new, 1)}


# ---- a developer's edits in progress --------------------------------------------------------------

# capture.py writes files without modes; the scripts and hooks are executable in the repository.
CHMOD = "chmod +x " + " ".join(EXECUTABLE)
MODULES = os.environ.get("WREN_NODE_MODULES", os.path.join(tempfile.gettempdir(), "f6npm", "node_modules"))
FLASHER = [CHMOD, f"ln -s {MODULES} flasher/node_modules"]
BOARDS = [*FLASHER, "make -s boards"]
GIT_BASE = [CHMOD, "git init -q -b main", "git add -A", "git commit -qm 'fw: wren 2.3'"]
HOOKS = [*GIT_BASE, "scripts/install-hooks.sh"]
HOST_PYTEST = "cd host && python3 -m pytest -q -p no:cacheprovider"

SENSOR_UNUSED = (
    SENSOR_C
    + """
/* The probe's supply is switched by a GPIO on the target; nothing to do on the host. */
void sensor_power(int on)
{
}
"""
)
RINGBUF_DROP = (
    RINGBUF_C
    + """
/* Drop up to n bytes (a frame that failed its CRC). */
void rb_drop(struct ringbuf *rb, int n)
{
    for (int i = 0; i < n && i < rb_count(rb); i++)
        rb->tail++;
}
"""
)
SENSOR_VOLTS = (
    SENSOR_C
    + """
/* Battery voltage from the ADC (12 bit, 3.3 V reference), for the low-battery flag. */
float sensor_battery_volts(uint16_t counts)
{
    float fraction = counts / 4096.0f;
    return fraction * 3.3;
}
"""
)
SENSOR_PACKED = SENSOR_C.replace(
    "void sensor_fill(",
    "static void clamp_permille(uint16_t *value)\n{\n    if (*value > 1000)\n        *value = 1000;\n}\n\n"
    "void sensor_fill(",
).replace(
    "    r->temp_centi = temp_centi;\n",
    "    clamp_permille(&r->moisture_permille);\n    r->temp_centi = temp_centi;\n",
)
SIM_FALLTHROUGH = SIM_MAIN_C.replace(
    "        LOG(5);\n        return proto_encode(CMD_SET_PERIOD, payload, len, out, cap);\n",
    "        LOG(5);\n        /* reply with the config, so the host sees the period it now has */\n",
)
TEST_SENSOR_C = """#include "sensor.h"
#include "unit.h"

void test_sensor(void)
{
    CHECK_EQ(sensor_permille(3100, 3100, 1400), 0);
    CHECK_EQ(sensor_permille(1400, 3100, 1400), 1000);
    CHECK_EQ(sensor_permille(2250, 3100, 1400), 500);
}
"""
TEST_MAIN_SENSOR = TEST_MAIN_C.replace(
    "void test_ringbuf(void);\n", "void test_ringbuf(void);\nvoid test_sensor(void);\n"
).replace('    {"ringbuf", test_ringbuf},\n', '    {"ringbuf", test_ringbuf},\n    {"sensor", test_sensor},\n')
LINK_PRINT = WT_LINK.replace(
    "        self.serial.write(encode(cmd, payload))\n",
    "        frame = encode(cmd, payload)\n        print('>', frame.hex())\n        self.serial.write(frame)\n",
)
BOARD_NO = (
    BOARD_V2.replace("name: wren-v2", "name: wren-v2-no")
    .replace('country: "DE"', "country: NO")
    .replace("# wren v2: SAMD21", "# wren v2 for the Svalbard site: SAMD21")
)
BOARDS_JSON_IMPORT = BOARDS_TS.replace(
    'import { readFileSync } from "node:fs";\n',
    'import { readFileSync } from "node:fs";\n\nimport generated from "../boards.json";\n',
).replace(
    "export function boardFor(name: string, boards = loadBoards())",
    "export function boardFor(name: string, boards = generated)",
)
TEST_MAIN_TYPO = TEST_MAIN_C.replace('printf("all passed\\n");', 'printf("all passed\\n")')
SIM_TYPO = SIM_MAIN_C.replace("period[1] = (uint8_t)(period_s >> 8);", "period[1] = (uint8_t)(perod_s >> 8);")
TEST_RINGBUF_WRONG = TEST_RINGBUF_C.replace(
    "    CHECK_EQ(rb_put(&rb, 0xAA), -1);\n    CHECK_EQ(rb_count(&rb), RB_SIZE);\n",
    "    CHECK_EQ(rb_put(&rb, 0xAA), -1);\n    CHECK_EQ(rb_count(&rb), RB_SIZE - 1);\n",
)
MAKEFILE_SPACES = MAKEFILE.replace("\tscripts/size_check.sh $(BOARD)", "    scripts/size_check.sh $(BOARD)")
TEST_READING_WRONG = TEST_PROTOCOL_PY.replace('"temp_c": 18.75', '"temp_c": 18.7')
PROTOCOL_TYPO = WT_PROTOCOL.replace("    if len(frame) != length + 5:", "    if len(frame) != lenght + 5:")
CLI_SYNTAX = WT_CLI.replace('    if args.action == "encode":', '    if args.action == "encode"')
TEST_LINK_FIXTURE = (
    TEST_LINK_PY
    + """

def test_read_sensor_reply(sim_link):
    cmd, payload = sim_link.request(CMD["read_sensor"])
    assert len(payload) == 8
"""
)
BOARDS_TS_TYPE = (
    BOARDS_TS.replace("  sample_period_s: number;\n", "  sample_period_s: string;\n")
    + """
export function nextSample(board: Board, now: number): number {
  return now + board.sample_period_s * 1000;
}
"""
)
CRC_TEST_WRONG = CRC_TEST_TS.replace("[64, 64, 22]", "[64, 64, 24]")
BOARDS_TEST_TYPO = BOARDS_TEST_TS.replace(
    '  assert.equal(board.mcu, "samd10");\n',
    '  assert.equal(board.mcu, "samd10");\n  assert.ok(board.flash_budget < 8192);\n',
)
LONG_PAYLOAD = "00" * 200

CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    # the firmware under -Wall -Wextra -Werror
    "fresh6-gcc-unused-param": ("make", project({"fw/src/sensor.c": SENSOR_UNUSED}), [], "make sim"),
    "fresh6-gcc-sign-compare": ("make", project({"fw/src/ringbuf.c": RINGBUF_DROP}), [], "make test"),
    "fresh6-gcc-double-promotion": ("make", project({"fw/src/sensor.c": SENSOR_VOLTS}), [], "make sim"),
    "fresh6-gcc-packed-member": ("make", project({"fw/src/sensor.c": SENSOR_PACKED}), [], "make sim"),
    "fresh6-gcc-fallthrough": ("make", project({"fw/src/sim_main.c": SIM_FALLTHROUGH}), [], "make sim"),
    "fresh6-ringbuf-size-100": (
        "make",
        project(edit("fw/include/config.h", "#define RB_SIZE 64", "#define RB_SIZE 100")),
        [],
        "make test",
    ),
    "fresh6-unit-crc-low-first": (
        "make",
        project(
            edit(
                "fw/src/proto.c",
                "    out[3 + len] = (uint8_t)(crc >> 8);\n    out[4 + len] = (uint8_t)(crc & 0xFF);\n",
                "    out[3 + len] = (uint8_t)(crc & 0xFF);\n    out[4 + len] = (uint8_t)(crc >> 8);\n",
            )
        ),
        [],
        "make test",
    ),
    "fresh6-unit-suite-not-in-makefile": (
        "make",
        project({"tests/unit/test_sensor.c": TEST_SENSOR_C, "tests/unit/test_main.c": TEST_MAIN_SENSOR}),
        [],
        "make test",
    ),
    "fresh6-size-v1-default-build": ("make", project(), [CHMOD, "make -s sim"], "scripts/size_check.sh wren-v1"),
    "fresh6-size-stale-binary": ("make", project(), [CHMOD, "make -s sim"], "make size BOARD=wren-v1"),
    "fresh6-size-not-built": ("sh", project(), [CHMOD], "scripts/size_check.sh wren-v2"),
    # the host tool
    "fresh6-crcmod-arc": (
        "pytest",
        project(edit("host/wrentool/protocol.py", 'mkCrcFun("crc-ccitt-false")', 'mkCrcFun("crc-16")')),
        [],
        HOST_PYTEST,
    ),
    "fresh6-import-pyserial": ("python", project(), [], 'cd host && python3 -c "import pyserial"'),
    "fresh6-no-usb-bridge": ("python", project(), [], "cd host && python3 -m wrentool ping"),
    "fresh6-reading-big-endian": (
        "pytest",
        project(edit("host/wrentool/protocol.py", 'struct.unpack("<HhI", payload)', 'struct.unpack(">HhI", payload)')),
        [],
        HOST_PYTEST + " tests/test_protocol.py",
    ),
    "fresh6-pytest-from-root": ("pytest", project(), [], "python3 -m pytest -q -p no:cacheprovider"),
    "fresh6-cmd-id-only-in-fw": (
        "pytest",
        project(
            edit(
                "fw/include/proto.h",
                "    CMD_GET_CONFIG = 0x04,\n",
                "    CMD_GET_CONFIG = 0x04,\n    CMD_SET_CALIB = 0x05,\n",
            )
        ),
        [],
        "make -s host-test",
    ),
    "fresh6-payload-too-long": (
        "python",
        project(),
        [],
        "cd host && python3 -m wrentool encode set_period " + LONG_PAYLOAD,
    ),
    "fresh6-ruff-print": (
        "ruff",
        project({"host/wrentool/link.py": LINK_PRINT}),
        [],
        "cd host && ruff check --no-cache .",
    ),
    # board configs
    "fresh6-yaml-country-no": ("python", project({"boards/wren-v2-no.yaml": BOARD_NO}), [], "make boards"),
    "fresh6-yaml-version-float": (
        "python",
        project({"boards/wren-v2.yaml": FILES["boards/wren-v2.yaml"].replace('fw_version: "2.3"', "fw_version: 2.10")}),
        [],
        "make boards",
    ),
    "fresh6-jq-index-array": (
        "jq",
        project(),
        [CHMOD, "make -s boards"],
        "jq '.[0].flash_budget_bytes' flasher/boards.json",
    ),
    "fresh6-jq-hyphen-key": ("jq", project(), [CHMOD, "make -s boards"], "jq '.wren-v1.mcu' flasher/boards.json"),
    # the flasher
    "fresh6-tsc-import-extension": (
        "tsc",
        project(edit("flasher/src/frame.ts", 'from "./crc.js"', 'from "./crc"')),
        BOARDS,
        "cd flasher && npx tsc",
    ),
    "fresh6-node-test-ts-source": ("node", project(), BOARDS, "cd flasher && node --test test/crc.test.ts"),
    "fresh6-flasher-no-boards-json": ("npm", project(), FLASHER, "cd flasher && npm test"),
    "fresh6-ts-crc-unmasked": (
        "npm",
        project(
            edit(
                "flasher/src/crc.ts",
                "((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff",
                "(crc << 1) ^ 0x1021 : crc << 1",
            )
        ),
        BOARDS,
        "cd flasher && npm test",
    ),
    "fresh6-ts-json-import": (
        "tsc",
        project({"flasher/src/boards.ts": BOARDS_JSON_IMPORT}),
        BOARDS,
        "cd flasher && npx tsc",
    ),
    # git hooks
    "fresh6-commit-msg-area": (
        "git",
        project(),
        [*HOOKS, "sed -i 's/sample_period_s: 600/sample_period_s: 300/' boards/wren-v2.yaml", "git add -A"],
        "git commit -m 'shorter sample period for v2'",
    ),
    "fresh6-pre-commit-unit": (
        "git",
        project(),
        [*HOOKS, "sed -i 's/0x1021/0x8005/' fw/src/proto.c", "git add -A"],
        "git commit -m 'fw: crc polynomial from the radio datasheet'",
    ),
    # ordinary failures
    "fresh6-gcc-missing-semicolon": ("make", project({"tests/unit/test_main.c": TEST_MAIN_TYPO}), [], "make test"),
    "fresh6-gcc-undeclared": ("make", project({"fw/src/sim_main.c": SIM_TYPO}), [], "make sim"),
    "fresh6-unit-ringbuf-count": ("make", project({"tests/unit/test_ringbuf.c": TEST_RINGBUF_WRONG}), [], "make test"),
    "fresh6-make-no-rule": ("make", project(), [], "make flash"),
    "fresh6-make-separator": ("make", project({"Makefile": MAKEFILE_SPACES}), [], "make size"),
    "fresh6-pytest-reading-value": (
        "pytest",
        project({"host/tests/test_protocol.py": TEST_READING_WRONG}),
        [],
        HOST_PYTEST + " tests/test_protocol.py",
    ),
    "fresh6-pytest-nameerror": ("pytest", project({"host/wrentool/protocol.py": PROTOCOL_TYPO}), [], HOST_PYTEST),
    "fresh6-cli-syntax": (
        "python",
        project({"host/wrentool/cli.py": CLI_SYNTAX}),
        [],
        "cd host && python3 -m wrentool encode ping",
    ),
    "fresh6-cli-invalid-choice": ("python", project(), [], "cd host && python3 -m wrentool encode reboot"),
    "fresh6-cli-odd-hex": ("python", project(), [], "cd host && python3 -m wrentool encode set_period 843"),
    "fresh6-struct-short": (
        "python",
        project(),
        [],
        'cd host && python3 -c "from wrentool.protocol import parse_reading; '
        "print(parse_reading(bytes.fromhex('c2015307')))\"",
    ),
    "fresh6-decode-bad-crc": (
        "python",
        project(),
        [],
        "cd host && python3 -c \"from wrentool.protocol import decode; print(decode(bytes.fromhex('7e00010000')))\"",
    ),
    "fresh6-pytest-fixture-missing": (
        "pytest",
        project({"host/tests/test_link.py": TEST_LINK_FIXTURE}),
        [],
        HOST_PYTEST + " tests/test_link.py",
    ),
    "fresh6-boards-missing-file": ("python", project(), [], "python3 scripts/boards_to_json.py boards/wren-v3.yaml"),
    "fresh6-tsc-type-error": (
        "tsc",
        project({"flasher/src/boards.ts": BOARDS_TS_TYPE}),
        BOARDS,
        "cd flasher && npx tsc",
    ),
    "fresh6-tsc-property-typo": (
        "tsc",
        project({"flasher/test/boards.test.ts": BOARDS_TEST_TYPO}),
        BOARDS,
        "cd flasher && npx tsc",
    ),
    "fresh6-node-test-chunks": (
        "npm",
        project({"flasher/test/crc.test.ts": CRC_TEST_WRONG}),
        BOARDS,
        "cd flasher && npm test",
    ),
    "fresh6-npm-missing-script": ("npm", project(), FLASHER, "cd flasher && npm run lint"),
    "fresh6-sim-not-built": ("sh", project(), [], "echo 7e00010d2e | build/wren-sim"),
    "fresh6-git-merge-conflict": (
        "git",
        project(),
        [
            *GIT_BASE,
            "git checkout -qb field-2026 && sed -i 's/sample_period_s: 600/sample_period_s: 1800/' boards/wren-v2.yaml"
            " && git commit -qam 'boards: v2 samples every half hour in the field'",
            "git checkout -q main && sed -i 's/sample_period_s: 600/sample_period_s: 300/' boards/wren-v2.yaml"
            " && git commit -qam 'boards: v2 samples every 5 minutes'",
        ],
        "git merge field-2026",
    ),
    "fresh6-git-no-branch": ("git", project(), GIT_BASE, "git checkout flasher/web-serial"),
    "fresh6-git-nothing": ("git", project(), GIT_BASE, "git commit -m 'fw: ring buffer comment'"),
    "fresh6-git-stash-empty": ("git", project(), GIT_BASE, "git stash pop"),
    "fresh6-grep-no-match": ("sh", project(), [], "grep -rn watchdog fw"),
    "fresh6-cat-missing": ("sh", project(), [], "cat docs/bootloader.md"),
    "fresh6-ls-missing": ("sh", project(), [], "ls fw/hal"),
    # commands that succeed
    "fresh6-ok-make-test": ("make", project(), [], "make test"),
    "fresh6-ok-sim-read": (
        "make",
        project(),
        [],
        "make -s sim && cd host && python3 -m wrentool encode read_sensor | ../build/wren-sim",
    ),
    "fresh6-ok-host-test": ("pytest", project(), [], "make -s host-test"),
    "fresh6-ok-flasher": ("npm", project(), FLASHER, "make -s flasher"),
    "fresh6-ok-size-v1": ("make", project(), [CHMOD], "make -s size BOARD=wren-v1"),
    "fresh6-ok-jq-board": (
        "jq",
        project(),
        [CHMOD, "make -s boards"],
        "jq '.[\"wren-v1\"].flash_budget_bytes' flasher/boards.json",
    ),
    "fresh6-ok-ruff": ("ruff", project(), [], "cd host && ruff check --no-cache ."),
    "fresh6-ok-git-status": ("git", project(), [*GIT_BASE, "make -s boards"], "git status --short"),
}

HOME = os.path.expanduser("~")


def main(argv: list[str] | None = None) -> int:
    os.environ["TZ"] = "UTC"
    os.environ["COLUMNS"] = "160"  # pytest's summary lines whole, so the project's path is rewritten
    shown = {MODULES: "/home/dev/project/flasher/node_modules", HOME + "/": "/home/dev/"}
    if tempfile.gettempdir() != "/tmp":  # gcc's and ld's scratch objects
        shown = {tempfile.gettempdir() + "/cc": "/tmp/cc", **shown}
    venv = os.path.dirname(os.path.dirname(shutil.which("python3") or "/usr/bin/python3"))
    if os.path.dirname(venv) == tempfile.gettempdir():  # pytest names it relative to the project
        shown = {"../../" + os.path.basename(venv) + "/": "/home/dev/.venv/", **shown}
    return capture.main(argv, CASES, shown)


if __name__ == "__main__":
    raise SystemExit(main())
