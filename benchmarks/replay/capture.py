"""Record real command output for the replay benchmark: each case runs a real tool in a fresh folder.

    python3 benchmarks/replay/capture.py [--only ID]... > benchmarks/replay/recorded.jsonl

Each case writes a few files, runs its setup commands, then its command with `sh -c`, and prints
one line: the case's id, the tool's version line, and the event Claude Code sends after that
command (`PostToolUseFailure` with `error` "Exit code N" and the output when it failed,
`PostToolUse` with `tool_response` when it succeeded). The folder's path is written as
/home/dev/project, so a re-recording differs only where the tools' own output differs. A case
whose tool is missing is skipped with a line on stderr. Nothing here knows any memory: the
labels live in sets/*.json, written by reading these outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any

SHOWN_ROOT = "/home/dev/project"

PY_DATES = """from datetime import date


def parse_day(text):
    day, month, year = text.split("/")
    return date(int(year), int(month), int(day))
"""
TEST_DATES = """from dates import parse_day


def test_parse_iso_day():
    assert parse_day("2024-03-01").month == 3
"""
C_POW = '#include <math.h>\n#include <stdio.h>\nint main(int c, char **v) { printf("%f\\n", pow(c, 2.5)); return 0; }\n'
RUST_MOVE = """fn main() {
    let names = vec![String::from("a"), String::from("b")];
    let moved = names;
    println!("{} {}", names.len(), moved.len());
}
"""
RUST_TEST = """pub fn slug(text: &str) -> String { text.to_lowercase().replace(' ', "_") }

#[cfg(test)]
mod tests {
    #[test]
    fn slug_uses_hyphens() { assert_eq!(super::slug("Hello World"), "hello-world"); }
}
"""
CARGO_TOML = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
GO_MOD = "module example.com/demo\n\ngo 1.19\n"
GO_UNUSED = 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Println("hi")\n}\n'
GO_TEST = """package demo

import "testing"

func Add(a, b int) int { return a - b }

func TestAdd(t *testing.T) {
\tif got := Add(2, 3); got != 5 {
\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)
\t}
}
"""
JAVA_SYMBOL = (
    "public class App {\n  public static void main(String[] a) {\n    List<String> xs = new ArrayList<>();\n  }\n}\n"
)
NODE_TEST = """const test = require("node:test");
const assert = require("node:assert");
const { total } = require("./cart");

test("total adds tax", () => {
  assert.strictEqual(total([10, 20]), 33);
});
"""
NODE_CART = "exports.total = (items) => items.reduce((a, b) => a + b, 0);\n"
NODE_ESM = 'import { readFile } from "node:fs/promises";\nconsole.log(await readFile("x.txt", "utf8"));\n'
PKG = {"name": "shop", "version": "1.0.0", "scripts": {"test": "node --test"}}
PY_CONFIG = 'import os\n\nDATABASE_URL = os.environ["DATABASE_URL"]\nprint("connecting to", DATABASE_URL)\n'
PY_CIRCULAR_A = "from models import User\n\n\ndef current_user():\n    return User()\n"
PY_CIRCULAR_B = "from auth import current_user\n\n\nclass User:\n    pass\n"
PY_FIXTURE = "def test_saves_order(db_session):\n    assert db_session is not None\n"
PY_MARKER = "import pytest\n\n\n@pytest.mark.slow\ndef test_big_import():\n    assert True\n"
PY_MARKER_INI = "[pytest]\naddopts = --strict-markers\n"
PY_MISSING = "import requests_mock\n\n\ndef test_fetch():\n    assert requests_mock\n"
PY_PASSING = "def test_ok():\n    assert 1 + 1 == 2\n"
PY_ASYNC = "async def test_fetch_prices():\n    assert 1\n"
PY_ASYNC_INI = "[pytest]\n"

PY_DUE = """from datetime import date, timedelta


def due_date(issued):
    return issued + timedelta(days=30)


def test_invoice_due_date():
    assert due_date(date(2026, 1, 31)) == date(2026, 2, 28)
"""
PY_RELATIVE = "from .models import Invoice\n\n\ndef send(invoice_id):\n    return Invoice(invoice_id)\n"
PY_ORDER_SETTINGS = "FEATURES = {'export': False}\n"
PY_ORDER_A = (
    "import settings\n\n\ndef test_enable_export():\n"
    "    settings.FEATURES['export'] = True\n    assert settings.FEATURES['export']\n"
)
PY_ORDER_B = (
    "import settings\n\n\ndef test_export_is_off_by_default():\n    assert settings.FEATURES['export'] is False\n"
)
PY_NAIVE = """from datetime import datetime, timezone

expires_at = datetime(2026, 5, 1, tzinfo=timezone.utc)  # as the database returns it
if datetime.utcnow() > expires_at:
    print("expired")
"""
PY_MUTABLE = "def add_tag(tag, tags=[]):\n    tags.append(tag)\n    return tags\n"
PY_SQLITE = """import sqlite3

first = sqlite3.connect("jobs.db", isolation_level=None)
first.execute("create table if not exists jobs (id integer primary key, state text)")
first.execute("begin immediate")
first.execute("insert into jobs (state) values ('queued')")
second = sqlite3.connect("jobs.db", timeout=0.1)
second.execute("insert into jobs (state) values ('queued')")
"""
PY_TLS_SERVER = """import http.server, ssl, threading, urllib.request

server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain("cert.pem", "key.pem")
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
urllib.request.urlopen(f"https://localhost:{server.server_address[1]}/health")
"""
PY_UNTYPED = "def total(items):\n    return sum(items)\n"
LOCK_V1 = {
    "name": "shop",
    "version": "1.0.0",
    "lockfileVersion": 1,
    "requires": True,
    "dependencies": {
        "left-pad": {
            "version": "1.3.0",
            "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
            "integrity": "sha1-W4o6d2Xf4AEmHd6RVYnngvjJTR4=",
        }
    },
}
PKG_DEP = {"name": "shop", "version": "1.0.0", "dependencies": {"left-pad": "1.3.0"}}

GIT_BASE = ["git init -q -b main", "git add -A", "git commit -qm base"]

# id: (tool, files, setup commands, command)
CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    "pytest-missing-module": ("pytest", {"test_fetch.py": PY_MISSING}, [], "python3 -m pytest -q"),
    "pytest-assertion-date": (
        "pytest",
        {"dates.py": PY_DATES, "test_dates.py": TEST_DATES},
        [],
        "python3 -m pytest -q test_dates.py",
    ),
    "pytest-fixture-missing": ("pytest", {"test_orders.py": PY_FIXTURE}, [], "python3 -m pytest -q"),
    "pytest-strict-marker": (
        "pytest",
        {"test_import.py": PY_MARKER, "pytest.ini": PY_MARKER_INI},
        [],
        "python3 -m pytest -q",
    ),
    "pytest-async-unsupported": (
        "pytest",
        {"test_prices.py": PY_ASYNC, "pytest.ini": PY_ASYNC_INI},
        [],
        "python3 -m pytest -q -p no:asyncio",
    ),
    "pytest-no-tests": ("pytest", {"README.md": "# shop\n"}, [], "python3 -m pytest -q tests/"),
    "python-keyerror-env": ("python", {"settings.py": PY_CONFIG}, [], "env -u DATABASE_URL python3 settings.py"),
    "python-circular-import": (
        "python",
        {"auth.py": PY_CIRCULAR_A, "models.py": PY_CIRCULAR_B},
        [],
        'python3 -c "import models"',
    ),
    "python-unicode-decode": (
        "python",
        {},
        ["python3 -c \"open('customers.csv', 'wb').write(b'name,city\\\\nJos\\\\xe9,M\\\\xe1laga\\\\n')\""],
        "python3 -c \"print(open('customers.csv', encoding='utf-8').read())\"",
    ),
    "python-json-invalid": ("python", {"config.json": '{"port": 8080,}\n'}, [], "python3 -m json.tool config.json"),
    "pip-no-such-version": ("pip", {}, [], "python3 -m pip install --no-index 'django==9.9'"),
    "pip-requirements-missing": ("pip", {}, [], "python3 -m pip install -r requirements-dev.txt"),
    "npm-missing-script": ("npm", {"package.json": json.dumps(PKG, indent=2)}, [], "npm run lint"),
    "npm-ci-no-lockfile": ("npm", {"package.json": json.dumps(PKG, indent=2)}, [], "npm ci --offline"),
    "npm-test-assertion": (
        "npm",
        {"package.json": json.dumps(PKG, indent=2), "cart.js": NODE_CART, "cart.test.js": NODE_TEST},
        [],
        "npm test",
    ),
    "node-read-enoent": ("node", {"read.js": NODE_ESM}, [], "node read.js"),
    "node-module-not-found": ("node", {"server.js": 'const express = require("express");\n'}, [], "node server.js"),
    "git-push-no-upstream": (
        "git",
        {"app.py": "print(1)\n"},
        [*GIT_BASE, "git checkout -q -b feature/login", "git remote add origin ../nowhere.git"],
        "git push",
    ),
    "git-merge-conflict": (
        "git",
        {"config.py": "PORT = 8000\n"},
        [
            *GIT_BASE,
            "git checkout -q -b other",
            "echo 'PORT = 9000' > config.py",
            "git commit -qam other",
            "git checkout -q main",
            "echo 'PORT = 8080' > config.py",
            "git commit -qam main",
        ],
        "git merge other",
    ),
    "git-checkout-overwrite": (
        "git",
        {"config.py": "PORT = 8000\n"},
        [
            *GIT_BASE,
            "git checkout -q -b other",
            "echo 'PORT = 9000' > config.py",
            "git commit -qam other",
            "git checkout -q main",
            "echo 'PORT = 1' > config.py",
        ],
        "git checkout other",
    ),
    "git-pull-diverged": (
        "git",
        {"a.txt": "a\n"},
        [
            *GIT_BASE,
            "git clone -q . ../clone-src",
            "cd ../clone-src && echo b > b.txt && git add b.txt && git commit -qm b",
            "echo c > c.txt && git add c.txt && git commit -qm c",
            "git remote add upstream ../clone-src",
            "git config pull.ff only",
        ],
        "git pull upstream main",
    ),
    "git-not-a-repo": ("git", {"a.txt": "a\n"}, [], "git log --oneline -3"),
    "gcc-undefined-pow": ("gcc", {"main.c": C_POW}, [], "gcc -o main main.c"),
    "gcc-missing-header": (
        "gcc",
        {"db.c": "#include <libpq-fe.h>\nint main(void) { return 0; }\n"},
        [],
        "gcc -c db.c",
    ),
    "make-no-rule": ("make", {"Makefile": "build:\n\techo build\n"}, [], "make install"),
    "cargo-borrow-moved": (
        "cargo",
        {"Cargo.toml": CARGO_TOML, "src/main.rs": RUST_MOVE},
        [],
        "cargo build --offline -q",
    ),
    "cargo-test-failure": ("cargo", {"Cargo.toml": CARGO_TOML, "src/lib.rs": RUST_TEST}, [], "cargo test --offline -q"),
    "go-unused-import": ("go", {"go.mod": GO_MOD, "main.go": GO_UNUSED}, [], "go build ./..."),
    "go-test-failure": ("go", {"go.mod": GO_MOD, "add_test.go": GO_TEST}, [], "go test ./..."),
    "go-get-outside-module": ("go", {}, [], "go get golang.org/x/tools/cmd/stringer"),
    "python-disk-full": (
        "python",
        {
            "package.py": "import shutil\n\nwith open('/dev/zero', 'rb') as src, open('/dev/full', 'wb') as out:\n"
            "    shutil.copyfileobj(src, out, 1 << 16)\n"
        },
        [],
        "python3 package.py",
    ),
    "javac-cannot-find-symbol": ("javac", {"App.java": JAVA_SYMBOL}, [], "javac App.java"),
    "docker-no-daemon": ("docker", {"Dockerfile": "FROM python:3.12-slim\n"}, [], "docker build -t shop ."),
    "pytest-month-arithmetic": ("pytest", {"test_invoice.py": PY_DUE}, [], "python3 -m pytest -q -p no:randomly"),
    "python-relative-import": (
        "python",
        {"billing/tasks.py": PY_RELATIVE, "billing/models.py": ""},
        [],
        "python3 billing/tasks.py",
    ),
    "pytest-order-dependent": (
        "pytest",
        {"settings.py": PY_ORDER_SETTINGS, "test_a_export.py": PY_ORDER_A, "test_b_defaults.py": PY_ORDER_B},
        [],
        "python3 -m pytest -q -p no:randomly",
    ),
    "python-naive-aware": ("python", {"expiry.py": PY_NAIVE}, [], "python3 expiry.py"),
    "ruff-mutable-default": ("ruff", {"tags.py": PY_MUTABLE}, [], "ruff check --no-cache --select B006 tags.py"),
    "python-sqlite-locked": ("python", {"enqueue.py": PY_SQLITE}, [], "python3 enqueue.py"),
    "python-certificate-verify": (
        "python",
        {"check.py": PY_TLS_SERVER},
        ["openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=localhost"],
        "python3 check.py",
    ),
    "sed-inplace-bsd-form": ("sed", {"version.txt": "1.0.0\n"}, [], "sed -i '' 's/1.0.0/1.0.1/' version.txt"),
    "npm-ci-lockfile-v1": (
        "npm",
        {"package.json": json.dumps(PKG_DEP, indent=2), "package-lock.json": json.dumps(LOCK_V1, indent=2)},
        [],
        "npm ci --offline",
    ),
    "mypy-strict-untyped": ("mypy", {"cart.py": PY_UNTYPED}, [], "python3 -m mypy --strict --no-incremental cart.py"),
    # commands that succeed: what a post-tool-use hook must stay silent on
    "ok-pytest": ("pytest", {"test_ok.py": PY_PASSING}, [], "python3 -m pytest -q"),
    "ok-git-status": ("git", {"a.txt": "a\n"}, [*GIT_BASE, "echo b >> a.txt"], "git status --short"),
    "ok-git-log": ("git", {"a.txt": "a\n"}, GIT_BASE, "git log --format=%s"),
    "ok-ls": ("sh", {"src/app.py": "", "tests/test_app.py": "", "README.md": ""}, [], "ls -R"),
    "ok-grep": ("sh", {"src/app.py": "def main():\n    return 0\n"}, [], "grep -rn 'def main' src"),
    "ok-npm-test": (
        "npm",
        {
            "package.json": json.dumps(PKG, indent=2),
            "cart.js": NODE_CART,
            "cart.test.js": NODE_TEST.replace("33", "30"),
        },
        [],
        "npm test",
    ),
    "ok-gcc": ("gcc", {"main.c": C_POW}, [], "gcc -o main main.c -lm && ./main"),
    "ok-python-version": ("python", {}, [], "python3 --version"),
    "ok-cargo-build": (
        "cargo",
        {"Cargo.toml": CARGO_TOML, "src/main.rs": 'fn main() { println!("ok"); }\n'},
        [],
        "cargo build --offline -q && ./target/debug/demo",
    ),
    "ok-pip-list": ("pip", {}, [], "python3 -m pip --version"),
}

VERSION = {
    "pytest": "python3 -m pytest --version",
    "python": "python3 --version",
    "pip": "python3 -m pip --version",
    "npm": "npm --version",
    "node": "node --version",
    "git": "git --version",
    "gcc": "gcc --version",
    "make": "make --version",
    "cargo": "cargo --version",
    "go": "go version",
    "javac": "javac -version",
    "docker": "docker --version",
    "sh": "true",
    "sed": "sed --version",
    "ruff": "ruff --version",
    "mypy": "python3 -m mypy --version",
    "mypy-cli": "mypy --version",
    "tsc": "tsc --version",
    "pnpm": "pnpm --version",
    "docker-compose": "docker-compose --version",
    "gofmt": "go version",
}


def shown(text: str, home: str) -> str:
    """Output with this machine's folders written as a developer's: the project, home and virtualenv."""
    venv = os.path.dirname(os.path.dirname(shutil.which("python3") or "/usr/bin/python3"))
    text = text.replace(home + "/project", SHOWN_ROOT).replace(home, "/home/dev")
    return text.replace(venv + "/", "/home/dev/.venv/") if venv not in ("/usr", "/") else text


def run(case: str, cases: dict[str, tuple[str, dict[str, str], list[str], str]] | None = None) -> dict[str, Any] | None:
    """The recorded event of one case (of `cases`, default CASES), or None when its tool is missing."""
    tool, files, setup, command = (cases or CASES)[case]
    executable = VERSION[tool].split()[0]
    if shutil.which(executable) is None:
        print(f"{case}: {executable} is not installed; skipped", file=sys.stderr)
        return None
    version = subprocess.run(VERSION[tool], shell=True, capture_output=True, text=True, check=False)
    with tempfile.TemporaryDirectory() as home:
        root = os.path.join(home, "project")
        for name, text in files.items():
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        os.makedirs(root, exist_ok=True)
        env = {
            **os.environ,
            "HOME": home,
            "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", os.path.expanduser("~/.rustup")),
            "CARGO_HOME": os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo")),
            "GIT_AUTHOR_NAME": "Dev",
            "GIT_AUTHOR_EMAIL": "dev@example.com",
            "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.com",
            "NO_COLOR": "1",
            "CARGO_TERM_COLOR": "never",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "npm_config_update_notifier": "false",
        }
        for step in setup:
            subprocess.run(step, shell=True, cwd=root, env=env, capture_output=True, check=True)
        done = subprocess.run(
            command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False
        )
    output = shown(done.stdout + done.stderr, home)
    base = {"session_id": f"replay-{case}", "cwd": SHOWN_ROOT, "tool_name": "Bash", "tool_input": {"command": command}}
    if done.returncode:
        event = {"hook_event_name": "PostToolUseFailure", **base, "error": f"Exit code {done.returncode}\n{output}"}
    else:
        response = {"stdout": shown(done.stdout, home), "stderr": shown(done.stderr, home)}
        event = {"hook_event_name": "PostToolUse", **base, "tool_response": {**response, "interrupted": False}}
    named = shown(version.stdout + version.stderr, home).strip().splitlines() or [tool]
    return {"id": case, "source": f"run here: {named[0]}", "event": event}


def main(
    argv: list[str] | None = None,
    cases: dict[str, tuple[str, dict[str, str], list[str], str]] | None = None,
    shown: dict[str, str] | None = None,
) -> int:
    """Print the record of each case (of `cases`, default CASES), one JSON line each; `shown` maps
    this machine's paths to what a record shows in their place (a developer's)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="only this case (repeatable)")
    args = parser.parse_args(argv)
    for case in args.only or (cases or CASES):
        record = run(case, cases)
        if record is None:
            continue
        text = json.dumps(record, ensure_ascii=False, sort_keys=True)
        for real, seen in (shown or {}).items():
            text = text.replace(real, seen)
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
