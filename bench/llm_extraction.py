"""LLM cost of ingestion: LLM calls and tokens per document and per chunk on LoCoMo.

Run from the repository root::

    .venv/bin/python bench/llm_extraction.py                       # fake embedder, 5 conversations
    .venv/bin/python bench/llm_extraction.py --limit-conversations 1
    .venv/bin/python bench/llm_extraction.py --embedder onnx --json bench/results/llm.json

engramdb ingests the LoCoMo dev conversations (loaded and formatted by ``bench/locomo.py``) with
an LLM configured: a local scripted server speaking the OpenAI protocol
(``tests/support/openai_server.py``) whose rule-based handler answers the extraction prompt with
correctly shaped JSON and a ``usage`` block (tokens estimated as characters // 4). Modes:

* (a) one ``remember()`` call per session (one document per session, as the reference and
  ``bench/locomo.py`` do);
* (b) one ``remember()`` call per conversation with its sessions as a list (batches may span
  documents).

Then, in mode (a)'s data directory: the same content again (skipped, no call), the same content
into fresh datasets while the first ones exist (response cache), and the same content after
``forget(dataset=...)`` (the cache entries die with the data, so it pays again). Calls are
counted twice: at the server and from ``RememberResult.counts["llm_calls"]``. The reference
(cognee 1.6.5, /work/shared/REFERENCE-FIGURES.md) spent 1,011 calls on 505 chunks: one
extraction and one summary call per chunk. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import sqlite3
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    REPO_ROOT,
    format_table,
    isolated_engramdb,
    load_note,
    peak_rss_mb,
    pin_cores,
    write_json,
)
from locomo import DEFAULT_DATA, Conversation, load_conversations, resolve_data_path

#: The reference's cost for the 5 dev conversations, one document per session.
REF_CALLS = 1011
REF_CHUNKS = 505
REF_CALLS_PER_CHUNK = 2.0  # one extraction + one summary call per chunk
TARGET_RATIO = 1.0 / 3.0
CHAT = "chat/completions"
#: Table order of the passes (they run a, a_again, a_copy, a_after_forget, b).
PASS_ORDER = {"a": 0, "b": 1, "a_again": 2, "a_copy": 3, "a_after_forget": 4}

# --------------------------------------------------------------------------------------------
# the scripted LLM

_CHUNK_BLOCK = re.compile(r'<chunk id="(\d+)">\n(.*?)\n</chunk>', re.S)
_TURN = re.compile(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?): (.+)$", re.M)
_HEADER = re.compile(r"^Session (\d+): (.+)$", re.M)
_DATE = re.compile(
    r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December),? \d{4}\b"
)
_PHRASE = re.compile(r"\b[A-Z][A-Za-z'-]+(?: (?:of |the |de )?[A-Z][A-Za-z'-]+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CAPS = re.compile(r"At most (\d+) entities and (\d+) relations")
#: Capitalised words that are not names (interjections, pronouns, sentence openers).
_NOT_NAME_LIST = """
    I I'm I've I'd I'll Hey Hi Hello Wow Yeah Yes No Oh Ah Thanks Thank Sure Okay OK Cool
    Great Good Nice Awesome Really So And But Or The A An That This These Those It It's What
    How Why When Where Who Which My Your You You're We We're They He She His Her Our Me Just
    Well Aww Haha Lol Definitely Totally Absolutely Congrats Congratulations Anyway Sounds
    Glad Love Let's Bye See Take Have Do Did Is Are Was Can Could Would Will If As At On In
    Not Be By For From With To Of Also Plus Gonna Wanna Gotta Any Anything Everything
"""
_NOT_NAMES = frozenset(_NOT_NAME_LIST.split())
_MAX_ENTITIES = 12
_MAX_RELATIONS = 12


def _estimate_tokens(text: str) -> int:
    return len(text) // 4


def _first_sentence(text: str, limit: int = 160) -> str:
    sentence = _SENTENCE.split(text.strip(), maxsplit=1)[0]
    if len(sentence) > limit:
        sentence = sentence[:limit].rsplit(" ", 1)[0] + "…"
    return sentence


def extract_chunk(text: str, max_entities: int, max_relations: int) -> dict[str, Any]:
    """One chunk's answer: speakers are people, the session header an event and a date,
    capitalised phrases that do not open a sentence concepts their speaker mentions."""
    entities: dict[str, tuple[str, str]] = {}  # name -> (type, description)
    relations: list[tuple[str, str, str]] = []

    def entity(name: str, kind: str, description: str) -> bool:
        if name in entities:
            return True
        if len(entities) >= max_entities:
            return False
        entities[name] = (kind, description)
        return True

    def relate(source: str, relation: str, target: str) -> None:
        triple = (source, relation, target)
        if len(relations) < max_relations and source != target and triple not in relations:
            relations.append(triple)

    session: str | None = None
    header = _HEADER.search(text)
    if header:
        session = f"Session {header.group(1)}"
        entity(session, "EVENT", f"Conversation session {header.group(1)}.")
        date = _DATE.search(header.group(2))
        when = date.group(0) if date else header.group(2).strip()
        if entity(when, "DATE", f"When {session} took place."):
            relate(session, "happened_on", when)
    turns = _TURN.findall(text)
    speakers = list(dict.fromkeys(name for name, _ in turns))
    for name in speakers:
        if entity(name, "PERSON", "A participant of the conversation.") and session:
            relate(name, "participated_in", session)
    for speaker, said in turns:
        for date in _DATE.findall(said):
            if entity(date, "DATE", f"A date {speaker} mentions."):
                relate(speaker, "mentions", date)
        for match in _PHRASE.finditer(said):
            words = match.group(0).split()
            trimmed = False
            while words and words[0] in _NOT_NAMES:  # "Hey Mel" -> "Mel"
                words.pop(0)
                trimmed = True
            name = " ".join(words)
            before = said[: match.start()].rstrip()
            opens_sentence = not trimmed and (not before or before[-1] in '.!?:"([')
            if not name or name in speakers or (opens_sentence and len(words) == 1):
                continue
            kind = "PERSON" if name.split()[0] in speakers else "CONCEPT"
            if entity(name, kind, f"Mentioned by {speaker}."):
                relate(speaker, "mentions", name)

    if turns:
        who = " and ".join(speakers)
        where = f" in {session}" if session else ""
        verb = "talks" if len(speakers) == 1 else "talk"
        # The first sentence of at least six words (not a greeting), else the first one.
        first_speaker, first_said = turns[0]
        sentence = _first_sentence(first_said)
        for speaker, said in turns:
            found = next((x for x in _SENTENCE.split(said) if len(x.split()) >= 6), None)
            if found:
                first_speaker, sentence = speaker, _first_sentence(found)
                break
        summary = f"{who} {verb}{where}. {first_speaker} says: {sentence}"
    else:
        summary = _first_sentence(text)
    return {
        "summary": summary,
        "entities": [
            {"name": n, "type": kind, "description": d} for n, (kind, d) in entities.items()
        ],
        "relations": [{"source": s, "relation": r, "target": t} for s, r, t in relations],
    }


@dataclass
class ScriptedLLM:
    """The chat/completions handler: answers every extraction request from the chunk blocks of
    its first user message, and keeps the usage it reported."""

    answered: int = 0
    unparsed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: Any) -> Any:
        from tests.support.openai_server import Reply  # the repo root is on sys.path

        body = request.json if isinstance(request.json, dict) else {}
        messages = body.get("messages") or []
        system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
        user = next(
            (
                str(m.get("content", ""))
                for m in messages
                if m.get("role") == "user" and "<chunk id=" in str(m.get("content", ""))
            ),
            "",
        )
        caps = _CAPS.search(str(system))
        max_entities = min(_MAX_ENTITIES, int(caps.group(1))) if caps else _MAX_ENTITIES
        max_relations = min(_MAX_RELATIONS, int(caps.group(2))) if caps else _MAX_RELATIONS
        blocks = _CHUNK_BLOCK.findall(user)
        items = [
            {"id": int(n), **extract_chunk(text, max_entities, max_relations)} for n, text in blocks
        ]
        content = json.dumps({"chunks": items}, ensure_ascii=False)
        prompt = _estimate_tokens("".join(str(m.get("content", "")) for m in messages))
        completion = _estimate_tokens(content)
        with self._lock:
            self.answered += 1
            self.unparsed += 0 if blocks else 1
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            ident = self.answered
        return Reply.json(
            {
                "id": f"chatcmpl-bench-{ident}",
                "object": "chat.completion",
                "created": 0,
                "model": str(body.get("model", "bench-chat")),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )

    def snapshot(self) -> tuple[int, int, int]:
        with self._lock:
            return self.answered, self.prompt_tokens, self.completion_tokens


# --------------------------------------------------------------------------------------------
# passes


@dataclass
class Pass:
    key: str
    label: str
    remember_calls: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    server_calls: int = 0
    server_prompt_tokens: int = 0
    server_completion_tokens: int = 0
    seconds: float = 0.0
    cache_rows_after: int | None = None

    def count(self, key: str) -> int:
        return int(self.counts.get(key, 0))

    @property
    def calls(self) -> int:
        return self.count("llm_calls")

    def per(self, value: float, unit: str) -> float:
        n = self.count(unit)
        return value / n if n else math.nan

    @property
    def ratio(self) -> float:
        return self.per(self.calls, "chunks") / REF_CALLS_PER_CHUNK

    def summary(self) -> dict[str, Any]:
        return {
            "pass": self.key,
            "label": self.label,
            "remember_calls": self.remember_calls,
            "counts": dict(self.counts),
            "llm_calls_server": self.server_calls,
            "llm_calls_counts": self.calls,
            "calls_per_document": self.per(self.calls, "documents"),
            "calls_per_chunk": self.per(self.calls, "chunks"),
            "prompt_tokens_per_document": self.per(self.count("llm_prompt_tokens"), "documents"),
            "completion_tokens_per_document": self.per(
                self.count("llm_completion_tokens"), "documents"
            ),
            "prompt_tokens_per_chunk": self.per(self.count("llm_prompt_tokens"), "chunks"),
            "completion_tokens_per_chunk": self.per(self.count("llm_completion_tokens"), "chunks"),
            "server_prompt_tokens": self.server_prompt_tokens,
            "server_completion_tokens": self.server_completion_tokens,
            "ratio_to_reference": self.ratio,
            "seconds": self.seconds,
            "kv_cache_rows_after": self.cache_rows_after,
        }


#: (data, dataset name, external_metadata) of one remember() call.
Job = tuple[str | list[str], str, dict[str, Any]]


def per_session_jobs(conversations: Sequence[Conversation], suffix: str = "") -> list[Job]:
    """Mode (a): one remember() per session, metadata as bench/locomo.py gives it."""
    return [
        (
            session.text,
            conv.dataset + suffix,
            {"session": session.number, "date": session.date, "conversation": conv.sample_id},
        )
        for conv in conversations
        for session in conv.sessions
    ]


def per_conversation_jobs(conversations: Sequence[Conversation]) -> list[Job]:
    """Mode (b): one remember() per conversation, its sessions as a list of documents."""
    return [
        ([s.text for s in conv.sessions], conv.dataset, {"conversation": conv.sample_id})
        for conv in conversations
    ]


def cache_rows(data_dir: Path) -> int | None:
    """Rows of the store's key-value cache (the LLM response cache), read-only."""
    path = data_dir / "engramdb.sqlite3"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM kv_cache").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return None


async def run_pass(
    key: str,
    label: str,
    jobs: Sequence[Job],
    server: Any,
    llm: ScriptedLLM,
    data_dir: Path,
) -> Pass:
    import engramdb

    result = Pass(key, label)
    requests_before = len(server.requests_to(CHAT))
    _, prompt_before, completion_before = llm.snapshot()
    started = time.perf_counter()
    for data, dataset, metadata in jobs:
        res = await engramdb.remember(
            data, dataset_name=dataset, external_metadata=metadata, self_improvement=False
        )
        result.remember_calls += 1
        result.counts.update({k: int(v) for k, v in res.counts.items()})
    result.seconds = time.perf_counter() - started
    _, prompt_after, completion_after = llm.snapshot()
    result.server_calls = len(server.requests_to(CHAT)) - requests_before
    result.server_prompt_tokens = prompt_after - prompt_before
    result.server_completion_tokens = completion_after - completion_before
    result.cache_rows_after = cache_rows(data_dir)
    return result


def configure_llm(base_url: str) -> None:
    import engramdb

    engramdb.config.set("llm_endpoint", base_url)
    engramdb.config.set("llm_api_key", "bench")
    engramdb.config.set("llm_model", "bench-chat")


async def run_all(
    conversations: Sequence[Conversation],
    *,
    embedder: str,
    fake_dimensions: int,
    progress: Callable[[str], None],
    notes: list[str],
) -> list[Pass]:
    from tests.support.openai_server import OpenAIServer

    import engramdb

    passes: list[Pass] = []
    llm = ScriptedLLM()
    with OpenAIServer() as server:
        server.set_default(CHAT, llm)

        # Mode (a), then the cache passes in the same data directory.
        async with isolated_engramdb(
            embedder, fake_dimensions=fake_dimensions, prefix="llm-extraction-a-"
        ) as data_dir:
            configure_llm(server.base_url)
            jobs = per_session_jobs(conversations)
            passes.append(
                await run_pass("a", "(a) 1 call per session", jobs, server, llm, data_dir)
            )
            progress(f"mode (a): {len(jobs)} remember() calls")
            passes.append(
                await run_pass("a_again", "(a) same content again", jobs, server, llm, data_dir)
            )
            progress("mode (a) again on the same datasets")
            copies = per_session_jobs(conversations, suffix="_copy")
            passes.append(
                await run_pass(
                    "a_copy", "(a) fresh datasets, cache warm", copies, server, llm, data_dir
                )
            )
            progress("mode (a) into fresh datasets (*_copy), first datasets still present")
            before = cache_rows(data_dir)
            for conv in conversations:
                await engramdb.forget(dataset=conv.dataset)
            after_originals = cache_rows(data_dir)
            for conv in conversations:
                await engramdb.forget(dataset=conv.dataset + "_copy")
            after_all = cache_rows(data_dir)
            notes.append(
                f"kv_cache rows: {before} before forget, {after_originals} after "
                f"forget(dataset=conv_*), {after_all} after forget(dataset=conv_*_copy)"
            )
            progress("forgot every dataset, one forget(dataset=...) each")
            passes.append(
                await run_pass(
                    "a_after_forget",
                    "(a) after forget(dataset=)",
                    jobs,
                    server,
                    llm,
                    data_dir,
                )
            )
            progress("mode (a) after forget")

        # Mode (b) in a fresh data directory (an empty cache).
        async with isolated_engramdb(
            embedder, fake_dimensions=fake_dimensions, prefix="llm-extraction-b-"
        ) as data_dir:
            configure_llm(server.base_url)
            jobs = per_conversation_jobs(conversations)
            passes.append(
                await run_pass("b", "(b) 1 call per conversation", jobs, server, llm, data_dir)
            )
            progress(f"mode (b): {len(jobs)} remember() calls")
        if llm.unparsed:
            notes.append(f"{llm.unparsed} chat requests held no <chunk> block")
    return passes


# --------------------------------------------------------------------------------------------
# checks and output


def checks(passes: Sequence[Pass]) -> list[tuple[str, bool]]:
    by_key = {p.key: p for p in passes}
    out: list[tuple[str, bool]] = []
    for p in passes:
        prompt, completion = p.count("llm_prompt_tokens"), p.count("llm_completion_tokens")
        tokens_agree = (p.server_prompt_tokens, p.server_completion_tokens) == (prompt, completion)
        out.append(
            (
                f"{p.label}: calls server {p.server_calls} == counts {p.calls}; tokens server "
                f"{p.server_prompt_tokens:,}/{p.server_completion_tokens:,} == counts "
                f"{prompt:,}/{completion:,}; fallbacks {p.count('extraction_fallbacks')}",
                p.server_calls == p.calls and tokens_agree and p.count("extraction_fallbacks") == 0,
            )
        )
    for key in ("a", "b"):
        p = by_key.get(key)
        if p is not None:
            out.append(
                (
                    f"{p.label}: calls per chunk / {REF_CALLS_PER_CHUNK:.1f} = {p.ratio:.3f} "
                    f"<= 1/3",
                    p.ratio <= TARGET_RATIO,
                )
            )
            out.append(
                (
                    f"{p.label}: summaries {p.count('summaries')} == chunks {p.count('chunks')}",
                    p.count("summaries") == p.count("chunks"),
                )
            )
    a = by_key.get("a")
    again = by_key.get("a_again")
    if a and again:
        out.append(
            (
                f"same content again: {again.count('skipped')} of {a.count('documents')} "
                f"documents skipped, {again.calls} calls",
                again.count("skipped") == a.count("documents")
                and again.count("documents") == 0
                and again.calls == 0
                and again.server_calls == 0,
            )
        )
    copy = by_key.get("a_copy")
    if a and copy:
        out.append(
            (
                f"fresh datasets while the first exist: {copy.calls} calls, "
                f"{copy.count('llm_cache_hits')} cache hits (first pass: {a.calls} calls)",
                copy.calls == 0 and copy.count("llm_cache_hits") == a.calls,
            )
        )
    forgot = by_key.get("a_after_forget")
    if a and forgot:
        out.append(
            (
                f"after forget(dataset=): {forgot.calls} calls, "
                f"{forgot.count('llm_cache_hits')} cache hits (first pass: {a.calls} calls)",
                forgot.calls == a.calls and forgot.count("llm_cache_hits") == 0,
            )
        )
    return out


def table(passes: Sequence[Pass], full_split: bool) -> str:
    rows: list[list[object]] = []
    if full_split:
        rows.append(
            [
                "reference (cognee 1.6.5)",
                136,
                None,
                REF_CHUNKS,
                REF_CALLS,
                None,
                REF_CALLS / 136,
                REF_CALLS / REF_CHUNKS,
                None,
                None,
                None,
                None,
                None,
                1.0,
            ]
        )
    for p in sorted(passes, key=lambda p: PASS_ORDER.get(p.key, 9)):
        rows.append(
            [
                p.label,
                p.count("documents"),
                p.count("skipped"),
                p.count("chunks"),
                p.server_calls,
                p.calls,
                p.per(p.calls, "documents"),
                p.per(p.calls, "chunks"),
                p.per(p.count("llm_prompt_tokens"), "documents"),
                p.per(p.count("llm_completion_tokens"), "documents"),
                p.count("llm_cache_hits"),
                p.count("extraction_fallbacks"),
                p.seconds,
                p.ratio,
            ]
        )
    return format_table(
        [
            "pass",
            "docs",
            "skipped",
            "chunks",
            "calls (server)",
            "calls (counts)",
            "calls/doc",
            "calls/chunk",
            "prompt tok/doc",
            "compl tok/doc",
            "cache hits",
            "fallbacks",
            "wall s",
            "vs ref",
        ],
        rows,
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help=f"locomo_dev.json (default: {DEFAULT_DATA})")
    parser.add_argument("--embedder", choices=("fake", "onnx"), default="fake")
    parser.add_argument("--fake-dimensions", type=int, default=64)
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    parser.add_argument("--cores", type=int, default=2, help="pin to N cores (0 = all)")
    parser.add_argument("--json", dest="json_path", metavar="OUT.json")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))  # for tests.support.openai_server
    cores = pin_cores(args.cores)
    path = resolve_data_path(args.data)
    wall = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - wall:7.1f}s] {msg}", flush=True)

    machine = load_note(len(cores))
    conversations, stats = load_conversations(path, args.limit_conversations)
    n_sessions = sum(len(c.sessions) for c in conversations)
    full_split = len(conversations) == 5 and n_sessions == 136
    print(f"LLM calls and tokens per ingested document — LoCoMo, {path}")
    print(
        f"cores: {len(cores)} {cores}; embedder: {args.embedder}; LLM: scripted local "
        "OpenAI-protocol server (rule-based extraction, tokens = characters // 4)"
    )
    print(machine)
    print(f"{len(conversations)} conversations, {n_sessions} sessions, {stats.turns} turns")

    passes: list[Pass] = []
    notes: list[str] = []
    failure: str | None = None
    try:
        passes = asyncio.run(
            run_all(
                conversations,
                embedder=args.embedder,
                fake_dimensions=args.fake_dimensions,
                progress=progress,
                notes=notes,
            )
        )
    except Exception:
        failure = traceback.format_exc()
        print("\nrun FAILED:\n" + failure, file=sys.stderr)
    elapsed = time.perf_counter() - wall

    print(
        "\nLLM cost of ingestion (calls counted at the server and from "
        "RememberResult.counts['llm_calls']; tokens from counts)"
    )
    print(table(passes, full_split))
    print(
        f"(vs ref = calls per chunk / {REF_CALLS_PER_CHUNK:.1f}, the reference's one extraction "
        f"and one summary call per chunk; target <= 1/3. Reference row: REFERENCE-FIGURES.md, "
        f"full split only, {REF_CALLS:,} / {REF_CHUNKS} = {REF_CALLS / REF_CHUNKS:.3f})"
    )
    for p in sorted(passes, key=lambda p: PASS_ORDER.get(p.key, 9)):
        if p.calls:
            print(
                f"{p.label}: {p.count('chunks') / p.calls:.2f} chunks per call; "
                f"{p.count('llm_prompt_tokens'):,} prompt + "
                f"{p.count('llm_completion_tokens'):,} completion tokens "
                f"({p.per(p.count('llm_prompt_tokens'), 'chunks'):.0f} + "
                f"{p.per(p.count('llm_completion_tokens'), 'chunks'):.0f} per chunk); "
                f"kv_cache rows after: {p.cache_rows_after}"
            )
    for note in notes:
        print(note)

    results = checks(passes)
    if results:
        print("\nchecks")
        for text, ok in results:
            print(f"  {'ok  ' if ok else 'FAIL'}  {text}")
    print(f"\npeak RSS: {peak_rss_mb():.0f} MB; wall time: {elapsed:.1f} s")

    write_json(
        args.json_path,
        {
            "benchmark": "llm_extraction_cost",
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "machine_at_start": machine,
            "data": str(path),
            "cores": len(cores),
            "embedder": args.embedder,
            "conversations": len(conversations),
            "sessions": n_sessions,
            "reference": {
                "llm_calls": REF_CALLS,
                "chunks": REF_CHUNKS,
                "calls_per_chunk": REF_CALLS_PER_CHUNK,
                "full_split": full_split,
            },
            "passes": [p.summary() for p in passes],
            "checks": [{"check": text, "ok": ok} for text, ok in results],
            "notes": notes,
            "peak_rss_mb": peak_rss_mb(),
            "wall_seconds": elapsed,
            "error": failure,
        },
    )
    return 1 if failure or not all(ok for _, ok in results) else 0


if __name__ == "__main__":
    sys.exit(main())
