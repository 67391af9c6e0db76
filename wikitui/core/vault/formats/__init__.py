"""Raw sources in: every format a researcher collects, turned into markdown text (DESIGN §9).

What this package owns:

- converting a raw source to markdown (``dispatch``: one converter per family in
  ``pdf``, ``html``, ``office``, ``tabular``, ``images``), bounded by the caps in
  ``conversion``, with ``[page N]`` markers where the source has pages;
- the cache of converted text under ``.wikitui/text/`` (``cache``), keyed by content;
- citations such as ``raw/x.pdf#page=3`` resolved to a line of the converted text
  (``citations``);
- ``isolated``: a conversion in a child process with a time limit, for sources
  nobody has vetted (``source_text(..., isolate=True)``);
- ``clip``: the ONE place that adds files to raw/ (a fetched web page, a copied
  document); it never modifies a file already there (``fetch`` does its HTTP).

What it may import: the standard library, ``wikitui.core.vault.files``, ``errors``,
``record``, ``page`` (frontmatter) and ``vault``. The format libraries (pypdf,
trafilatura, markitdown, pillow, httpx) are imported inside the functions that use
them, so importing this package costs nothing. Nothing here imports Textual or Rich,
and nothing here writes to raw/ except ``clip``.

How the rest of wikitui calls it:

- ``source_text(vault, "raw/x.pdf")`` → :class:`Conversion` (cached; ``.error`` is
  one line when the file cannot be converted, else ``.text`` is the markdown).
- ``resolve_citation(vault, "raw/x.pdf#page=3")`` → :class:`Citation` with the
  1-based line of the ``[page 3]`` marker in that text.
- ``formats.clip.clip_url(vault, url)`` / ``clip_file(vault, path)`` → ``ClipResult``
  (imported from its module: it is only needed by ``wikitui clip`` and the palette).
"""

from wikitui.core.vault.formats.citations import Citation, resolve_citation
from wikitui.core.vault.formats.conversion import Conversion
from wikitui.core.vault.formats.dispatch import convert_file, source_text
from wikitui.core.vault.formats.kinds import kind_of, needs_conversion

__all__ = [
    "Citation",
    "Conversion",
    "convert_file",
    "kind_of",
    "needs_conversion",
    "resolve_citation",
    "source_text",
]
