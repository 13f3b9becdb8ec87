"""Session memory: Q&A entries, feedback, inferred ratings, guidance entries and agent traces.

The public verbs live in :mod:`engramdb.api.session` (``engramdb.session``); this package holds
what they and ``recall()`` share: validation (:mod:`.validation`), recording a recall turn and
the conversation history (:mod:`.recording`), the session / trace / session_context lanes of
recall (:mod:`.lanes`), guidance rendering (:mod:`.guidance`), the per-turn analysis behind
``AUTO_FEEDBACK`` (:mod:`.feedback`) and trace sanitising (:mod:`.sanitize`). Nothing is imported
here, so importing one module stays cheap.
"""
