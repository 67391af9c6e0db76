"""The model's context window (DESIGN §8): config, litellm, the server's /models, else 8,192 — never 128k.

The fake server advertises a window the way llama.cpp and vLLM do and enforces it the
way llama.cpp does (HTTP 400 "exceeds the available context size").
"""

from __future__ import annotations

import pytest

from tests.fakeserver import text
from wikitui.core.agent.events import AgentError
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.session import AgentSession
from wikitui.core.agent.window import DEFAULT_CONTEXT_TOKENS, window_from_models
from wikitui.core.config.settings import Settings, load_settings
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def client_for(fake, **overrides) -> LLMClient:
    settings = load_settings()
    for k, v in overrides.items():
        setattr(settings, k, v)
    return LLMClient(settings)


def test_an_unknown_model_without_a_server_gets_8192_never_128k():
    window = LLMClient(Settings(model="openai/some-local-model")).context_window_info()
    assert (window.tokens, window.source) == (8192, "the default for models whose window is unknown")
    assert DEFAULT_CONTEXT_TOKENS == 8192


def test_config_wins_then_litellm_then_the_server(fake_llm):
    fake_llm.model_entry = {"meta": {"n_ctx_train": 4096}}
    assert client_for(fake_llm, context_tokens=32768).context_window_info().tokens == 32768
    known = LLMClient(Settings(model="openai/gpt-4o", api_base=fake_llm.api_base)).context_window_info()
    assert (known.tokens, known.source) == (128_000, "litellm's model data")
    found = client_for(fake_llm).context_window_info()
    assert (found.tokens, found.source) == (4096, "the server's /models (meta.n_ctx_train)")
    assert fake_llm.models_requests == 1  # the config and litellm answered without asking the server


@pytest.mark.parametrize("entry, tokens, field", [
    ({"max_model_len": 16384}, 16384, "max_model_len"),  # vLLM
    ({"context_length": 32768}, 32768, "context_length"),  # OpenRouter, LM Studio
    ({"meta": {"n_ctx_train": 2048, "n_vocab": 49152}}, 2048, "meta.n_ctx_train"),  # llama.cpp
])
def test_each_server_family_is_read(fake_llm, entry, tokens, field):
    fake_llm.model_entry = entry
    found = client_for(fake_llm).context_window_info()
    assert (found.tokens, found.source) == (tokens, f"the server's /models ({field})")


def test_llama_cpp_props_caps_the_training_window_with_the_running_one(fake_llm):
    fake_llm.model_entry = {"meta": {"n_ctx_train": 32768}}
    fake_llm.props = {"default_generation_settings": {"n_ctx": 4096}}
    found = client_for(fake_llm).context_window_info()
    assert (found.tokens, found.source) == (4096, "the server's /props (n_ctx)")


def test_a_server_that_does_not_say_gets_the_default(fake_llm):
    assert client_for(fake_llm).context_window_info().tokens == 8192
    assert window_from_models({"data": [{"id": "a"}, {"id": "b", "max_model_len": 9}]}, "openai/c") is None
    assert window_from_models("not json", "m") is None


def test_context_tokens_is_read_from_the_vault_config(sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("context_tokens = 4096\n")
    settings = load_settings(Vault.open(sample_vault))
    assert settings.context_tokens == 4096 and not settings.warnings


class Chat:
    def __init__(self, root):
        self.vault = Vault.open(root)
        self.events: list = []
        self.client = LLMClient(load_settings(self.vault))
        self.session = AgentSession(self.vault, LinkGraph.load(self.vault), None, load_settings(self.vault),
                                    client=self.client, on_event=self.events.append)


async def test_the_first_request_fits_a_small_local_window(fake_llm, sample_vault):
    """An 4k llama.cpp model: WIKI.md + index.md are cut to fit, tool schemas counted; the server accepts it."""
    fake_llm.model_entry = {"meta": {"n_ctx_train": 4096}}
    fake_llm.context_limit = 4096
    fake_llm.script(text("Alice is the heroine [[Alice]]."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who is Alice?")
    assert not done.failed, [e.message for e in chat.events if isinstance(e, AgentError)]
    request = fake_llm.requests[0]
    sent = fake_llm.count_tokens(request)
    assert sent <= 4096 - 512  # an eighth kept for the answer
    system = request["messages"][0]["content"]
    assert "is cut here" in system  # WIKI.md / index.md were cut to a quarter, with a note saying so
    wiki_and_index = system[system.index("## WIKI.md"):system.index("## Task")]
    assert chat.client.count_tokens(text=wiki_and_index) <= 4096 // 4 + 200  # + headings and the cut notes


async def test_an_overflow_names_the_window_and_what_was_sent(fake_llm, sample_vault):
    """The server says 8k in /models but was started with less: the message says what to do."""
    fake_llm.model_entry = {"meta": {"n_ctx_train": 8192}}
    fake_llm.context_limit = 2500
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who is Alice?")
    assert done.failed
    (err,) = [e for e in chat.events if isinstance(e, AgentError)]
    message = err.message
    assert message.startswith("the request did not fit openai/fake-model's context window of 8,192 tokens "
                              "(the server's /models (meta.n_ctx_train))")
    assert "tokens were sent (instructions with WIKI.md and index.md" in message and "tool schemas" in message
    assert "set context_tokens in .wikitui/config.toml" in message
    assert "start a new session" not in message and err.exit_code == 3


async def test_a_window_too_small_for_the_instructions_is_said_before_any_request(fake_llm, sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("context_tokens = 700\n")  # too small even for compact
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who is Alice?")
    assert done.failed and fake_llm.requests == []
    (err,) = [e for e in chat.events if isinstance(e, AgentError)]
    assert err.message.startswith("openai/fake-model's context window of 700 tokens (context_tokens in the "
                                  "config) cannot hold this request")
    assert "tool schemas" in err.message
