"""Tokens and cost of a batch before it starts (DESIGN §13: "Known cost").

From the sources' sizes: a source of N bytes is about N/4 tokens; an ingest turn
sends the system prompt (WIKI.md and index.md, capped as the session caps them, plus
the instructions and tool schemas) with each of its ~:data:`ROUNDS` requests and the
source with every request after it was read. When log.md records ingests with their
tokens, this vault's measured mean per ingest is used instead (a source larger than
usual adds its excess). Cost comes from the model's price per token
(litellm's price map, through the model client); None when the price is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

#: Requests in a typical ingest turn: read, plan, propose, answer.
ROUNDS = 4
#: Tokens of the instructions and tool schemas sent with every request.
PROMPT_TOKENS = 3000
#: Tokens of the answer besides what scales with the source (plan, summary page, edits).
BASE_OUTPUT = 800

#: Tokens of a source of the usual size, already in a measured ingest's figures.
USUAL_TOKENS = 4000

_ENTRY = re.compile(r"^## \[[^\]]*\] ingest \|", re.M)
_TOKENS = re.compile(r"^- tokens: in ([\d,]+), out ([\d,]+)", re.M)

Price = Callable[[int, int], "float | None"]


@dataclass
class Estimate:
    """What a batch is expected to cost.

    Attributes:
        sources: Sources to run.
        tokens_in: Prompt tokens, all sources together.
        tokens_out: Completion tokens.
        cost: US dollars; None when the model's price is unknown.
        basis: ``sizes`` or ``log.md (N ingests)``.
    """

    sources: int
    tokens_in: int
    tokens_out: int
    cost: float | None
    basis: str

    @property
    def tokens(self) -> int:
        """All tokens."""
        return self.tokens_in + self.tokens_out

    def per_source(self) -> tuple[int, float | None]:
        """(tokens, cost) of one source on average."""
        n = max(1, self.sources)
        return self.tokens // n, None if self.cost is None else self.cost / n

    def to_dict(self) -> dict:
        """For ``--json``."""
        return {"sources": self.sources, "tokens": {"in": self.tokens_in, "out": self.tokens_out},
                "cost": None if self.cost is None else round(self.cost, 6), "basis": self.basis}

    def line(self, model: str | None) -> str:
        """``about 120,000 tokens, $0.35 with MODEL`` (or ``cost unknown``)."""
        cost = "cost unknown" if self.cost is None else f"about ${self.cost:.2f}"
        return f"about {self.tokens:,} tokens ({self.basis}), {cost} with {model or 'the model'}"


def measured_ingests(log_text: str) -> list[tuple[int, int]]:
    """(tokens in, tokens out) of every ingest log.md records with its tokens."""
    out = []
    starts = [m.start() for m in _ENTRY.finditer(log_text)]
    for i, start in enumerate(starts):
        end = log_text.find("\n## ", start + 1)
        m = _TOKENS.search(log_text, start, end if end >= 0 else len(log_text))
        if m:
            out.append((int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))))
    return out


def estimate(sizes: list[int], overhead_tokens: int, price: Price, log_text: str = "") -> Estimate:
    """The estimate for sources of ``sizes`` bytes.

    Args:
        sizes: Each queued source's size in bytes.
        overhead_tokens: Tokens of WIKI.md and index.md as the first request carries them.
        price: ``price(tokens_in, tokens_out)`` in US dollars, None when unknown.
        log_text: log.md's text, for this vault's measured tokens per ingest.
    """
    per_turn = overhead_tokens + PROMPT_TOKENS
    by_size = [(ROUNDS * per_turn + (ROUNDS - 1) * (s // 4), BASE_OUTPUT + s // 20) for s in sizes]
    measured = measured_ingests(log_text)
    if measured:
        mean_in = sum(m[0] for m in measured) // len(measured)
        mean_out = sum(m[1] for m in measured) // len(measured)
        # A source larger than usual (past USUAL_TOKENS) adds what it adds to every request after the read.
        pairs = [(mean_in + (ROUNDS - 1) * max(0, s // 4 - USUAL_TOKENS), mean_out + max(0, s // 20 - USUAL_TOKENS // 5))
                 for s in sizes]
        basis = f"log.md: {len(measured)} past ingest{'s' if len(measured) != 1 else ''}"
    else:
        pairs, basis = by_size, "from sizes"
    tokens_in = sum(p[0] for p in pairs)
    tokens_out = sum(p[1] for p in pairs)
    cost = price(tokens_in, tokens_out) if sizes else 0.0
    return Estimate(len(sizes), tokens_in, tokens_out, cost, basis)
