"""The code graph: source files parsed into files, modules, classes, functions and methods with
their imports, calls and inheritance, stored in the dataset's graph and queried by deterministic
operations (no LLM).

* :mod:`.discover` -- which ``remember()`` inputs are source code;
* :mod:`.parse_python` (standard library ``ast``) and :mod:`.parse_treesitter` (JS/TS, the
  ``code`` extra) -- one file to a :class:`~.model.ParsedFile`;
* :mod:`.index` -- incremental writes (one data item per file, by content hash) and the delta;
* :mod:`.snapshot` -- the stored graph loaded, with cross-file references resolved;
* :mod:`.operations` -- explore, traverse, find_path, impact_analysis, query_facts, delta;
* :mod:`.lane` -- recall's "code" scope and ``SearchType.CODE``.

See ``docs/code-graph.md``.
"""
