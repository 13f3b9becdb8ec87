"""An OpenAI Agents SDK agent with engramdb memory: a durable session and remember/recall tools.

Run it against OpenAI, or any OpenAI-compatible server::

    pip install 'engramdb[openai-agents]'
    OPENAI_API_KEY=sk-... python examples/openai_agents_memory.py
    # another server / model: OPENAI_BASE_URL=http://localhost:11434/v1 AGENT_MODEL=llama3.1 ...

The first conversation asks the agent to remember a fact (it calls the ``remember`` tool); a
second, separate conversation asks for it back (it calls ``recall``). Each conversation's
history lives in its own engramdb session.
"""

from __future__ import annotations

import asyncio
import os

from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner
from openai import AsyncOpenAI

from engramdb.integrations.openai_agents import EngramdbSession, memory_tools


async def main() -> None:
    if not os.environ.get("OPENAI_API_KEY"):
        raise SystemExit("Set OPENAI_API_KEY (and OPENAI_BASE_URL for another server) to run this.")
    model = OpenAIChatCompletionsModel(
        model=os.environ.get("AGENT_MODEL", "gpt-4o-mini"), openai_client=AsyncOpenAI()
    )
    agent = Agent(
        name="assistant",
        instructions=(
            "You have a long-term memory. Call remember to store facts the user tells you, and "
            "recall to look facts up before you answer a question about the user."
        ),
        model=model,
        tools=memory_tools(),
    )
    run = RunConfig(tracing_disabled=True)  # keep the example local: send no traces

    first = EngramdbSession("example-chat-1")
    told = await Runner.run(
        agent, "Please remember: my favourite colour is teal.", session=first, run_config=run
    )
    print("chat 1:", told.final_output)

    second = EngramdbSession("example-chat-2")  # a new conversation: only memory knows the fact
    asked = await Runner.run(agent, "What is my favourite colour?", session=second, run_config=run)
    print("chat 2:", asked.final_output)
    print("items in chat 1:", len(await first.get_items()))


if __name__ == "__main__":
    asyncio.run(main())
