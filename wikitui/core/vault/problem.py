"""One lint finding (DESIGN §6): the unit of ``lint --json``'s ``problems`` list."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class Problem:
    """One finding.

    Attributes:
        check: One of :data:`CHECKS`.
        path: The vault-relative file the problem is in (a page, or a raw source).
        line: The 1-based line it points at, or None for a whole-file problem.
        target: What the problem is about (a link target, a shared title, a source), or None.
        message: One line for a person.
    """

    check: str
    path: str
    line: int | None
    target: str | None
    message: str

    def to_dict(self) -> dict:
        """The JSON form: ``{"check", "path", "line", "target", "message"}``."""
        # Not dataclasses.asdict: its deep copy costs more than the rest of a 450,000-problem report.
        return {"check": self.check, "path": self.path, "line": self.line, "target": self.target, "message": self.message}
