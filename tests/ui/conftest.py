"""Fixtures for the UI tests: the fake OpenAI-compatible server (``fake_llm``) for the chat.

Imported rather than listed in ``pytest_plugins``: pytest refuses ``pytest_plugins``
in a conftest below the rootdir when the whole suite is collected.
"""

from tests.fakeserver import fake_llm  # noqa: F401 - a fixture, registered by being imported here
