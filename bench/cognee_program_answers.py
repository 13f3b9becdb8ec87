"""What each of cognee's example programs must print when it answers from its own data.

:data:`ANSWERS` maps a program (its path under cognee's ``examples/``) to regular expressions
(``re.search``, multiline) that must all match its output — standard output and error, as
``bench/cognee_programs.py`` captures them. Each is a phrase of the program's own data as the
program prints it in an answer, a search result or a verdict line, chosen so that it does not
occur in what the program echoes of its input or its questions: an empty result, ``[]``,
``None``, ``(empty)`` or a swallowed error leaves it unmatched. Where the program prints its
input too, the pattern anchors on the label the program prints before its answer.

An empty tuple marks a program that prints no answer to check (it writes a file, prints
pipeline statuses, or prints nothing): completing is all it asks. A program missing here is
reported without a verdict ("-"). The phrases hold for any LLM that answers from the context it
is given; the bench's schema-filling server (``tests/support/schema_answers.py``) quotes the
context, so they hold there too.
"""

from __future__ import annotations

__all__ = ["ANSWERS"]

ANSWERS: dict[str, tuple[str, ...]] = {
    "advanced_guides/conversation_session_persistence_example.py": (
        r"Answer: .*knowledge graph from text",
        r"Answer: .*Netherlands",
    ),
    "advanced_guides/global_context_index_smoke_demo.py": (
        r"Global context smoke status: PASSED",
        r"--- Context WITH global context index ---\n.*World summary:",
        r"A: .*Meeting 2",
    ),
    "advanced_guides/ontology_reference_vocabulary/ontology_as_reference_vocabulary_example.py": (
        r"Audi is known for its modern designs",
    ),
    "advanced_guides/remember_recall_improve_example.py": (
        r"Step 2: recall\(\) .*\n  Answer: .*general relativity",
        r"Step 5: recall\(session_id\) .*\n  Answer: .*University of Paris",
        r"Step 8: recall\(\) .*\n  Answer: .*Einstein",
    ),
    "advanced_guides/session_distillation_demo.py": (
        r"Post-distillation graph answer -----\n\n.*VoltaArm",
    ),
    "advanced_guides/simple_document_qa/simple_document_qa_demo.py": (r"Alice",),
    "advanced_guides/temporal_awareness_example/temporal_awareness_example.py": (
        r"Results: .*27 April 1889",
        r"Results: .*Buriram United",
    ),
    "demos/agentic/agentic_reasoning_procurement_example.py": (
        r"Office Solutions",
        r"\$1,600",
    ),
    "demos/comprehensive_example/cognee_comprehensive_example.py": (
        r"Python Pattern Analysis: .*Pydantic",
        r"Filtered search result: .*Dataclasses",
    ),
    "demos/custom_pipelines/custom_cognify_pipeline_example.py": (
        r"Search results:\n.*computer science",
    ),
    "demos/custom_pipelines/custom_pipeline_single_object_example.py": (
        r"Recall: 'Who worked on gravity\?' ---\n .*(relativity|Einstein|gravity as)",
    ),
    "demos/custom_pipelines/dynamic_steps_resume_analysis_hr_example.py": (
        r"Knowledge graph created\.\n.*Design",
    ),
    "demos/custom_pipelines/memify_coding_agent_rule_extraction_example.py": (
        r"Coding rules created by memify:\n- .*(PEP8|Susan|Friday)",
    ),
    "demos/feedback/feedback_score_shifting_example.py": (
        # no feedback influence: the neutral query's context leads with the technology companies;
        # full influence: with the cars context the positive feedback was given for
        r"--- beta = 0\.0 \(0% feedback influence\) ---\n.*(Meta|Apple|Google|Microsoft|Amazon)",
        r"--- beta = 1\.0 \(100% feedback influence\) ---\n.*(BMW|Mercedes|Audi|Porsche)",
    ),
    "demos/custom_pipelines/organizational_hierarchy/"
    "organizational_hierarchy_pipeline_example.py": (),
    # the first question asks what the database holds; the others name the customers, whose
    # invoices and addresses are in the rows (the program does not print its questions)
    "demos/custom_pipelines/relational_database_to_knowledge_graph_migration_example.py": (
        r"Search results: \[.*Stuttgart",
        r"Search results: \[.*Invoice:\d+ —CustomerId→ Customer:2",
        r"Search results: \[.*Embraer",
    ),
    "demos/custom_pipelines/organizational_hierarchy/"
    "organizational_hierarchy_pipeline_low_level_example.py": (
        r"Graph completion result: .*GreenFuture Solutions",
    ),
    "demos/feedback/contradiction_feedback_demo.py": (
        r"answer:.*\n\|.*Project Falcon",
        r"5 million euros",
    ),
    # each mode prints its recall result (the program prints none of its rows); the last
    # question is answered from the ontology's facts about the CSV's rows
    "demos/ingestion_and_migration/dlt_ingestion_example.py": (
        r"Mode 1 results: .*Fluffy",
        r"Mode 2 results: .*department: Engineering",
        r"Mode 3 results: .*event: (login|logout|purchase|signup)",
        r"Mode 4 results: .*Widget C",
        r"Mode 5 results: .*Luna",
        r"Mode 6 results: .*Eve.*Female",
        r"Final graph: [1-9]\d* nodes",
    ),
    "demos/feedback/skill_feedback_loop/skill_feedback_loop_demo.py": (
        r"^1\. remember -> stored 3 skills",
        r"^2\. evaluation -> [a-z-]+ scored \d\.\d\d",
        r"^3\. improve proposal -> applied proposal_id=[0-9a-f-]{36}",
        r"^4\. skill before -> # pr-comment-evaluator Only judge whether the PR comment",
        r"^5\. skill after -> # pr-comment-evaluator \S",
    ),
    "demos/ingestion_and_migration/migrate_from_mem0/migrate_from_mem0.py": (
        r"Step 3 — Recall.*\n .*PostgreSQL",
        r"Step 4 — Recall.*\n .*Bob",
        r"Step 6 — Recall.*\n .*API gateway",
    ),
    "demos/permissions/data_access_control_example.py": (
        r"on dataset owned by user_1:\n.*(computer vision|neural network)",
        r"does not have permission to",
        r"dataset owned by user_2:\n.*quantum",
    ),
    "demos/permissions/tenant_role_constraints_example.py": (
        r"could not give permission to the role",
    ),
    "demos/permissions/tenant_role_setup_example.py": (
        r"owned by the CogneeLab organization:\n.*quantum",
    ),
    "demos/permissions/user_permissions_and_access_control_example.py": (
        r"on dataset owned by user_1:\n.*(computer vision|neural network)",
        r"does not have permission to",
        r"owned by the CogneeLab organization:\n.*quantum",
    ),
    "demos/sessions/agentic_session_context_demo.py": (
        r"No module named 'dotenv'",
        r"### Failure lessons",
        r"raw trace recall results: [1-9]",
    ),
    "demos/sessions/live_session_context_feedback_demo.py": (
        r"assistant: .*Lisbon",
        r"qa_count: 10",
    ),
    "guides/agent_memory_quickstart.py": (
        r"support_agent_a: .*XQ-99",
        r"faq_bot_a: .*(XQ-99|XQ_TOKEN|web service)",
    ),
    "guides/consolidate_entity_descriptions_example.py": (),
    "guides/custom_data_models.py": (),
    "guides/custom_graph_model.py": (),
    "guides/custom_prompts.py": (r"Helsinki",),
    "guides/custom_tasks_and_pipelines.py": (),
    "guides/entity_deduplication.py": (),
    "guides/global_context_index.py": (
        r"Source summaries: [1-9]",
        r"Root \[.*\]: Dataset: global_context_index_demo",
    ),
    "guides/global_context_index_recall.py": (
        r"Context WITH global context index:\n(.*\n)*?World summary:",
        r"Answer WITH global context index:\n\n.*(Alice|Bob)",
    ),
    "guides/graph_visualization.py": (),
    "guides/importance_weight.py": (r"Venice",),
    "guides/improve_quickstart.py": (
        r"Before improve: .*general relativity",
        r"After improve: .*Niels Bohr",
    ),
    "guides/ladybug_example.py": (
        r"Insights about Ladybug:\n- .*graph database",
        r"Chunks about graph database:\n- .*Ladybug",
    ),
    "guides/low_level_llm.py": (r"nodes=\[MiniEntity\(name='",),
    "guides/memory_provenance.py": (
        r"Dataset: fleet_ops\n    File: ",
        r"mentions Entity: ",
    ),
    "guides/nodeset_grouping_example.py": (),
    "guides/ontology_quickstart.py": (),
    "guides/recall_core.py": (r"New York",),
    "guides/references_example.py": (
        r"WITHOUT references .*\n=+\n.*Acme Corporation",
        r"Evidence:\n- chunk 0 of document",
    ),
    "guides/schema_inventory.py": (),
    "guides/semantic_memory_map.py": (),
    "guides/session_distillation.py": (
        r"BEFORE distillation -----\n\npicked: (Doritos|Oreos)",
        r"AFTER distillation \(expected Oreos\) -----\n\npicked: (Doritos|Oreos)",
    ),
    "guides/sessions.py": (
        r"First answer: .*Paris",
        r"Follow-up answer: .*(Alice|Bob)",
        r"New session answer: .*(Alice|Bob)",
    ),
    "guides/simple_cognee_example.py": (r"source='graph' text='.*Natural language processing",),
    "guides/temporal_recall.py": (
        r"Q: What happened before 2000\?\nA: .*1998",
        r"Q: What happened after 2004\?\nA: .*2010",
    ),
    "guides/truth_subspace_reranking.py": (
        r"BASELINE CONTEXT \(truth weighting off\)\n.*(coffee|tea)",
        # what the guide demonstrates: "the coffee chunks visibly rise" (the three come first)
        r"TRUTH-WEIGHTED CONTEXT \(truth weighting on\)\n(?:.*coffee.*\n\n?){3}",
    ),
}
