"""Fixtures for the UI tests: the fake OpenAI-compatible server (``fake_llm``) for the chat.

Imported rather than listed in ``pytest_plugins``: pytest refuses ``pytest_plugins``
in a conftest below the rootdir when the whole suite is collected.
"""

from tests.fakeserver import fake_llm  # noqa: F401 - a fixture, registered by being imported here
from tests.fakeweb import fake_web  # noqa: F401 - the fake search engine and web site (research)

import pytest  # noqa: E402 - after the fixture import above, which must stay first


@pytest.fixture(autouse=True)
def pictures_as_half_blocks(monkeypatch):
    """Pictures drawn as half blocks whatever terminal runs the tests (kitty's would change every snapshot).

    A test of another drawing method sets ``WIKITUI_PICTURES`` itself.
    """
    monkeypatch.setenv("WIKITUI_PICTURES", "halfcell")
