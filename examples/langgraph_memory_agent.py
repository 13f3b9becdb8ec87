"""A LangGraph agent that remembers a user fact in one thread and uses it in another.

    pip install 'engramdb[langgraph]'
    python examples/langgraph_memory_agent.py

Conversation threads are LangGraph checkpoints (each thread starts empty); what the agent learns
about the user goes to engramdb through ``EngramdbStore``, shared by every thread of that user.
Thread 1 says "Remember that my favourite colour is teal."; thread 2, with no history, asks for
the colour and the agent answers from memory.

The LLM is any OpenAI-compatible endpoint named by ``LLM_ENDPOINT`` (with ``LLM_API_KEY`` and
``LLM_MODEL``); without one the agent answers with the memories it found, so the example runs
offline. Memory goes to ``ENGRAMDB_DATA_DIR`` when set, else to a temporary directory.
"""

from __future__ import annotations

import os
import tempfile
import uuid

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config, get_store
from langgraph.graph import START, MessagesState, StateGraph

from engramdb.integrations.langgraph import EngramdbStore


def ask_llm(system: str, messages: list[BaseMessage]) -> str | None:
    """The answer of the configured OpenAI-compatible LLM, or None when there is none."""
    endpoint = os.environ.get("LLM_ENDPOINT")
    if not endpoint:
        return None
    from openai import OpenAI

    client = OpenAI(base_url=endpoint, api_key=os.environ.get("LLM_API_KEY", "none"))
    roles = {"human": "user", "ai": "assistant", "system": "system"}
    reply = client.chat.completions.create(
        model=os.environ.get("LLM_MODEL", "gpt-4o-mini"),
        messages=[{"role": "system", "content": system}]
        + [{"role": roles.get(m.type, "user"), "content": m.text} for m in messages],
    )
    return reply.choices[0].message.content or ""


def chat(state: MessagesState) -> dict[str, list[AIMessage]]:
    store = get_store()
    user_id = get_config()["configurable"]["user_id"]
    namespace = ("memories", user_id)
    said = state["messages"][-1].text
    if said.lower().startswith("remember that "):
        fact = said[len("remember that ") :].rstrip(".")
        store.put(namespace, str(uuid.uuid4()), {"text": fact})
    memories = [item.value["text"] for item in store.search(namespace, query=said, limit=3)]
    system = "You are a helpful assistant. What you know about the user:\n" + "\n".join(
        f"- {m}" for m in memories
    )
    answer = ask_llm(system, state["messages"])
    if answer is None:
        answer = "From memory: " + ("; ".join(memories) if memories else "nothing yet")
    return {"messages": [AIMessage(answer)]}


def main() -> None:
    data_dir = os.environ.get("ENGRAMDB_DATA_DIR") or tempfile.mkdtemp(prefix="engramdb-lg-")
    with EngramdbStore(data_dir=data_dir, index={"fields": ["text"]}) as store:
        builder = StateGraph(MessagesState)
        builder.add_node("chat", chat)
        builder.add_edge(START, "chat")
        graph = builder.compile(checkpointer=InMemorySaver(), store=store)

        def say(thread: str, text: str) -> str:
            config = {"configurable": {"thread_id": thread, "user_id": "user-1"}}
            result = graph.invoke({"messages": [("user", text)]}, config)  # type: ignore[arg-type]
            return str(result["messages"][-1].text)

        print("thread 1:", say("thread-1", "Remember that my favourite colour is teal."))
        print("thread 2:", say("thread-2", "What is my favourite colour?"))
        print("stored:", [item.value for item in store.search(("memories", "user-1"))])


if __name__ == "__main__":
    main()
