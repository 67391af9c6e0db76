"""Benchmark of the chat while an answer streams in; prints one JSON object.

Run: ``.venv/bin/python bench/chat.py`` (from the project root).

A headless app shows the chat pane (64 columns) on a copy of the sample vault. The
fake OpenAI-compatible server streams a 2,000-token markdown answer (paragraphs,
lists, ``[[links]]``, a code fence) at 200 tokens a second, one token (~4
characters) per chunk, through the real litellm client. A timer asks to run every
10 ms and records how late each tick is: the largest lateness is the longest time
the UI could not answer a key press. Target: no gap above 100 ms.

Figures: ``max_gap_ms`` (the target), ``p99_gap_ms``, ``mean_gap_ms`` while the answer
streams; ``max_gap_after_turn_ms`` in the second after it (the full garbage collection
the chat holds off during a turn runs then); the stream's duration and the number of
deltas the answer arrived in.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKENS = 2000
RATE = 200  # tokens a second
CHARS_PER_TOKEN = 4
TICK = 0.010
TARGET_MS = 100.0


def answer_text(tokens: int) -> str:
    """A markdown answer of about ``tokens`` tokens, shaped like an agent's."""
    blocks = [
        "## What the wiki says\n\nThe [[White Rabbit]] is late for the Duchess, and his hurry pulls [[Alice]] "
        "into Wonderland; the **watch** he checks is the first sign that time runs oddly there ([[Time]]).\n",
        "- He mistakes Alice for his housemaid, *Mary Ann* ([[Chapter 4: The Rabbit Sends in a Little Bill]]).\n"
        "- He is the herald at the trial ([[Justice and the Trial]]).\n- He fans himself with the [[Fan and Gloves]].\n",
        "| page | claim |\n| --- | --- |\n| [[Hatter's Watch]] | runs two days wrong |\n| [[Time]] | is a person |\n",
        "```python\ndef late(minutes: int) -> bool:\n    return minutes > 0  # always\n```\n",
        "> Oh dear! Oh dear! I shall be too late!\n",
    ]
    out: list[str] = []
    while sum(len(b) for b in out) < tokens * CHARS_PER_TOKEN:
        out.append(blocks[len(out) % len(blocks)])
    return "\n".join(out)[: tokens * CHARS_PER_TOKEN]


async def measure(vault_root: Path, fake) -> dict:
    from textual.app import App, ComposeResult

    from tests.fakeserver import text
    from wikitui.core.workspace import Workspace
    from wikitui.ui.chat.controller import load_model_client
    from wikitui.ui.widgets.chat_pane import ChatPane

    body = answer_text(TOKENS)
    fake.script(text(body, chunk=CHARS_PER_TOKEN, delay=1.0 / RATE, usage=(2000, TOKENS)))

    class Host(App):
        CSS = "ChatPane { width: 64; }"

        def __init__(self) -> None:
            super().__init__()
            self.workspace = Workspace.open(vault_root)
            self.workspace.load_graph()

        def compose(self) -> ComposeResult:
            yield ChatPane(self.workspace)

    load_model_client()  # as the chat does before its first turn; the import (seconds) is not measured
    app = Host()
    gaps: list[float] = []
    deltas = 0
    async with app.run_test(size=(64, 40)) as pilot:
        pane = app.query_one(ChatPane)
        expected = [0.0]
        measuring = [False]

        def tick() -> None:
            now = time.perf_counter()
            if measuring[0] and expected[0]:
                gaps.append(max(0.0, now - expected[0]))
            expected[0] = now + TICK

        app.set_interval(TICK, tick)
        original = pane.controller.on_event

        def on_event(event) -> None:
            nonlocal deltas
            if type(event).__name__ == "TextDelta":
                deltas += 1
                measuring[0] = True
            original(event)

        pane.controller.on_event = on_event  # type: ignore[method-assign]
        pane.controller.session.on_event = on_event
        started = time.perf_counter()
        pane.submit("Tell me about the White Rabbit")
        while pane.busy or not deltas:
            await pilot.pause(0.05)
            if time.perf_counter() - started > 120:
                raise RuntimeError("the stream did not finish within 120 s")
        duration = time.perf_counter() - started
        streamed = len(gaps)
        # A second more: the full garbage collection held off during the stream runs now.
        await pilot.pause(1.0)
        measuring[0] = False
        after = gaps[streamed:]
        del gaps[streamed:]
        shown = pane.chat_log.answers[-1].text
    ms = sorted(g * 1000 for g in gaps)
    return {
        "tokens": TOKENS,
        "rate_tokens_per_s": RATE,
        "answer_chars": len(body),
        "answer_complete": shown == body,
        "deltas": deltas,
        "stream_s": round(duration, 2),
        "ticks": len(ms),
        "max_gap_ms": round(ms[-1], 1) if ms else None,
        "p99_gap_ms": round(ms[int(len(ms) * 0.99) - 1], 1) if ms else None,
        "mean_gap_ms": round(statistics.fmean(ms), 2) if ms else None,
        "max_gap_after_turn_ms": round(max(after) * 1000, 1) if after else None,
        "target_ms": TARGET_MS,
        "ok": bool(ms) and ms[-1] <= TARGET_MS,
    }


def main() -> None:
    from tests.fakeserver import FAKE_API_KEY, FAKE_MODEL, FakeLLM

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update({
            "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        })
        vault = Path(tmp) / "vault"
        shutil.copytree(ROOT / "sample", vault, ignore=shutil.ignore_patterns(".wikitui"))
        fake = FakeLLM().start()
        os.environ.update({"WIKITUI_MODEL": FAKE_MODEL, "WIKITUI_API_BASE": fake.api_base,
                           "OPENAI_API_KEY": FAKE_API_KEY})
        try:
            result = asyncio.run(measure(vault, fake))
        finally:
            fake.stop()
    print(json.dumps({"stream_frame_gaps": result}, indent=2))


if __name__ == "__main__":
    main()
