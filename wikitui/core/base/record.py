"""A base for small value classes, without importing :mod:`dataclasses`.

``dataclasses`` imports :mod:`inspect` (and with it ``ast``, ``dis`` and
``tokenize``): about 8 ms of every ``wikitui search`` run, for a handful of
classes on its path. :class:`Record` gives what they used: fields in
``__slots__``, ``==`` over the fields, a readable ``repr`` and :meth:`as_dict`.
Subclasses write their ``__init__`` (a plain one is the fastest constructor).
"""

from __future__ import annotations


class Record:
    """A value: its fields are its ``__slots__``, in order."""

    __slots__: tuple[str, ...] = ()
    # Mutable, as a dataclass without frozen=True; typeshed types __hash__ as a method, not the None Python allows.
    __hash__ = None  # type: ignore[assignment]

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def as_dict(self) -> dict:
        """The fields as a dict, in order."""
        return {name: getattr(self, name) for name in self.__slots__}
