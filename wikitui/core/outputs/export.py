"""``wikitui export PAGE``: a Marp deck to HTML, PDF or PPTX (DESIGN §9).

marp-cli does it when it is on PATH (PDF and PPTX also need a Chromium-based
browser, which marp-cli finds itself). Without it, HTML is made here
(:mod:`deck_html`: one self-contained file) and PDF/PPTX say how to install
marp-cli. Pictures the slides embed from the vault (``![[assets/x.png]]``,
``![](assets/x.png)``) go into the output as ``data:`` URLs, so the file works
wherever it is moved. The output replaces ``--out`` atomically; raw/ and
markdown files are never export targets.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from wikitui.core.outputs.deck_html import _obsidian_to_markdown, render_deck_html
from wikitui.core.outputs.slides import DeckError, is_deck, parse_deck
from wikitui.core.vault.files import atomic_write, read_text

FORMATS = ("html", "pdf", "pptx")
MARP_INSTALL = "npm install -g @marp-team/marp-cli"
#: Seconds marp-cli may take (a PDF starts a browser).
MARP_TIMEOUT = 300
#: Pictures larger than this are left out of an export.
MAX_IMAGE_BYTES = 20 * 1024 * 1024
_IMAGE_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".svg": "image/svg+xml"}
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*(<[^>]*>|[^)\s]+)(\s+\"[^\"]*\")?\s*\)")


@dataclass(slots=True)
class ExportResult:
    """A finished export: the file written and the tool that made it (``marp-cli`` or ``wikitui``)."""

    path: Path
    tool: str


def image_resolver(vault, page_rel: str):
    """A function finding a slide's picture in the vault: beside the page, then in the wiki, then at the root.

    Only files inside the vault, outside dot-folders, with a picture's suffix are read.
    """
    page_dir = PurePosixPath(page_rel).parent

    def resolve(src: str) -> tuple[str, bytes] | None:
        name = unquote(src.strip().strip("<>")).replace("\\", "/")
        mime = _IMAGE_MIME.get(os.path.splitext(name)[1].lower())
        if mime is None or not name or name.startswith("/") or "\x00" in name:
            return None
        for base in (page_dir, PurePosixPath(vault.wiki_prefix or "."), PurePosixPath(".")):
            rel = PurePosixPath(os.path.normpath(str(base / name)))
            if rel.parts and (rel.parts[0] == ".." or any(p.startswith(".") for p in rel.parts)):
                continue
            path = vault.root / rel
            try:
                if not path.resolve().is_relative_to(vault.root) or not path.is_file():
                    continue
                if path.stat().st_size > MAX_IMAGE_BYTES:
                    return None
                return mime, path.read_bytes()
            except OSError:
                continue
        return None

    return resolve


def _inline_images(text: str, resolve) -> str:
    """Slides' markdown for marp-cli: vault pictures as ``data:`` URLs, Obsidian embeds as images."""
    def image(m: re.Match) -> str:
        src = m.group(2).strip("<>")
        if src.startswith(("http://", "https://", "data:")):
            return m.group(0)
        found = resolve(src)
        if found is None:
            return m.group(0)
        mime, data = found
        return f"![{m.group(1)}](data:{mime};base64,{base64.b64encode(data).decode('ascii')})"

    return _MD_IMAGE.sub(image, _obsidian_to_markdown(text))


def output_path(page_rel: str, fmt: str, out: str | os.PathLike | None, cwd: Path) -> Path:
    """Where an export goes: ``out``, else ``<page-stem>.<fmt>`` in ``cwd``."""
    if out:
        path = Path(out).expanduser()
        return path if path.is_absolute() else cwd / path
    return cwd / f"{PurePosixPath(page_rel).stem}.{fmt}"


def _check_target(vault, target: Path) -> None:
    if target.suffix.lower() in (".md", ".markdown"):
        raise DeckError(f"{target}: an export is never written over a markdown file; choose another --out")
    if target.is_dir():
        raise DeckError(f"{target} is a folder; give a file name with --out")
    if not target.parent.is_dir():
        raise DeckError(f"no such folder: {target.parent}")
    real = target.parent.resolve() / target.name
    for forbidden, why in ((vault.raw_dir, "raw/ is read-only"), (vault.state_dir, "it is wikitui's own folder")):
        if real.is_relative_to(forbidden.resolve()):
            raise DeckError(f"{target}: cannot export there ({why})")


def export_page(vault, page_rel: str, fmt: str = "html", out: str | os.PathLike | None = None, *,
                cwd: Path | None = None, marp: str | None = "auto") -> ExportResult:
    """Export the Marp page ``page_rel`` of ``vault``.

    Args:
        vault: The vault.
        page_rel: The page's vault-relative path.
        fmt: ``html``, ``pdf`` or ``pptx``.
        out: The output file (default: ``<page-stem>.<fmt>`` in ``cwd``).
        cwd: The folder a default output goes to (default: the current folder).
        marp: The marp-cli executable; ``"auto"`` looks it up on PATH, None never uses it.

    Raises:
        DeckError: not a deck, a bad format or target, PDF/PPTX without marp-cli, or marp-cli failed.
    """
    if fmt not in FORMATS:
        raise DeckError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    page = vault.root / page_rel
    text = read_text(page)
    if not is_deck(text):
        raise DeckError(f"{page_rel} is not a Marp deck: add `marp: true` to its frontmatter")
    target = output_path(page_rel, fmt, out, cwd or Path.cwd())
    _check_target(vault, target)
    exe = shutil.which("marp") if marp == "auto" else marp
    resolve = image_resolver(vault, page_rel)
    if exe:
        _run_marp(exe, _inline_images(text, resolve), PurePosixPath(page_rel).stem, fmt, target)
        return ExportResult(target, "marp-cli")
    if fmt != "html":
        raise DeckError(f"exporting {fmt.upper()} needs marp-cli, which is not installed: {MARP_INSTALL} "
                        "(it also needs Chromium or Chrome); `--format html` works without it")
    deck = parse_deck(text)
    title = str(deck.directives.get("title") or PurePosixPath(page_rel).stem)
    mode = _mode_for(target)
    atomic_write(target, render_deck_html(deck, title, resolve))
    os.chmod(target, mode)  # atomic_write's temporary file was 0600
    return ExportResult(target, "wikitui")


def marp_error(output: str) -> str:
    """The one line that says why marp-cli failed: its ``[ ERROR ]`` message (with its wrapped lines)."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if "[ ERROR ]" in line:
            parts = [line.split("[ ERROR ]", 1)[1].strip()]
            for more in lines[i + 1:]:
                if not more.startswith((" ", "\t")) or not more.strip():
                    break
                parts.append(more.strip())
            return " ".join(parts)[:300]
    useful = [line.strip() for line in lines if line.strip() and not line.strip().startswith("at ")]
    return useful[-1][:300] if useful else ""


def _mode_for(target: Path) -> int:
    """The mode an export gets: the replaced file's, else that of any new file (``0666 & ~umask``)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _run_marp(exe: str, markdown: str, stem: str, fmt: str, target: Path) -> None:
    """Run marp-cli on ``markdown`` (a temporary copy: the page itself is never handed over) into ``target``."""
    flag = {"html": [], "pdf": ["--pdf"], "pptx": ["--pptx"]}[fmt]
    fd, tmp_out = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=f".{fmt}", dir=target.parent)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory(prefix="wikitui-export-") as folder:
            source = Path(folder) / f"{stem or 'deck'}.md"
            source.write_text(markdown, encoding="utf-8")
            try:
                proc = subprocess.run(
                    [exe, "--no-stdin", *flag, str(source), "-o", tmp_out],
                    cwd=folder, capture_output=True, text=True, errors="replace", timeout=MARP_TIMEOUT,
                    stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired:
                raise DeckError(f"marp-cli took more than {MARP_TIMEOUT} s; nothing was written") from None
            except OSError as exc:
                raise DeckError(f"marp-cli could not be run ({exc.strerror or exc})") from None
        if proc.returncode != 0 or os.path.getsize(tmp_out) == 0:
            reason = marp_error(proc.stderr or proc.stdout or "") or f"exit status {proc.returncode}"
            if "browser" in reason.lower():
                reason += " (PDF and PPTX need Chromium or Chrome installed)"
            raise DeckError(f"marp-cli failed: {reason}; nothing was written")
        os.chmod(tmp_out, _mode_for(target))  # mkstemp made it 0600
        os.replace(tmp_out, target)
    finally:
        try:
            os.unlink(tmp_out)
        except OSError:
            pass
