"""A Marp deck as one self-contained HTML file, for when marp-cli is not installed.

Everything is inside the file: the styles, a few lines of script for the keys
(``→``/``space``/``PageDown`` next, ``←``/``PageUp`` back, ``Home``/``End``, the slide
in the address's ``#N``), and the pictures as ``data:`` URLs. A Content-Security-
Policy forbids loading any script or style from elsewhere. The markdown is rendered
by markdown-it-py with raw HTML off, so a page cannot put a script in the deck;
printing the file gives one slide per page.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable

from wikitui.core.outputs.slides import Deck

#: ``(src) -> (mime, bytes) | None``: the picture a slide's image refers to.
ImageResolver = Callable[[str], "tuple[str, bytes] | None"]

_EMBED = re.compile(r"!\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_WIKILINK = re.compile(r"(?<!!)\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
# CSS values a directive may set: colours and simple words (nothing that could close the style).
_SAFE_CSS = re.compile(r"^[#\w\s(),.%-]{1,60}$")

_STYLE = """
html,body{margin:0;height:100%;background:#111;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.deck{position:fixed;inset:0;display:flex;align-items:center;justify-content:center}
.slide{display:none;box-sizing:border-box;width:min(100vw,177.78vh);height:min(56.25vw,100vh);padding:4vmin 6vmin;
background:#fff;color:#222;overflow:hidden;position:relative;font-size:min(2.6vw,4.6vh)}
.slide.active{display:block}
.slide h1{font-size:1.9em;margin:.2em 0 .4em}.slide h2{font-size:1.5em;margin:.2em 0 .4em}
.slide img{max-width:100%;max-height:70%}
.slide pre{background:#f4f4f4;padding:.6em;font-size:.7em;overflow:hidden}
.slide table{border-collapse:collapse}.slide td,.slide th{border:1px solid #ccc;padding:.2em .5em}
.slide.lead{display:none;text-align:center}.slide.lead.active{display:flex;flex-direction:column;justify-content:center}
.slide.invert{background:#222;color:#eee}
.slide header,.slide footer{position:absolute;left:6vmin;font-size:.5em;color:#777}
.slide header{top:1.5vmin}.slide footer{bottom:1.5vmin}
.counter{position:absolute;right:3vmin;bottom:1.5vmin;font-size:.5em;color:#777}
@media print{@page{size:16in 9in;margin:0}html,body{background:#fff;height:auto}.deck{position:static;display:block}
.slide,.slide.lead{display:block;width:16in;height:9in;page-break-after:always;font-size:28px}}
"""

_SCRIPT = """
(function(){var s=document.querySelectorAll('.slide'),i=0;
function show(n){i=Math.max(0,Math.min(s.length-1,n));s.forEach(function(e,k){e.classList.toggle('active',k===i)});
history.replaceState(null,'','#'+(i+1))}
document.addEventListener('keydown',function(e){var k=e.key;
if(k==='ArrowRight'||k==='ArrowDown'||k==='PageDown'||k===' '){show(i+1);e.preventDefault()}
else if(k==='ArrowLeft'||k==='ArrowUp'||k==='PageUp'||k==='Backspace'){show(i-1);e.preventDefault()}
else if(k==='Home'){show(0)}else if(k==='End'){show(s.length-1)}});
document.addEventListener('click',function(){show(i+1)});
show((parseInt(location.hash.slice(1),10)||1)-1)})();
"""

_CSP = ("default-src 'none'; img-src data: https: http:; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")


def _markdown(resolve: ImageResolver):
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML

    md = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])
    assert isinstance(md.renderer, RendererHTML)  # MarkdownIt's default renderer; its protocol has no rules
    default_image = md.renderer.rules["image"]

    def image(renderer, tokens, idx, options, env):
        token = tokens[idx]
        src = str(token.attrs.get("src", ""))
        if not src.startswith(("http://", "https://", "data:")):
            found = resolve(src)
            if found is None:
                return html.escape(token.content or src)  # the alt text, as Obsidian shows a missing picture
            mime, data = found
            token.attrs["src"] = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return default_image(tokens, idx, options, env)

    md.add_render_rule("image", image)
    return md


def _obsidian_to_markdown(text: str) -> str:
    """``![[x.png|alt]]`` → ``![alt](<x.png>)``; ``[[Page|label]]`` → ``label`` (a deck has no wiki to link into)."""
    text = _EMBED.sub(lambda m: f"![{m.group(2) or ''}](<{m.group(1).strip()}>)", text)
    return _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)


def _style(directives: dict) -> str:
    rules = []
    for key, prop in (("backgroundColor", "background"), ("color", "color")):
        value = str(directives.get(key, ""))
        if value and _SAFE_CSS.match(value):
            rules.append(f"{prop}:{value}")
    return f' style="{html.escape(";".join(rules))}"' if rules else ""


def render_deck_html(deck: Deck, title: str, resolve: ImageResolver = lambda src: None) -> str:
    """The deck as a self-contained HTML document.

    Args:
        deck: The parsed deck.
        title: The document's title.
        resolve: Finds the bytes of a slide's local picture (a relative path) or None.
    """
    md = _markdown(resolve)
    title = re.sub(r"[\x00-\x1f\x7f]", " ", title)
    sections = []
    total = len(deck.slides)
    for slide in deck.slides:
        d = slide.directives
        classes = " ".join(["slide", *re.findall(r"[\w-]+", str(d.get("class", "")))])
        parts = [f'<section class="{classes}" id="s{slide.number}"{_style(d)}>']
        if d.get("header"):
            parts.append(f"<header>{html.escape(str(d['header']))}</header>")
        parts.append(md.render(_obsidian_to_markdown(slide.text)))
        if d.get("footer"):
            parts.append(f"<footer>{html.escape(str(d['footer']))}</footer>")
        parts.append(f'<div class="counter">{slide.number} / {total}</div></section>')
        sections.append("\n".join(parts))
    page = (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<div class=\"deck\">\n"
        + "\n".join(sections)
        + f"\n</div>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )
    # A lone surrogate (YAML can spell one) cannot be written as UTF-8: it becomes U+FFFD.
    return page.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
