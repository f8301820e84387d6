"""Shipped JSON Schemas and validation that returns every problem with its location.

The only module that imports jsonschema, lazily, so the hot path never pays for it (adr/0003-config.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

_TYPE_NAMES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "a table",
    "array": "an array",
}


@dataclass(frozen=True)
class Problem:
    """One schema violation: where (a dotted key path, empty for the top) and what."""

    location: str
    message: str


def load(name: str) -> dict[str, Any]:
    """A shipped schema by name, for instance "config"."""
    text = (resources.files("lean_harness") / "schemas" / f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate(instance: object, name: str) -> list[Problem]:
    """Every problem of `instance` against the named schema, sorted by location."""
    from jsonschema import Draft202012Validator

    problems = {_problem(error) for error in Draft202012Validator(load(name)).iter_errors(instance)}
    return sorted(problems, key=lambda p: (p.location, p.message))


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _problem(error: Any) -> Problem:
    kind, schema, value = error.validator, error.schema, error.instance
    location = ".".join(str(part) for part in error.absolute_path)
    custom = schema.get("x-message") if isinstance(schema, dict) else None
    if kind == "type":
        expected = schema["type"]
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in ([expected] if isinstance(expected, str) else expected))
        return Problem(location, f"{_show(value)} is not {wanted}")  # every type the schemas use is named
    if kind == "additionalProperties" and isinstance(value, dict):
        allowed = sorted(schema.get("properties", {}))
        unknown = sorted(set(value) - set(allowed))
        where = ".".join(filter(None, [location, unknown[0] if unknown else ""]))
        return Problem(where, f"unknown key; allowed keys here: {', '.join(allowed)}")
    if kind == "propertyNames":
        import re

        sub = schema["propertyNames"]
        bad = sorted(k for k in value if "pattern" in sub and re.search(sub["pattern"], k) is None)
        name = bad[0] if bad else "?"
        message = sub.get("x-message", "is not an allowed name")
        return Problem(location, f"{name!r} is not allowed: {message}")
    if kind in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        span = f"{low} to {high}" if low is not None and high is not None else f"{kind} {error.validator_value}"
        return Problem(location, f"{_show(value)} is out of range; allowed: {span}")
    if kind == "enum":
        choices = ", ".join(_show(v) for v in error.validator_value)
        return Problem(location, f"{_show(value)} is not allowed; allowed: {choices}")
    if custom:
        return Problem(location, f"{_show(value)} is not allowed: {custom}")
    if kind == "minProperties":
        return Problem(location, f"needs at least {error.validator_value} key(s)")
    if kind == "uniqueItems":
        return Problem(location, f"{_show(value)} lists an item twice")
    if kind in ("minLength", "maxLength"):
        return Problem(location, f"{_show(value)} is too {'short' if kind == 'minLength' else 'long'}")
    return Problem(location, error.message)
