"""Real files for the format tests, made by the libraries people make them with.

A PDF with text on three pages (fpdf2), a scanned-like PDF with only a picture, an
encrypted PDF (pypdf), a DOCX (python-docx), a PPTX (python-pptx), an XLSX
(openpyxl), a PNG (pillow) and a news article page with the menus, scripts, cookie
banner and footer a real one has. Markers in the page's chrome let tests check that
none of it reaches the article.
"""

from __future__ import annotations

from pathlib import Path

#: Words that only appear in the page's chrome (menus, scripts, banner, footer, related box).
CHROME_MARKERS = ("MENU-SPORT-MARKER", "TRACKING-SCRIPT-MARKER", "INLINE-ARTICLE-SCRIPT-MARKER",
                  "COOKIE-MARKER", "FOOTER-MARKER", "RELATED-MARKER", "analytics.js", "dataLayer")

NEWS_ARTICLE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Glacier retreat speeds up in the Alps | The Daily Planet</title>
<meta property="og:title" content="Glacier retreat speeds up in the Alps">
<meta name="author" content="Maria Rossi">
<meta property="article:published_time" content="2026-03-14T08:00:00Z">
<script>window.dataLayer=[];function track(){console.log("TRACKING-SCRIPT-MARKER")}</script>
<style>.nav{color:red}</style>
</head><body>
<header><nav class="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li>
<li><a href="/sport">MENU-SPORT-MARKER</a></li><li><a href="/login">Sign in</a></li></ul></nav></header>
<div class="cookie-banner">We use cookies. COOKIE-MARKER <button>Accept</button></div>
<main><article>
<h1>Glacier retreat speeds up in the Alps</h1>
<p class="byline">By Maria Rossi, 14 March 2026</p>
<p>Swiss glaciers lost four percent of their remaining volume last year, the second-largest loss since
measurements began in 1914, according to the national monitoring network.</p>
<p>Researchers at the Glacier Monitoring Service said that a dry winter followed by repeated summer heatwaves left
many of the smaller glaciers with no snow cover by the end of July, exposing the ice to the sun for weeks.</p>
<h2>Smaller glaciers disappear first</h2>
<p>Of the 176 glaciers surveyed, twelve have split into separate fragments and four are now classified as dead
ice, no longer moving downhill. <a href="/science/dead-ice">Read more about dead ice</a>.</p>
<ul><li>Total loss: 4.0 percent of volume</li><li>Average thinning: 2.1 metres</li>
<li>Largest loss: the Gries glacier</li></ul>
<p>"We are watching them disappear within a single career," said Dr. Anna Keller, who has led the survey since
2009.</p>
<script>track("INLINE-ARTICLE-SCRIPT-MARKER")</script>
<p>The report recommends expanding the network of automatic weather stations near the glacier tongues and
publishing the data openly every quarter.</p>
</article>
<aside class="related"><h3>Related</h3><ul><li><a href="/a">RELATED-MARKER one</a></li>
<li><a href="/b">Another story</a></li></ul></aside>
</main>
<footer><p>&copy; 2026 The Daily Planet. FOOTER-MARKER. <a href="/privacy">Privacy</a> &middot;
<a href="/terms">Terms</a></p></footer>
<script src="https://cdn.example.com/analytics.js"></script>
</body></html>
"""

#: Words of each page of :func:`make_pdf` (page N holds ``PAGE_WORDS[N-1]``).
PAGE_WORDS = ("Attention mechanisms weigh every token", "Positional encodings give order",
              "Results on translation benchmarks")


def make_pdf(path: Path, pages: tuple[str, ...] = PAGE_WORDS, *, title: str | None = None) -> Path:
    """A PDF with one paragraph of text on each page."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    if title:
        pdf.set_title(title)
    for n, words in enumerate(pages, 1):
        pdf.add_page()
        if words:
            pdf.multi_cell(0, 8, f"Section {n}\n{words}. " + "This sentence fills the page. " * 4)
    pdf.output(str(path))
    return path


def make_scanned_pdf(path: Path, pages: int = 2) -> Path:
    """A PDF whose pages are only pictures (what a scanner makes): no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    picture = path.with_suffix(".scan.png")
    img = Image.new("L", (400, 560), 255)
    ImageDraw.Draw(img).rectangle((40, 40, 360, 80), fill=0)  # a dark band, like a scanned heading
    img.save(picture)
    pdf = FPDF()
    for _ in range(pages):
        pdf.add_page()
        pdf.image(str(picture), x=0, y=0, w=210)
    pdf.output(str(path))
    picture.unlink()
    return path


def make_encrypted_pdf(path: Path, *, user_password: str = "secret") -> Path:
    """A copy of :func:`make_pdf`'s PDF encrypted with AES (an empty password only locks permissions)."""
    from pypdf import PdfWriter

    plain = make_pdf(path.with_suffix(".plain.pdf"))
    writer = PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    writer.write(str(path))
    plain.unlink()
    return path


def make_docx(path: Path) -> Path:
    """A Word document: a title, a heading, paragraphs and a table."""
    import docx

    doc = docx.Document()
    doc.add_heading("Quarterly field report", 0)
    doc.add_heading("Findings", level=1)
    doc.add_paragraph("The survey counted 176 glaciers in the northern range.")
    table = doc.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate((("glacier", "loss"), ("Gries", "6.1%"), ("Aletsch", "2.2%"))):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b
    doc.save(str(path))
    return path


def make_pptx(path: Path, slides: int = 3) -> Path:
    """A PowerPoint deck: a title and one bullet per slide."""
    import pptx

    deck = pptx.Presentation()
    for n in range(1, slides + 1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide title {n}"
        slide.placeholders[1].text = f"Point number {n} of the talk"
    deck.save(str(path))
    return path


def make_xlsx(path: Path) -> Path:
    """An Excel workbook with two sheets."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Losses"
    sheet.append(["glacier", "loss"])
    sheet.append(["Gries", 6.1])
    other = book.create_sheet("Stations")
    other.append(["station", "altitude"])
    other.append(["Jungfraujoch", 3571])
    book.save(str(path))
    return path


def make_png(path: Path, size: tuple[int, int] = (320, 200)) -> Path:
    """A PNG picture."""
    from PIL import Image

    Image.new("RGB", size, (30, 120, 200)).save(path)
    return path
