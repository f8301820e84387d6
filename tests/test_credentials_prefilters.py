"""The scanner's gates never hide a match: wherever a rule's own pattern matches, one of its keywords
occurs in the lowercased text and its prefilter matches.

Texts come from both corpora in benchmarks/secrets (generated at run time, as the benchmark
makes them) and from shapes assembled here from the parts each rule is made of: names,
separators, quotes, verbs and values, every credential-like value drawn at run time.
"""

from __future__ import annotations

import random
import re
import string
import sys
from pathlib import Path

import pytest

from lean_harness.scanning import credentials as secret_scan
from lean_harness.scanning import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "secrets"))

import corpus
import public_shapes

RULES = {rule.id: rule for rule in secret_scan.RULES}
PREFILTERED = sorted(rule_id for rule_id, rule in RULES.items() if rule.prefilter)

WORDS = (
    "password", "passwd", "pass", "passphrase", "passcode", "pwd", "pw", "pin", "secret", "token", "creds",
    "credential", "credentials", "auth", "login", "api key", "api_key", "apikey", "client_secret",
    "secret_key", "access-key", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "API_KEY",
    "DB_PASSWD", "MY_PWD", "ROOT_PASS", "APP_PASSPHRASE", "SVC_CREDENTIALS", "CI_SECRET",
    "some_api_token_42", "db_password_prod", "authToken", "secretValue", "csrf_token", "public_key",
)  # fmt: skip
JOINS = (
    "=", " = ", ":", ": ", " => ", ":=", "==", "%3D", "%3a", '": "', "': '", '" , "', "\t=\t", " is ", " was ",
    " are ", " set to ", " changed to ", " for prod is ", " of the db: ", " printed ", " shows ", " -> ",
    " returned ", " decodes to ", ".data.x ", "=\"", "\\\": \\\"", "%22:%22", " ",
)  # fmt: skip
FRAMES = ("{}", "export {}", "set {}", "  {}", "<{0}>{1}</{0}>", "key=\"{}\" value=\"{}\"", "login me password {}",
          "Server=db;Password={}", "mysql -u root -p{}", "# {}\n", '"{}"', "x.{}")  # fmt: skip


def _value(rng: random.Random) -> str:
    alphabet = rng.choice((string.ascii_letters + string.digits, string.ascii_lowercase + "+/", "Ab1!@#$%^&*"))
    size = rng.choice((6, 9, 12, 16, 24, 40, 64))
    return "".join(rng.choice(alphabet) for _ in range(size)) + rng.choice(("", "==", ".", "\n"))


def _shapes(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        word = rng.choice(WORDS)
        word = rng.choice((word, word.upper(), word.title()))
        body = word + rng.choice(("", "_value", "-str", ".prod", '"', "'", "`")) + rng.choice(JOINS) + _value(rng)
        frame = rng.choice(FRAMES)
        text = frame.format(body, _value(rng)) if frame.count("{") > 1 else frame.format(body)
        texts.append(rng.choice(("", "Note: ", "the ", "\n")) + text)
    return texts


def _every_join(seed: int) -> list[str]:
    """Each name, in three cases, joined to a value by each separator: the rules' core shapes."""
    rng = random.Random(seed)
    return [
        case + join + _value(rng) for word in WORDS for case in (word, word.upper(), word.title()) for join in JOINS
    ]


def _views(text: str) -> dict[str, str]:
    """The views `_raw_candidates` builds (the lowercased one through the same function)."""
    return {"text": text, "lowered": engine.lower(text), "lines": "\n" + text}


def _texts() -> list[str]:
    samples = [s.text for s in corpus.build()] + [s.text for s in public_shapes.build()]
    return samples + _shapes(4000, seed=16) + _every_join(seed=23)


TEXTS = _texts()


@pytest.mark.parametrize("rule_id", PREFILTERED)
def test_wherever_a_rule_matches_its_prefilter_matches(rule_id: str) -> None:
    rule = RULES[rule_id]
    pattern = re.compile(rule.pattern)
    prefilter = re.compile(rule.prefilter)
    matched = 0
    for text in TEXTS:
        view = _views(text)[rule.view]
        if pattern.search(view):
            matched += 1
            assert prefilter.search(view), f"{rule_id}: the prefilter misses {view!r}"
    assert matched >= 20, f"{rule_id}: only {matched} texts exercise the rule"


# Rules whose keywords narrow what they report (a match without one is not a finding), by design.
NARROWED = {"encoded-secret", "spoken-password"}


@pytest.mark.parametrize("rule_id", sorted(set(RULES) - NARROWED))
def test_wherever_a_rule_matches_one_of_its_keywords_occurs(rule_id: str) -> None:
    rule = RULES[rule_id]
    pattern = re.compile(rule.pattern)
    for text in TEXTS:
        view = _views(text)[rule.view]
        if rule.keywords and pattern.search(view):
            lowered = engine.lower(text)
            assert any(word in lowered for word in rule.keywords), f"{rule_id}: no keyword in {text!r}"


def test_the_generic_rules_have_prefilters() -> None:
    generic = ["config-password", "encoded-secret", "env-assignment", "keyword-assignment", "named-secret"]
    assert [*generic, "spoken-password"] == PREFILTERED


def test_findings_are_the_same_with_and_without_the_prefilters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole scan: a rule skipped by its prefilter would have found nothing."""
    with_them = [secret_scan.scan(text) for text in TEXTS]
    for rule_id in PREFILTERED:
        monkeypatch.setattr(RULES[rule_id], "prefilter", "")
    without = [secret_scan.scan(text) for text in TEXTS]
    assert with_them == without
    assert sum(1 for found in without if found) >= 500  # the texts hold findings to lose
