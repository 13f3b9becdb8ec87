"""LangChain over engramdb: a retriever on remembered facts and a chat history in a session.

    pip install 'engramdb[langchain]'
    python examples/langchain_retriever.py

``EngramdbRetriever`` turns ``recall()`` results into LangChain Documents (score, dataset and
chunk ids in ``metadata``); ``EngramdbChatMessageHistory`` keeps the conversation in an engramdb
session, so it outlives the process. The answering step uses the OpenAI-compatible LLM named
by ``LLM_ENDPOINT`` (``LLM_API_KEY``, ``LLM_MODEL``) when set, else quotes the best document, so
the example runs offline. Memory goes to ``ENGRAMDB_DATA_DIR`` when set, else to a temporary
directory.
"""

from __future__ import annotations

import asyncio
import os
import tempfile

from langchain_core.messages import AIMessage, HumanMessage

import engramdb
from engramdb import SearchType
from engramdb.integrations.langchain import EngramdbChatMessageHistory, EngramdbRetriever

FACTS = [
    "Barn owls hunt at night over open fields and meadows.",
    "Ada Lovelace wrote the first computer program in 1843.",
    "The Rhine flows through Switzerland, Germany and the Netherlands.",
]


def answer(question: str, context: str) -> str:
    endpoint = os.environ.get("LLM_ENDPOINT")
    if not endpoint:
        return f"From memory: {context}"
    from openai import OpenAI

    client = OpenAI(base_url=endpoint, api_key=os.environ.get("LLM_API_KEY", "none"))
    reply = client.chat.completions.create(
        model=os.environ.get("LLM_MODEL", "gpt-4o-mini"),
        messages=[
            {"role": "system", "content": f"Answer from this context:\n{context}"},
            {"role": "user", "content": question},
        ],
    )
    return reply.choices[0].message.content or ""


def main() -> None:
    data_dir = os.environ.get("ENGRAMDB_DATA_DIR") or tempfile.mkdtemp(prefix="engramdb-lc-")
    engine = engramdb.Engine(data_dir=data_dir)

    async def remember() -> None:
        await engine.remember(FACTS, dataset_name="facts", self_improvement=False)
        await engine.close()

    asyncio.run(remember())

    retriever = EngramdbRetriever(
        data_dir=data_dir, datasets=["facts"], search_type=SearchType.CHUNKS, top_k=2
    )
    history = EngramdbChatMessageHistory("owl-chat", data_dir=data_dir)
    try:
        question = "When do owls hunt?"
        docs = retriever.invoke(question)
        for doc in docs:
            print(f"{doc.metadata['score']:.3f}  {doc.page_content}")
        reply = answer(question, docs[0].page_content)
        history.add_messages([HumanMessage(question), AIMessage(reply)])
        print("answer:", reply)
        print("history:", [(m.type, m.text) for m in history.messages])
    finally:
        retriever.close()
        history.close()


if __name__ == "__main__":
    main()
