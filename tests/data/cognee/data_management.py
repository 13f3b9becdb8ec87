"""A cognee program (cognee's documented calls only): add, cognify, list the data, update one
item, delete another, check the status, draw the graph, reset."""

import asyncio
import sys

import cognee
from cognee.api.v1.datasets.datasets import datasets
from cognee.api.v1.visualize.visualize import visualize_graph
from cognee.modules.search.types import SearchType


async def main(out: str) -> None:
    await cognee.prune.prune_data()
    await cognee.prune.prune_system(metadata=True)
    cognee.config.set_graph_database_provider("kuzu")
    cognee.config.set_vector_db_provider("lancedb")
    await cognee.add(["Herons wade in shallow water.", "Owls hunt at night."], "birds")
    await cognee.cognify(["birds"])
    (dataset,) = await datasets.list_datasets()
    herons, owls = await datasets.list_data(dataset.id)
    await cognee.update(owls.id, "Owls sleep during the day.", dataset.id)
    await datasets.delete_data(dataset_id=dataset.id, data_id=herons.id)
    status = await datasets.get_status([dataset.id])
    print("STATUS:", status[str(dataset.id)])
    for hit in await cognee.search("owls", query_type=SearchType.CHUNKS):
        print("CHUNK:", hit["text"])
    print("PAGE:", await visualize_graph(out, dataset="birds"))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
