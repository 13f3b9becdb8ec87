"""What improve() writes and retrieval reads: the layout of each derived artifact, in one place.

Writing (``engramdb.improvement``) and reading (``engramdb.retrieval``) both import these
modules and never each other, so a stage can change how it computes an artifact without
retrieval importing the stage, and the stored layout has exactly one reader:

* :mod:`.conflicts` — fact conflicts (``review_conflicts``): listed, rendered, chunk labels;
* :mod:`.global_index` — the global context index (``build_global_context_index``);
* :mod:`.truth` — truth anchors (``build_truth_subspace``): the "Established in conversation"
  block;
* :mod:`.skills` — skills as ``remember_skill`` stores them (node, procedure record), read by
  the SKILLS search and AGENTIC_COMPLETION's offered skills.
"""
