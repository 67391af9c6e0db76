"""Fixtures for the core tests: the fake OpenAI-compatible server (``fake_llm``).

Imported rather than listed in ``pytest_plugins``: pytest refuses ``pytest_plugins``
in a conftest below the rootdir when the whole suite is collected.
"""

from tests.fakeserver import fake_llm  # noqa: F401 - a fixture, registered by being imported here
from tests.fakeweb import fake_web  # noqa: F401 - the fake search engine and web site (research)
