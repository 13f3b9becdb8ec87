"""LlamaIndex with engramdb memory: a retriever over remembered text and a Memory block.

Runs offline as it is (engramdb's embedded defaults, no API key)::

    pip install 'engramdb[llamaindex]'
    python examples/llamaindex_memory.py

1. ``EngramdbRetriever`` answers LlamaIndex retrieval from ``recall``: each result is a
   ``NodeWithScore`` whose metadata says where it came from.
2. ``EngramdbMemoryBlock`` gives LlamaIndex's ``Memory`` a long-term memory: messages that
   leave the short-term chat history are remembered, and come back when they are relevant.
"""

from __future__ import annotations

import asyncio

from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory

import engramdb
from engramdb.integrations.llamaindex import EngramdbMemoryBlock, EngramdbRetriever


async def retrieve() -> None:
    await engramdb.remember("Owls hunt small rodents at night.", dataset_name="nature")
    await engramdb.remember("Bats sleep in caves during the day.", dataset_name="nature")
    retriever = EngramdbRetriever(datasets=["nature"], top_k=2)
    for hit in await retriever.aretrieve("When do owls hunt?"):
        meta = hit.node.metadata
        where = f"{meta['dataset_name']}, {meta['search_type']}"
        print(f"{hit.score:.2f}  {hit.node.get_content()}  [{where}]")


async def converse() -> None:
    memory = Memory.from_defaults(
        session_id="chat-1",
        token_limit=40,  # tiny on purpose, so older turns move to long-term memory quickly
        chat_history_token_ratio=0.5,
        token_flush_size=10,
        memory_blocks=[EngramdbMemoryBlock(top_k=1)],
        tokenizer_fn=lambda text: text.split(),
    )
    for role, text in [
        ("user", "My cat is called Miso."),
        ("assistant", "Miso is a lovely name."),
        ("user", "I moved to Vienna last spring and I work as a nurse there."),
        ("assistant", "Vienna is a beautiful city to live in."),
        ("user", "What is my cat called?"),
    ]:
        await memory.aput(ChatMessage(role=role, content=text))
    system, *history = await memory.aget()
    print(system.content)  # the recalled memories, ready for the LLM
    print("recent messages kept verbatim:", len(history))


async def main() -> None:
    await retrieve()
    await converse()


if __name__ == "__main__":
    asyncio.run(main())
