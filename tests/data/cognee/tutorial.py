"""A cognee program written like cognee's getting-started tutorial, run unchanged by
``engramdb run-cognee`` (tests/integration/test_cognee_runner.py). Not a test module."""

import asyncio
import sys

import cognee
from cognee.modules.engine.operations.setup import setup
from cognee.modules.search.types import SearchType
from cognee.modules.users.methods import get_default_user
from cognee.shared.logging_utils import ERROR, get_logger, setup_logging

logger = get_logger()


async def main():
    # Start from a clean slate
    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    await setup()
    user = await get_default_user()

    text = """
    Natural language processing (NLP) is an interdisciplinary subfield of computer science.
    The lighthouse keeper of Tern Island logs every passing ship in a leather book.
    """
    await cognee.add(text)
    await cognee.add(["Herons wade in shallow water to catch fish."], dataset_name="birds")
    await cognee.cognify()

    query = sys.argv[1] if len(sys.argv) > 1 else "Who logs the passing ships?"
    results = await cognee.search(
        query_text=query, query_type=SearchType.CHUNKS, top_k=1, user=user
    )
    for result in results:
        print("CHUNK:", result["text"].strip().replace("\n", " "))

    results = await cognee.search(
        "What do herons catch?", query_type=SearchType.CHUNKS, datasets=["birds"]
    )
    for result in results:
        print("BIRDS:", result["text"])
    logger.info("done")


if __name__ == "__main__":
    setup_logging(log_level=ERROR)
    asyncio.run(main())
