"""Which panes the workspace shows, and how wide, for a terminal size (DESIGN §3, "Width decides the layout").

At :data:`WIDE` columns and more the workspace has three columns: Sources and
Wiki, the page over its links, the agent. Narrower, the agent shares the page's
column: it is either lowered (the page shows) or raised over it (``f5``,
``ctrl+a``), so the page is never squeezed. In every layout the page keeps at
least :data:`PAGE_MIN` columns: the side columns give way first.

:func:`plan_layout` is pure; the screen applies its :class:`Layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: From this width on: three columns.
WIDE = 110
#: Below this width the left column hides itself (unless shown on purpose).
LEFT_MIN_WIDTH = 64
#: Below this height the links panel hides itself (unless shown on purpose).
LINKS_MIN_HEIGHT = 30
#: The page's narrowest width while the left column or the agent sits beside it.
PAGE_MIN = 40
#: Column widths and the links panel's height: (default, smallest, largest).
SIZES = {"left": (30, 16, 70), "agent": (40, 24, 90), "links": (10, 4, 30)}
#: Left column width on a terminal narrower than 100 columns (until the user resizes it).
NARROW_LEFT = 24


@dataclass(frozen=True, kw_only=True)
class Layout:
    """What to show and how wide.

    Attributes:
        wide: Three columns (else the agent shares the page's column).
        left: Show the left column (Sources and Wiki).
        left_width: Its width in cells.
        centre: Show the page and its links.
        agent: Show the agent pane.
        agent_width: Its width in cells, or None to take the page's place (narrow, raised).
        links: Show the links panel under the page.
        links_height: Its height in rows.
    """

    wide: bool
    left: bool
    left_width: int
    centre: bool
    agent: bool
    agent_width: int | None
    links: bool
    links_height: int


def plan_layout(
    width: int,
    height: int,
    *,
    shown: dict[str, bool | None],
    sizes: dict[str, int],
    agent_raised: bool,
) -> Layout:
    """The layout of a ``width`` x ``height`` screen.

    Args:
        width: Columns of the screen.
        height: Rows of the screen.
        shown: The user's choice per pane ("left", "links", "agent"); None: decided by the size.
            In a narrow layout the agent's choice is ``agent_raised`` instead.
        sizes: The user's sizes per pane ("left", "agent", "links").
        agent_raised: In a narrow layout, whether the agent is raised over the page.
    """
    wide = width >= WIDE
    left = shown["left"] if shown["left"] is not None else width >= LEFT_MIN_WIDTH
    default_left = SIZES["left"][0]
    left_width = NARROW_LEFT if width < 100 and sizes["left"] == default_left else sizes["left"]
    links = shown["links"] if shown["links"] is not None else height >= LINKS_MIN_HEIGHT
    if wide:
        agent = shown["agent"] if shown["agent"] is not None else True
        agent_width: int | None = sizes["agent"]
        centre = True
    else:
        agent, centre = agent_raised, not agent_raised
        agent_width = None
    # The page keeps PAGE_MIN columns: the left column gives way first, then the agent.
    beside = (left_width if left else 0) + (agent_width if agent and agent_width else 0)
    excess = beside + PAGE_MIN - width
    if excess > 0 and left:
        cut = min(excess, left_width - SIZES["left"][1])
        left_width -= cut
        excess -= cut
    if excess > 0 and agent and agent_width:
        agent_width -= min(excess, agent_width - SIZES["agent"][1])
    return Layout(wide=wide, left=left, left_width=left_width, centre=centre, agent=agent, agent_width=agent_width,
                  links=links, links_height=sizes["links"])
