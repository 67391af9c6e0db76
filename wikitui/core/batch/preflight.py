"""A batch before it starts: what it takes, what it skips and why, what it should cost, and its cap.

The same pre-flight for headless ``wikitui ingest DIR|GLOB|--new|--resume`` (on stderr)
and the TUI's ``/ingest raw/papers/`` (a note in the chat, then a confirmation):
:func:`prepare` reads the vault, :meth:`Preflight.lines` says it, :meth:`Preflight.start`
makes (or takes up again) the queue once confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wikitui.core.batch.estimate import Estimate, estimate
from wikitui.core.batch.queue import Batch, Entry, last_unfinished, new_batch
from wikitui.core.batch.select import select, skip_pending_elsewhere


@dataclass(kw_only=True)
class Preflight:
    """What a batch will do once confirmed.

    Attributes:
        selection: What was asked for (``raw/papers/``, ``raw/**/*.pdf``, ``--new``).
        todo: Entries to run, in order.
        skipped: Entries skipped, each with its ``why``.
        estimate: Tokens and cost expected.
        cap: The cost cap of this run (US dollars), None for none.
        model: The configured model.
        resumed: The unfinished batch this continues (``--resume``), or None for a new one.
        notes: What settling a resumed batch found (sources proposed before it stopped, skipped since).
    """

    selection: str
    todo: list[Entry]
    skipped: list[Entry]
    estimate: Estimate
    cap: float | None
    model: str | None
    resumed: Batch | None = None
    notes: list[str] = field(default_factory=list)

    def reasons(self) -> dict[str, int]:
        """Why sources are skipped, and how many for each reason."""
        out: dict[str, int] = {}
        for e in self.skipped:
            key = "pending review" if (e.why or "").endswith("pending review") else (e.why or "skipped")
            out[key] = out.get(key, 0) + 1
        return out

    def lines(self) -> list[str]:
        """The pre-flight, a sentence a line: sources and skipped (why), the estimate, the cap."""
        resumed = self.resumed
        what = f"resuming batch {resumed.id} ({self.selection})" if resumed is not None else f"batch {self.selection}"
        reasons = self.reasons()
        why = f" ({', '.join(f'{n} {k}' for k, n in reasons.items())})" if reasons else ""
        out = [f"{what}: {len(self.todo)} source(s) to ingest, {len(self.skipped)} skipped{why}"]
        if self.todo:
            out.append(f"estimate: {self.estimate.line(self.model)}")
        if self.cap is not None:
            note = "" if self.estimate.cost is not None else " (but the model's price is unknown: the cap cannot act)"
            out.append(f"cost cap ${self.cap:.2f} for this run{note}")
        return out

    def start(self, vault) -> Batch:
        """The queue to run: the resumed batch, or a new one saved in ``.wikitui/batches/``."""
        if self.resumed is not None:
            return self.resumed
        return new_batch(vault, self.selection, self.model, sorted(self.todo + self.skipped, key=lambda e: e.source))


def prepare(workspace, argument: str | None, *, settings, client, new: bool = False, resume: bool = False,
            max_cost: float | None = None) -> Preflight:
    """The pre-flight of a batch (reads the vault and the queues; slow on a large raw/: run it off the UI's loop).

    Args:
        workspace: The workspace (its graph loaded).
        argument: A folder or a glob, vault-relative; None with ``new`` or ``resume``.
        settings: The resolved settings (model, ``batch_max_cost``).
        client: The model client (counts tokens, knows prices).
        new: Only sources no page lists in ``sources``.
        resume: Continue the last unfinished batch.
        max_cost: The run's cap (None: config ``batch_max_cost``).

    Raises:
        WikituiError: nothing to resume, no such folder, nothing matches.
    """
    vault = workspace.vault
    notes: list[str] = []
    resumed: Batch | None = None
    if resume:
        resumed = last_unfinished(vault)
        for e in resumed.recover(vault):
            notes.append(f"{e.source} was proposed as {e.changeset} before the batch stopped; it is not run again")
        for e in skip_pending_elsewhere(vault, workspace.require_graph(),
                                        [e for e in resumed.entries if e.retryable]):
            notes.append(f"{e.source} is skipped: {e.why}")
        resumed.save()
        todo = [e for e in resumed.entries if e.retryable]
        skipped = [e for e in resumed.entries if e.state == "skipped"]
        selection = resumed.selection
    else:
        chosen = select(vault, workspace.require_graph(), argument, only_new=new)
        todo, skipped = chosen.queued, chosen.skipped
        selection = "--new" if argument is None else argument
    cap = max_cost if max_cost is not None else settings.batch_max_cost
    return Preflight(selection=selection, todo=todo, skipped=skipped, estimate=_estimate(workspace, client, todo),
                     cap=cap, model=settings.model, resumed=resumed, notes=notes)


def _estimate(workspace, client, todo: list[Entry]) -> Estimate:
    """The estimate for ``todo`` with this vault's WIKI.md, index.md and log.md."""
    vault = workspace.vault
    settings = client.settings

    def read(rel: str) -> str:
        try:
            return (vault.root / rel).read_text("utf-8-sig", errors="replace")
        except OSError:
            return ""

    head = read("WIKI.md") + read(vault.index_path)
    overhead = min(client.count_tokens(text=head) if head else 0, settings.initial_context_tokens)

    def price(tokens_in: int, tokens_out: int) -> float | None:
        return client.known_cost(tokens_in, tokens_out)

    return estimate([e.size for e in todo], overhead, price, read(vault.log_path))
