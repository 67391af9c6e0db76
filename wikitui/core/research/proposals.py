"""Proposed sources: the URLs a research turn found, each with one line why, decided like hunks (DESIGN §9).

A turn that may search the web (``/research TOPIC``, lint's sources pass) gets a
:class:`SourceFinder`: its ``web_search`` calls go through it, and its ``propose_sources``
call adds the addresses it found (only addresses a search of this turn returned: the
model cannot slip in one of its own). When the turn ends the list is saved as a
:class:`SourceProposal` under ``.wikitui/research/<id>.json`` (atomically), every URL
undecided. Nothing is fetched then: the person accepts or rejects each URL (the review
in the TUI, ``wikitui research accept|reject ID [URL...]``) and only accepted ones are
clipped, through ``clip``'s own path (:func:`~wikitui.core.vault.formats.clip.clip_url`),
and optionally queued as a batch for ``wikitui ingest --resume`` (by a ``queue`` the caller
passes: :func:`~wikitui.core.batch.queue.queue_sources`, a layer above this one).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wikitui.core.base.errors import WikituiError
from wikitui.core.research.provider import SearchHit, SearchProvider, hits_text, web_search
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.statedir import ensure_state_dir
from wikitui.core.vault.visible_text import visible_line

RESEARCH_DIR = "research"
DECISIONS = ("undecided", "accepted", "rejected")
#: At most this many URLs in one proposal.
MAX_SOURCES = 20
WHY_CHARS = 200
_ID = re.compile(r"^research-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$")


class NoProposal(WikituiError):
    """No such research proposal (or none pending)."""


@dataclass
class ProposedSource:
    """One URL of a proposal.

    Attributes:
        url: The address a web search returned.
        title: Its title as the search engine gave it.
        why: One line from the model: why this source is worth clipping.
        decision: ``undecided``, ``accepted`` or ``rejected``.
        clipped: The raw/ path it was clipped to, once accepted and fetched.
        error: Why clipping it failed (it stays accepted, to try again).
    """

    url: str
    title: str = ""
    why: str = ""
    decision: str = "undecided"
    clipped: str | None = None
    error: str | None = None


@dataclass
class SourceProposal:
    """The URLs one turn proposed, saved under ``.wikitui/research/``.

    Attributes:
        id: ``research-YYYYMMDD-HHMMSS-xxxx``.
        topic: What was researched (the topic, or "lint: sources to look for").
        op: The turn's operation (``research`` or ``lint``).
        created: ISO time.
        sources: The URLs, in the order proposed.
    """

    id: str
    topic: str
    op: str
    created: str
    sources: list[ProposedSource] = field(default_factory=list)

    @property
    def undecided(self) -> list[ProposedSource]:
        """The URLs still waiting for a decision."""
        return [s for s in self.sources if s.decision == "undecided"]

    @property
    def pending(self) -> bool:
        """Whether a URL waits for a decision, or an accepted one is not clipped yet."""
        return any(s.decision == "undecided" or (s.decision == "accepted" and not s.clipped) for s in self.sources)

    def to_dict(self) -> dict:
        """The JSON form (``research --json`` prints it)."""
        return asdict(self)

    def find(self, url: str) -> ProposedSource:
        """The proposed source with address ``url``.

        Raises:
            NoProposal: the proposal has no such URL.
        """
        for source in self.sources:
            if source.url == url or source.url.rstrip("/") == url.rstrip("/"):
                return source
        raise NoProposal(f"{self.id} proposes no {visible_line(url)[:200]}")


class ResearchStore:
    """The proposals of a vault, ``.wikitui/research/<id>.json``."""

    def __init__(self, vault) -> None:
        self.vault = vault
        self.folder: Path = vault.state_dir / RESEARCH_DIR

    def save(self, proposal: SourceProposal) -> None:
        """Write ``proposal`` (atomically)."""
        ensure_state_dir(self.vault)
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / f"{proposal.id}.json", json.dumps(proposal.to_dict(), indent=1))

    def load(self, proposal_id: str) -> SourceProposal:
        """The proposal ``proposal_id`` (or a unique prefix or tail of one; ``latest``: the newest pending)."""
        if proposal_id == "latest":
            found = self.latest()
            if found is None:
                raise NoProposal("no research proposal is pending")
            return found
        ids = self.ids()
        matches = [i for i in ids if i == proposal_id] or [i for i in ids if i.startswith(proposal_id)
                                                            or i.endswith(proposal_id)]
        if len(matches) != 1 or not proposal_id:
            what = "matches more than one" if len(matches) > 1 else "matches no"
            raise NoProposal(f"{visible_line(proposal_id)[:80]!r} {what} research proposal "
                             "(see `wikitui research list`)")
        return _read(self.folder / f"{matches[0]}.json")

    def ids(self) -> list[str]:
        """Every proposal's id, oldest first."""
        try:
            return sorted(p.stem for p in self.folder.glob("research-*.json") if _ID.match(p.stem))
        except OSError:
            return []

    def all(self) -> list[SourceProposal]:
        """Every readable proposal, oldest first."""
        found = []
        for proposal_id in self.ids():
            try:
                found.append(_read(self.folder / f"{proposal_id}.json"))
            except NoProposal:
                continue
        return found

    def latest(self) -> SourceProposal | None:
        """The newest proposal with a URL still pending, or None."""
        pending = [p for p in self.all() if p.pending]
        return pending[-1] if pending else None


def _read(path: Path) -> SourceProposal:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        sources = [ProposedSource(**{k: v for k, v in s.items() if k in ProposedSource.__dataclass_fields__})
                   for s in data["sources"]]
        for s in sources:
            if s.decision not in DECISIONS:
                raise ValueError(f"unknown decision {s.decision!r}")
        return SourceProposal(str(data["id"]), str(data["topic"]), str(data.get("op", "research")),
                              str(data["created"]), sources)
    except FileNotFoundError:
        raise NoProposal(f"no research proposal {path.stem}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NoProposal(f"research proposal {path.stem} is unreadable: {exc}") from None


def new_proposal_id(now: _dt.datetime | None = None) -> str:
    """A fresh proposal id."""
    now = now or _dt.datetime.now()
    return f"research-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


# -------------------------------------------------------------- during a turn
class SourceFinder:
    """A turn's web search and the sources it proposes (the ``web_search`` and ``propose_sources`` tools).

    Args:
        provider: Where searches go.
        search: ``search(provider, query, limit) -> hits`` (default :func:`web_search`).
    """

    def __init__(self, provider: SearchProvider,
                 search: Callable[[SearchProvider, str, int], list[SearchHit]] = web_search) -> None:
        self.provider = provider
        self._search = search
        #: Every hit a search of this turn returned, by address.
        self.seen: dict[str, SearchHit] = {}
        #: The sources proposed so far, in order.
        self.proposed: list[ProposedSource] = []

    def search(self, query: str, limit: int) -> str:
        """Search the web; the result text for the model."""
        hits = self._search(self.provider, query, limit)
        for hit in hits:
            self.seen.setdefault(hit.url, hit)
        return hits_text(query, hits)

    def propose(self, items: list[tuple[str, str]]) -> str:
        """Add ``(url, why)`` pairs; the result text for the model.

        Raises:
            WikituiError: no item, an address no search of this turn returned, or too many.
        """
        if not items:
            raise WikituiError("propose_sources needs at least one {url, why}")
        unknown = [url for url, _ in items if url not in self.seen]
        if unknown:
            raise WikituiError("only addresses a web_search of this turn returned can be proposed; not: "
                               + ", ".join(visible_line(u)[:200] for u in unknown[:5]))
        known = {s.url for s in self.proposed}
        added = 0
        for url, why in items:
            if url in known:
                continue
            if len(self.proposed) >= MAX_SOURCES:
                raise WikituiError(f"at most {MAX_SOURCES} sources per turn; {added} added")
            why = visible_line(" ".join(why.split()))[:WHY_CHARS]
            self.proposed.append(ProposedSource(url, self.seen[url].title, why))
            known.add(url)
            added += 1
        return (f"{added} source(s) proposed ({len(self.proposed)} in all); the user accepts or rejects each "
                "before anything is fetched")

    def save(self, vault, topic: str, op: str) -> SourceProposal | None:
        """Save what was proposed as a pending :class:`SourceProposal` (None when nothing was)."""
        if not self.proposed:
            return None
        now = _dt.datetime.now()
        proposal = SourceProposal(new_proposal_id(now), topic, op, now.isoformat(timespec="seconds"),
                                  list(self.proposed))
        ResearchStore(vault).save(proposal)
        self.proposed = []
        return proposal


# --------------------------------------------------------------- the decision
@dataclass
class Clipped:
    """What accepting a proposal's URLs did.

    Attributes:
        clipped: ``(url, raw path)`` of each URL clipped now.
        failed: ``(url, why)`` of each accepted URL that could not be clipped.
        batch: The batch id the clipped sources were queued in (None: not queued).
    """

    clipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    batch: str | None = None


def decide(vault, proposal: SourceProposal, *, accepted: Sequence[str] = (), rejected: Sequence[str] = (),
           clip: Callable | None = None, queue: Callable[[list[str]], str] | None = None) -> Clipped:
    """Record the decisions, then clip the accepted URLs (only those) into raw/; saves the proposal.

    Args:
        accepted: URLs accepted now (those accepted before and not clipped yet are tried again too).
        rejected: URLs rejected now (never fetched).
        clip: ``clip(vault, url) -> ClipResult`` (default: ``clip``'s own :func:`clip_url`).
        queue: ``queue(paths) -> batch id``: queue the clipped sources for a batch ingest (None: not queued).
    """
    from wikitui.core.vault.formats.clip import AlreadyClipped, clip_url

    chosen = [proposal.find(u) for u in accepted]
    refused = [proposal.find(u) for u in rejected]
    both = {s.url for s in chosen} & {s.url for s in refused}
    if both:
        raise WikituiError(f"both accepted and rejected: {', '.join(sorted(both))}")
    for source in chosen:
        source.decision = "accepted"
    for source in refused:
        source.decision = "rejected"
    clip = clip or clip_url
    done = Clipped()
    try:
        for source in proposal.sources:
            if source.decision != "accepted" or source.clipped:
                continue
            try:
                source.clipped = clip(vault, source.url).path
                source.error = None
                done.clipped.append((source.url, source.clipped))
            except AlreadyClipped as exc:  # it is in raw/ already: nothing to fetch, and it counts as clipped
                source.clipped, source.error = exc.path, None
                done.clipped.append((source.url, exc.path))
            except (WikituiError, OSError) as exc:  # OSError: raw/ could not be written (a full disk...)
                why = str(exc) if isinstance(exc, WikituiError) else f"cannot write raw/: {exc.strerror or exc}"
                source.error = why
                done.failed.append((source.url, why))
    finally:
        ResearchStore(vault).save(proposal)
    if queue is not None and done.clipped:
        done.batch = queue([path for _, path in done.clipped])
    return done
