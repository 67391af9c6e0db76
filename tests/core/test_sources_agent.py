"""Sources that are not markdown, through the whole agent: a headless ingest of a real PDF against the
fake model server (real litellm), a picture read by a vision model and by one that cannot see."""

from __future__ import annotations

import pytest

from tests.core import formats_samples as samples
from tests.core.test_headless import fast_client, run
from tests.fakeserver import text, tool_call
from wikitui.core.agent.headless import run_ask, run_ingest

PAPER_PAGE = ("---\ntitle: Attention paper\ntype: source\nsummary: A paper on attention.\nsources: [raw/paper.pdf]\n"
              "---\n\n# Attention paper\n\nPositional encodings give order ([[raw/paper.pdf#page=2]]).\n")


def tool_results(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def image_parts(body: dict) -> list[dict]:
    return [part for m in body["messages"] if isinstance(m.get("content"), list)
            for part in m["content"] if part.get("type") == "image_url"]


def test_wikitui_ingest_of_a_pdf_reads_its_pages_and_cites_one(fake_llm, sample_vault):
    samples.make_pdf(sample_vault / "raw" / "paper.pdf")
    fake_llm.script(
        tool_call("read", path="raw/paper.pdf"),
        text("Plan: a source page for the paper."),
        tool_call("propose_page", path="wiki/sources/attention-paper.md", content=PAPER_PAGE, reason="new source"),
        text("Proposed the source page."),
    )
    code, out, err = run(run_ingest, sample_vault, "raw/paper.pdf", apply=True, client=fast_client())
    assert code == 0, err
    [result] = tool_results(fake_llm.requests[1])
    assert "[page 2]" in result and samples.PAGE_WORDS[1] in result
    assert "cite page N as raw/paper.pdf#page=N" in result
    system = fake_llm.requests[0]["messages"][0]["content"]
    assert "raw/x.pdf#page=3" in system  # the prompt says how to cite a page
    page = (sample_vault / "wiki" / "sources" / "attention-paper.md").read_text()
    assert "[[raw/paper.pdf#page=2]]" in page


def test_ingest_of_an_encrypted_pdf_is_refused_in_one_line(fake_llm, sample_vault):
    samples.make_encrypted_pdf(sample_vault / "raw" / "locked.pdf")
    code, out, err = run(run_ingest, sample_vault, "raw/locked.pdf", client=fast_client())
    assert code == 2, err
    assert "raw/locked.pdf cannot be ingested" in err and "encrypted" in err and "Traceback" not in err
    assert fake_llm.requests == []  # refused before any request


def test_a_model_that_cannot_see_gets_a_description_of_a_picture(fake_llm, sample_vault):
    samples.make_png(sample_vault / "raw" / "photo.png")
    fake_llm.script(tool_call("read", path="raw/photo.png"), text("A blue picture."))
    code, out, err = run(run_ask, sample_vault, "What is in raw/photo.png?", client=fast_client())
    assert code == 0, err
    [result] = tool_results(fake_llm.requests[1])
    assert result.startswith("raw/photo.png: PNG image, 320×200 pixels")
    assert image_parts(fake_llm.requests[1]) == []


@pytest.fixture
def vision_model(fake_llm, monkeypatch):
    """The fake server posing as a model litellm knows can see (OpenAI's gpt-4o)."""
    monkeypatch.setenv("WIKITUI_MODEL", "openai/gpt-4o")
    return fake_llm


def test_a_vision_model_gets_the_picture_itself_after_the_tool_results(vision_model, sample_vault):
    samples.make_png(sample_vault / "raw" / "photo.png")
    vision_model.script(
        tool_call("read", path="raw/photo.png"),
        text("A blue rectangle."),
        text("Still blue."),
    )
    code, out, err = run(run_ask, sample_vault, "What is in raw/photo.png?", client=fast_client())
    assert code == 0, err
    body = vision_model.requests[1]
    [result] = tool_results(body)
    assert "The picture itself follows in the next message" in result
    [part] = image_parts(body)
    assert part["image_url"]["url"].startswith("data:image/png;base64,")
    roles = [m["role"] for m in body["messages"]]
    assert roles[-2:] == ["tool", "user"]  # the pictures come right after the round's tool results
