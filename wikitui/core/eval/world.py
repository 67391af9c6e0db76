"""The invented world of the eval's second vault: Port Sallowmir, its planted facts and its long chronicle.

The vault (the repository's ``evalworld/`` folder, shipped as ``wikitui.evalworld``)
describes a salt-harbour town made up for the eval: no model has read about it, so
its ask tasks can only be answered by reading its sources through the tools. The
facts below are *planted*: each is stated in ``raw/`` and nowhere in ``wiki/`` (a
test holds that), and two sources contradict each other on the Guild's founding year.

The long source (``raw/chronicle-of-sallowmir.md``, over 30,000 words in twelve
chapters) is generated here, deterministically, rather than stored: its 200 KB of
template prose would double the package's data for text that says nothing a
generator cannot, and the planted facts of its later chapters are defined beside the
text that holds them. It is added only to the copy of the task that ingests it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

# ---------------------------------------------------------------------- the ask tasks' planted facts
LEDGER = "raw/harbour-ledger.md"
DIARY = "raw/tidewatch-diary.md"
CHARTER = "raw/guild-charter.md"
TRAVELLER = "raw/traveller-account.md"
WARDENS = "raw/warden-letters.md"
MILL = "raw/mill-survey.md"

GUILD_PAGE = "wiki/organisations/ostrevan-salt-guild.md"
LIGHT_PAGE = "wiki/places/brelquist-light.md"
FREEZE_PAGE = "wiki/events/great-freeze.md"

#: The ledger's count of pans in 1809, and who counted them.
PANS = "218"
TALLYMAN = "Hamsel Quorrick"
#: The diary's day the harbour froze (year, month, day) and how many days it stayed locked.
FREEZE_DATE = (1811, 2, 9)
FREEZE_DAYS = "23"
#: The planted contradiction: the charter's founding year against the traveller's.
FOUNDED_CHARTER = "1743"
FOUNDED_TRAVELLER = "1751"
#: The warden letters: who followed the first warden, and the tower's height.
SECOND_WARDEN = "Corvane Pellumgate"
TOWER = "127 feet"
#: The mill survey (the evidence task ingests it).
MILL_BUILDER = "Yselde Marrowquin"
MILL_YEAR = "1788"
MILL_BUSHELS = "46 bushels"

#: Values that must never appear in ``wiki/``: they are only in the sources.
RAW_ONLY = (PANS, "9 February 1811", f"{FREEZE_DAYS} days", FOUNDED_CHARTER, FOUNDED_TRAVELLER, SECOND_WARDEN,
            TOWER, MILL_BUILDER, MILL_YEAR, MILL_BUSHELS)

# ---------------------------------------------------------------------- the long chronicle
LONG = "raw/chronicle-of-sallowmir.md"
#: Chapters whose facts an ingest must carry (the later ones: past the first screens of ``read``).
LATE_CHAPTERS = (9, 10, 11, 12)


@dataclass(frozen=True, slots=True)
class ChapterFact:
    """A fact planted in one chapter of the chronicle: the sentence, and the values a page must carry."""

    chapter: int
    sentence: str
    values: tuple[str, ...]


_TITLES = (
    "The Digging of the First Pans", "The Factors of the Mainland", "The Building of the Harbour Wall",
    "The Years of the Flood", "The Chapel and the Bell", "The Quarrel over the Sluices", "The Packet Boat",
    "The Fishing Years", "The Loss of the Quennick", "The Tallow-Master", "The Great Shipment",
    "The New Light",
)

FACTS = (
    ChapterFact(1, "The first pans were dug on the Ostrevan marsh by nine families, who carried the clay in baskets.",
                ("nine families",)),
    ChapterFact(2, "The factors of the mainland paid four pence a bushel, and the panners called them the gulls.",
                ("four pence",)),
    ChapterFact(3, "The harbour wall was built of dark stone from the quarry at Ulvenshaw over eleven summers.",
                ("Ulvenshaw",)),
    ChapterFact(4, "The flood of the great spring tide drowned sixty pans and the chapel floor.", ("sixty pans",)),
    ChapterFact(5, "The chapel bell was cast at Port Sallowmir by the bell-founder Maddery Loskin.",
                ("Maddery Loskin",)),
    ChapterFact(6, "The quarrel over the sluices ran for seven years and was settled by the drawing of lots.",
                ("drawing of lots",)),
    ChapterFact(7, "The packet boat from the mainland came every ninth day, weather allowing, and carried letters "
                   "and lamp oil.", ("every ninth day",)),
    ChapterFact(8, "In the fishing years the young men went north to the Orrisfell banks after the herring.",
                ("Orrisfell",)),
    ChapterFact(9, "The brig Quennick, of 212 tons, was lost with all her salt on the Skerrow Bar in a night of "
                   "fog.", ("212 tons", "Skerrow Bar")),
    ChapterFact(10, "The Guild's tallow-master in those years was Tobrin Hesselvey, who made the candles and the "
                    "lamp wicks for the light.", ("Tobrin Hesselvey",)),
    ChapterFact(11, "The great shipment sent 1,406 barrels of salt to the mainland in one autumn, the most the "
                    "Guild ever sent.", ("1,406 barrels",)),
    ChapterFact(12, "The new light on Brelquist Point was first lit on 2 November 1824, and the whole town walked "
                    "out to see it.", ("2 November 1824",)),
)

_PEOPLE = ("the panners", "the master of the Guild", "the tallyman", "the wardens of the light", "the fisher wives",
           "the children of the Reach", "the chapel elders", "the boatmen", "the old families", "the young men")
_PLACES = ("the Keddering Reach", "the Ostrevan marsh", "the harbour wall", "Brelquist Point", "the Guild hall",
           "the long street", "the salt stores", "the sluice gates", "the chapel yard", "the moorings")
_THINGS = ("the brine", "the salt", "the tide", "the wind from the north", "the price of salt", "the grey weather",
           "the ledger", "the rakes and baskets", "the lamp oil", "the spring gales")
_SENTENCES = (
    "In those years {people} spent their days by {place}, watching {thing} as their parents had done before them.",
    "It was said in the town that {thing} was kinder to {people} in the old days, though nobody could say when "
    "the old days had been.",
    "The work went on at {place} from the first light until the evening, and {people} spoke of little but {thing}.",
    "When {thing} failed them, {people} went up to {place} and waited there for better news from the sea.",
    "Nobody who lived by {place} could forget {thing}, and {people} told the story of it to every stranger.",
    "A season was good or bad by {thing}, and {people} kept the count of it on the walls of {place}.",
    "There were quarrels, as there are in every small town, and {people} carried them down to {place} to be "
    "settled.",
    "The accounts of those years are short, for {people} had little time to write, and {thing} filled what time "
    "they had.",
    "Visitors who came to {place} remarked on {thing}, and on how little {people} seemed to mind it.",
    "Each spring {people} mended what the winter had broken at {place}, and made ready for {thing} once more.",
    "The older folk held that {thing} had a mind of its own, and {people} did not laugh at them for it.",
    "From {place} one could see the whole of the Reach, and {people} went there to judge {thing} for the day.",
)
#: Sentences per paragraph and paragraphs per chapter: about 2,700 words a chapter.
_PER_PARAGRAPH = 5
_PARAGRAPHS = 24
#: The paragraph (0-based) of a chapter that carries its planted fact.
_FACT_AT = 13


def _sentence(chapter: int, paragraph: int, n: int) -> str:
    k = chapter * 131 + paragraph * 17 + n * 7
    template = _SENTENCES[(k + n) % len(_SENTENCES)]
    return template.format(people=_PEOPLE[k % len(_PEOPLE)], place=_PLACES[(k // 3) % len(_PLACES)],
                           thing=_THINGS[(k // 7 + n) % len(_THINGS)])


def _paragraph(chapter: int, paragraph: int) -> str:
    text = " ".join(_sentence(chapter, paragraph, n) for n in range(_PER_PARAGRAPH))
    return text[0].upper() + text[1:]


@cache
def long_source() -> str:
    """The chronicle's text: a title, a note, then twelve chapters of one-line paragraphs, each with its fact."""
    lines = ["---", 'title: "A Chronicle of Sallowmir"', "---", "", "# A Chronicle of Sallowmir", "",
             "*Written down by the chapel elders from what the old families remembered, one chapter to a part of "
             "the town's history.*", ""]
    for number, title in enumerate(_TITLES, 1):
        lines += [f"## Chapter {number}: {title}", ""]
        fact = FACTS[number - 1].sentence
        for p in range(_PARAGRAPHS):
            paragraph = _paragraph(number, p)
            lines += [f"{paragraph} {fact}" if p == _FACT_AT else paragraph, ""]
    return "\n".join(lines)


def chapter_lines(chapter: int) -> range:
    """The 1-based line numbers (as ``read`` numbers them) of ``chapter``, its heading included."""
    lines = long_source().splitlines()
    start = lines.index(f"## Chapter {chapter}: {_TITLES[chapter - 1]}") + 1
    if chapter == len(_TITLES):
        return range(start, len(lines) + 1)
    end = lines.index(f"## Chapter {chapter + 1}: {_TITLES[chapter]}") + 1
    return range(start, end)


def fact_lines(chapter: int) -> range:
    """The 1-based line number (as a range of one) of the paragraph that holds ``chapter``'s planted fact."""
    lines = long_source().splitlines()
    fact = FACTS[chapter - 1].sentence
    number = next(n for n in chapter_lines(chapter) if fact in lines[n - 1])
    return range(number, number + 1)


def sources() -> dict[str, str]:
    """The sources added per task (by vault path): the long chronicle."""
    return {LONG: long_source()}
