"""Value types (lean_harness.values) behave as typing.NamedTuple classes with the same body."""

from __future__ import annotations

import pickle
import subprocess
import sys
from typing import NamedTuple

import pytest

from lean_harness.values import Value


class Hit(Value):
    """A hit."""

    id: str
    score: float = 0.0
    tags: tuple[str, ...] = ()

    @property
    def strong(self) -> bool:
        return self.score >= 1.0

    def tagged(self, tag: str) -> bool:
        return tag in self.tags


class ReferenceHit(NamedTuple):
    """A hit."""

    id: str
    score: float = 0.0
    tags: tuple[str, ...] = ()

    @property
    def strong(self) -> bool:
        return self.score >= 1.0

    def tagged(self, tag: str) -> bool:
        return tag in self.tags


def test_fields_defaults_and_methods_match_a_named_tuple() -> None:
    made, reference = Hit("a", 2.0, ("x",)), ReferenceHit("a", 2.0, ("x",))
    assert Hit._fields == ReferenceHit._fields == ("id", "score", "tags")
    assert Hit._field_defaults == ReferenceHit._field_defaults == {"score": 0.0, "tags": ()}
    assert tuple(made) == tuple(reference) == ("a", 2.0, ("x",))
    assert (made.strong, made.tagged("x"), made.tagged("y")) == (True, True, False)
    assert Hit("b") == Hit("b", 0.0, ())
    assert Hit.__doc__ == "A hit."
    assert (Hit.__name__, Hit.__qualname__, Hit.__module__) == ("Hit", "Hit", __name__)


def test_repr_replace_hash_and_pickle() -> None:
    made = Hit("a", 2.0)
    assert repr(made) == "Hit(id='a', score=2.0, tags=())"
    assert made._replace(score=0.5) == Hit("a", 0.5)
    assert hash(made) == hash(Hit("a", 2.0))
    assert {made, Hit("a", 2.0)} == {made}
    assert pickle.loads(pickle.dumps(made)) == made


def test_values_are_read_only() -> None:
    made = Hit("a")
    with pytest.raises(AttributeError):
        made.score = 3.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        made.other = 1  # type: ignore[attr-defined]


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^Bad: a field without a default follows one with a default$"):

        class Bad(Value):
            a: int = 0
            b: int  # type: ignore[misc]


def test_super_in_a_method_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^Bad: a value's methods cannot use super\(\) or __class__$"):

        class Bad(Value):
            a: int

            def __repr__(self) -> str:
                return super().__repr__()


def test_importing_values_imports_neither_typing_nor_dataclasses() -> None:
    probe = "import sys, lean_harness.values; print(sorted({'typing', 'dataclasses', 'inspect'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout == "[]\n"


def test_a_mutable_default_is_refused() -> None:
    with pytest.raises(
        TypeError, match=r"^Bad: a default is shared by every value: use a tuple, not a list, dict or set$"
    ):

        class Bad(Value):
            a: list[int] = []  # noqa: RUF012
