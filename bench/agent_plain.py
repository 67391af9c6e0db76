"""A plain tool loop over litellm or the OpenAI SDK: ``bench/agent.py``'s comparison (not part of the test run).

What a few lines of code straight on a library do with the same scripted answers: stream a
request, gather its text and tool calls, answer each call with its own arguments (no tools run,
no transcript, no fitting), send the next request, until an answer has no tool call. So the
gap between two requests at the server is the library's own floor: what wikitui adds is the rest.

``python bench/agent_plain.py litellm|sdk`` runs one ask as a process of its own (the model,
address and key from ``WIKITUI_MODEL``, ``WIKITUI_API_BASE``, ``OPENAI_API_KEY``), so its
start, litellm's or the SDK's import included, counts as a user's would.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

#: Tool schemas of the names the scripts call, each taking any object (a plain loop checks nothing).
TOOLS = [{"type": "function", "function": {"name": name, "description": name, "parameters": {"type": "object"}}}
         for name in ("search", "read", "propose_page", "propose_edit")]
QUESTION = "A question about the Cheshire Cat"


def _model() -> tuple[str, str, str]:
    model = os.environ["WIKITUI_MODEL"]
    return model, model.split("/", 1)[-1], os.environ["WIKITUI_API_BASE"]


async def _litellm_round(litellm, messages: list[dict]) -> tuple[str, list[dict]]:
    model, _, base = _model()
    stream = await litellm.acompletion(model=model, api_base=base, api_key=os.environ["OPENAI_API_KEY"],
                                       messages=messages, tools=TOOLS, stream=True)
    return await _gather(stream)


async def _sdk_round(client, messages: list[dict]) -> tuple[str, list[dict]]:
    _, name, _ = _model()
    stream = await client.chat.completions.create(model=name, messages=messages, tools=TOOLS, stream=True)
    return await _gather(stream)


async def _gather(stream) -> tuple[str, list[dict]]:
    text: list[str] = []
    calls: dict[int, dict] = {}
    async for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            text.append(delta.content)
        for part in delta.tool_calls or ():
            call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
            call["id"] = part.id or call["id"]
            if part.function is not None:
                call["name"] += part.function.name or ""
                call["arguments"] += part.function.arguments or ""
    return "".join(text), [calls[i] for i in sorted(calls)]


async def plain_loop(kind: str, question: str = QUESTION, rounds: int | None = None) -> str:
    """One turn through the plain loop over ``kind`` (``litellm`` or ``sdk``); returns the last answer's text.

    Without ``rounds`` it ends at the first answer with no tool call (an ask); with it, it sends
    that many requests, a text-only answer followed by a user's "Go on." (an ingest's plan, then its writing).
    """
    if kind == "litellm":
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        import litellm

        async def round_(messages):
            return await _litellm_round(litellm, messages)
    else:
        from openai import AsyncOpenAI

        _, _, base = _model()
        client = AsyncOpenAI(base_url=base, api_key=os.environ["OPENAI_API_KEY"])

        async def round_(messages):
            return await _sdk_round(client, messages)

    messages: list[dict] = [{"role": "user", "content": question}]
    sent = 0
    while True:
        text, calls = await round_(messages)
        sent += 1
        if rounds is not None and sent >= rounds or rounds is None and not calls:
            if kind != "litellm":
                await client.close()
            return text
        if not calls:
            messages += [{"role": "assistant", "content": text}, {"role": "user", "content": "Go on."}]
            continue
        messages.append({"role": "assistant", "content": text or None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls]})
        messages += [{"role": "tool", "tool_call_id": c["id"], "content": c["arguments"] or "{}"} for c in calls]


if __name__ == "__main__":
    print(json.dumps(asyncio.run(plain_loop(sys.argv[1]))[:60]))
