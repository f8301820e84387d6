"""Frozen value types that start fast: `class Hit(Value)` with annotated fields (adr/0025).

To the type checker `Value` is `typing.NamedTuple`, so fields, defaults and immutability are
checked as for any named tuple. At run time a class statement that derives from `Value` makes a
`collections.namedtuple` from the annotated names and their defaults and keeps the methods,
properties and docstring written in the class body. Neither `typing` (whose NamedTuple also
compiles every annotation) nor `dataclasses` (which imports `inspect` and compiles several
methods per class) is imported, which is most of what a command's start-up used to spend on
its value types.

A value is a tuple: immutable, hashable when its fields are, equal to another value of the same
type with equal fields (a class that leaves fields out of equality defines `__eq__` and
`__hash__` itself), and copied with a change by `_replace`. A class body may not use `super()`
or declare a field after one with a default, as with `typing.NamedTuple`, nor give a field a
list, dict or set as its default, as with a dataclass.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Value"]

_MADE_BY_TYPE = frozenset({"__module__", "__qualname__", "__annotations__", "__dict__", "__weakref__"})


class _Maker(type):
    """Makes each subclass of Value a named tuple of its annotated fields."""

    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if not bases:
            return super().__new__(cls, name, bases, namespace)
        if "__classcell__" in namespace:
            raise TypeError(f"{name}: a value's methods cannot use super() or __class__")
        annotations = namespace.get("__annotations__", {})
        fields: tuple[str, ...] = tuple(annotations) if isinstance(annotations, dict) else ()
        defaults = [namespace[field] for field in fields if field in namespace]
        if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        if any(isinstance(default, (list, dict, set)) for default in defaults):
            raise TypeError(f"{name}: a default is shared by every value: use a tuple, not a list, dict or set")
        made: type = namedtuple(name, fields, defaults=defaults, module=str(namespace["__module__"]))  # type: ignore[misc]
        for key, value in namespace.items():
            if key not in fields and key not in _MADE_BY_TYPE:
                setattr(made, key, value)
        made.__qualname__ = str(namespace["__qualname__"])
        return made


TYPE_CHECKING = False  # importing typing is what this module exists to avoid
if TYPE_CHECKING:
    from typing import NamedTuple as Value
else:

    class Value(metaclass=_Maker):
        """Derive from this and annotate fields, as with typing.NamedTuple."""
