"""The demo behind ``engramdb demo``: remember three facts, recall them, offline."""

from __future__ import annotations

import time

import typer

from engramdb.facade import recall, remember
from engramdb.models.results import ResponseGraphEntry

__all__ = ["run_demo"]

FACTS = [
    "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
    "while Tom never moved.",
    "Alice moved to Paris in 2010, while Bob has always lived in New York.",
    "Andreas was born in Venice, but later settled in Lisbon.",
]
QUESTIONS = ["In which cities did Andreas live?", "Where does Diana live now?"]


async def run_demo() -> None:
    started = time.perf_counter()
    for fact, weight in zip(FACTS, (0.5, 0.7, 0.3), strict=True):
        result = await remember(
            fact, dataset_name="engramdb_demo", importance_weight=weight, self_improvement=False
        )
        state = "skipped (already remembered)" if result.counts.get("skipped") else "remembered"
        typer.echo(f"{state}: {fact}")
    for question in QUESTIONS:
        results = await recall(question, datasets=["engramdb_demo"], top_k=1)
        typer.echo(f"\nQ: {question}")
        for r in results:
            if isinstance(r, ResponseGraphEntry):
                typer.echo(f"A: {r.text}  (distance {r.score:.3f})")
    typer.echo(f"\ndone in {time.perf_counter() - started:.1f}s, offline, no API key")
