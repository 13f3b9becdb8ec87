"""Numbered schema migrations of the PostgreSQL store.

Each migration is a list of statements. :func:`apply_migrations` runs every pending one inside
ONE transaction that first takes a transaction-scoped advisory lock, so when several processes
run ``setup`` at once the others wait, then find the versions the first recorded and apply
nothing (PostgreSQL's DDL is transactional: a failed migration leaves nothing behind). The
tables live in the store's schema (``search_path`` points there); pgvector's ``vector`` type is
found through the ``search_path`` too.

Conventions: ids are ``uuid``, times ``timestamptz`` (UTC), JSON is ``jsonb``; ``seq`` identity
columns give a stable insertion order. Vectors are stored in an unsized ``vector`` column with
their dimension beside them: one column serves every embedding model, and each (collection,
dimension) gets its own partial HNSW index on ``embedding::vector(dim)`` (see
:mod:`.vectors`), created when the first such vector is written. Full text is a ``tsvector``
of engramdb's own normalised words (``simple`` configuration: no stemming, no stopwords) with a
GIN index; ``lexical_stats`` keeps the document count and total length per (collection,
dataset) that BM25 needs and ``lexical_terms`` each word's document frequency (:mod:`.terms`),
both maintained in the same transactions as the rows.

Append new migrations; never edit a released one.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, sql

from engramdb.models.records import utcnow
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.migrations import Migration, latest_version, pending, record_sql
from engramdb.storage.postgres.terms import TERMS_DDL, add_terms

__all__ = ["LATEST_VERSION", "MIGRATIONS", "Migration", "applied_version", "apply_migrations"]

#: Key of the transaction-scoped advisory lock that serialises migrations (any fixed number).
MIGRATION_LOCK_KEY = 0x656E6772616D  # "engram"


_V1_CORE = Migration(
    1,
    "core schema: users, datasets, data, runs, graph, vectors, full text, cache",
    (
        """CREATE TABLE users (
            id uuid PRIMARY KEY,
            email text NOT NULL UNIQUE,
            is_default boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL
        )""",
        # At most one default user, enforced by the database, not by a check-then-insert.
        "CREATE UNIQUE INDEX users_single_default ON users (is_default) WHERE is_default",
        """CREATE TABLE datasets (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id uuid PRIMARY KEY,
            owner_id uuid NOT NULL REFERENCES users (id),
            name text NOT NULL,
            embedding_model text,
            embedding_dim integer,
            created_at timestamptz NOT NULL,
            UNIQUE (owner_id, name)
        )""",
        """CREATE TABLE data (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id uuid PRIMARY KEY,
            dataset_id uuid NOT NULL REFERENCES datasets (id),
            name text NOT NULL,
            content_hash text NOT NULL,
            mime_type text NOT NULL,
            importance_weight double precision NOT NULL,
            external_metadata jsonb NOT NULL DEFAULT '{}',
            node_set jsonb NOT NULL DEFAULT '[]',
            size_bytes bigint NOT NULL DEFAULT 0,
            chunk_count integer NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL,
            UNIQUE (dataset_id, content_hash)
        )""",
        "CREATE INDEX data_by_dataset_created ON data (dataset_id, created_at, seq)",
        """CREATE TABLE pipeline_runs (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id uuid PRIMARY KEY,
            dataset_id uuid NOT NULL REFERENCES datasets (id),
            pipeline text NOT NULL,
            status text NOT NULL,
            graph_writing boolean NOT NULL DEFAULT true,
            error_class text,
            error_message text,
            pid integer,
            hostname text,
            counts jsonb NOT NULL DEFAULT '{}',
            started_at timestamptz NOT NULL,
            finished_at timestamptz
        )""",
        "CREATE INDEX pipeline_runs_by_dataset ON pipeline_runs (dataset_id, started_at)",
        "CREATE INDEX pipeline_runs_started ON pipeline_runs (hostname) WHERE status = 'started'",
        """CREATE TABLE nodes (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id uuid PRIMARY KEY,
            dataset_id uuid NOT NULL REFERENCES datasets (id),
            type text NOT NULL,
            name text NOT NULL DEFAULT '',
            text text NOT NULL DEFAULT '',
            properties jsonb NOT NULL DEFAULT '{}',
            importance_weight double precision NOT NULL,
            feedback_weight double precision NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        )""",
        "CREATE INDEX nodes_by_dataset_type ON nodes (dataset_id, type, seq)",
        "CREATE INDEX nodes_by_dataset_seq ON nodes (dataset_id, seq)",
        """CREATE TABLE node_sources (
            node_id uuid NOT NULL REFERENCES nodes (id),
            data_id uuid NOT NULL REFERENCES data (id),
            PRIMARY KEY (node_id, data_id)
        )""",
        "CREATE INDEX node_sources_by_data ON node_sources (data_id)",
        """CREATE TABLE edges (
            seq bigint GENERATED ALWAYS AS IDENTITY,
            id uuid PRIMARY KEY,
            dataset_id uuid NOT NULL REFERENCES datasets (id),
            source_id uuid NOT NULL REFERENCES nodes (id),
            target_id uuid NOT NULL REFERENCES nodes (id),
            relation text NOT NULL,
            properties jsonb NOT NULL DEFAULT '{}',
            importance_weight double precision NOT NULL,
            feedback_weight double precision NOT NULL
        )""",
        # (source, target) serves outgoing walks and pair probes; (target, relation) incoming
        # walks that skip a hub's excluded relations inside the index.
        "CREATE INDEX edges_by_source_target ON edges (source_id, target_id)",
        "CREATE INDEX edges_by_target_relation ON edges (target_id, relation)",
        "CREATE INDEX edges_by_dataset ON edges (dataset_id, seq)",
        """CREATE TABLE edge_sources (
            edge_id uuid NOT NULL REFERENCES edges (id),
            data_id uuid NOT NULL REFERENCES data (id),
            PRIMARY KEY (edge_id, data_id)
        )""",
        "CREATE INDEX edge_sources_by_data ON edge_sources (data_id)",
        """CREATE TABLE vectors (
            node_id uuid NOT NULL REFERENCES nodes (id),
            collection text NOT NULL,
            dataset_id uuid NOT NULL,
            dim integer NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (node_id, collection)
        )""",
        "CREATE INDEX vectors_by_collection_dataset ON vectors (collection, dataset_id, dim)",
        """CREATE TABLE lexical (
            node_id uuid NOT NULL REFERENCES nodes (id),
            collection text NOT NULL,
            dataset_id uuid NOT NULL,
            words tsvector NOT NULL,
            length integer NOT NULL,
            PRIMARY KEY (node_id, collection)
        )""",
        # Deliberately no b-tree on (collection, dataset_id): with one, a planner working from
        # stale statistics (right after a bulk ingest) filters every row of a dataset against
        # the query instead of asking the GIN index, ~100x slower. Searches always go through
        # the words; deletions go through the primary key.
        "CREATE INDEX lexical_words ON lexical USING gin (words)",
        """CREATE TABLE lexical_stats (
            collection text NOT NULL,
            dataset_id uuid NOT NULL,
            docs bigint NOT NULL,
            total_length bigint NOT NULL,
            PRIMARY KEY (collection, dataset_id)
        )""",
        """CREATE TABLE kv_cache (
            namespace text NOT NULL,
            key text NOT NULL,
            value text NOT NULL,
            data_id uuid,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (namespace, key)
        )""",
        "CREATE INDEX kv_cache_data ON kv_cache (data_id) WHERE data_id IS NOT NULL",
    ),
)

_V2_SESSIONS = Migration(
    2,
    "session store: sessions, Q&A entries, agent traces, guidance entries, consumer marks",
    (
        # Sessions are per user: the same session_id under two users is two sessions.
        """CREATE TABLE sessions (
            user_id uuid NOT NULL REFERENCES users (id),
            session_id text NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (user_id, session_id)
        )""",
        "CREATE INDEX sessions_by_update ON sessions (user_id, updated_at DESC)",
        """CREATE TABLE session_qa (
            seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            id uuid PRIMARY KEY,
            user_id uuid NOT NULL,
            session_id text NOT NULL,
            origin text NOT NULL,
            question text NOT NULL,
            context text NOT NULL,
            answer text NOT NULL,
            search_type text,
            used_node_ids uuid[] NOT NULL DEFAULT '{}',
            used_edge_ids uuid[] NOT NULL DEFAULT '{}',
            feedback_score integer,
            feedback_text text,
            feedback_source text,
            feedback_at timestamptz,
            rating_rev integer NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions (user_id, session_id)
        )""",
        "CREATE INDEX session_qa_by_session ON session_qa (user_id, session_id, seq)",
        "CREATE INDEX session_qa_by_user ON session_qa (user_id, seq)",
        # The datasets an answer came from, filterable; no foreign key to datasets: a
        # conversation outlives a forgotten dataset.
        """CREATE TABLE session_qa_datasets (
            qa_id uuid NOT NULL REFERENCES session_qa (id),
            dataset_id uuid NOT NULL,
            PRIMARY KEY (qa_id, dataset_id)
        )""",
        "CREATE INDEX session_qa_datasets_by_dataset ON session_qa_datasets (dataset_id, qa_id)",
        """CREATE TABLE session_traces (
            seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            id uuid PRIMARY KEY,
            user_id uuid NOT NULL,
            session_id text NOT NULL,
            origin_function text NOT NULL,
            status text NOT NULL,
            memory_query text NOT NULL DEFAULT '',
            memory_context text NOT NULL DEFAULT '',
            method_params jsonb NOT NULL DEFAULT '{}',
            method_return_value jsonb NOT NULL DEFAULT 'null',
            error_message text NOT NULL DEFAULT '',
            session_feedback text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions (user_id, session_id)
        )""",
        "CREATE INDEX session_traces_by_session ON session_traces (user_id, session_id, seq)",
        """CREATE TABLE session_context (
            seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            id uuid PRIMARY KEY,
            user_id uuid NOT NULL,
            session_id text NOT NULL,
            context_profile text NOT NULL,
            section text NOT NULL,
            content text NOT NULL,
            normalized_content text NOT NULL,
            confidence double precision NOT NULL,
            source_ids jsonb NOT NULL DEFAULT '[]',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions (user_id, session_id),
            UNIQUE (user_id, session_id, context_profile, section, normalized_content)
        )""",
        # What each consumer (an improve stage) already processed; for a Q&A rating, at which
        # revision. Deleted with the entry (no foreign key: the entry table depends on kind).
        """CREATE TABLE session_marks (
            kind text NOT NULL,
            entry_id uuid NOT NULL,
            consumer text NOT NULL,
            rating_rev integer NOT NULL DEFAULT 0,
            marked_at timestamptz NOT NULL,
            PRIMARY KEY (kind, entry_id, consumer)
        )""",
    ),
)

_V3_DERIVED = Migration(
    3,
    "improve: derived graph elements (owners), per-dataset improve state",
    (
        # Which nodes/edges improve() derived, and who owns them; the cascades keep these rows
        # in step with every deletion path (document, dataset, everything).
        """CREATE TABLE derived_nodes (
            node_id uuid PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
            dataset_id uuid NOT NULL,
            owner text NOT NULL
        )""",
        "CREATE INDEX derived_nodes_by_owner ON derived_nodes (dataset_id, owner)",
        """CREATE TABLE derived_edges (
            edge_id uuid PRIMARY KEY REFERENCES edges (id) ON DELETE CASCADE,
            dataset_id uuid NOT NULL,
            owner text NOT NULL
        )""",
        "CREATE INDEX derived_edges_by_owner ON derived_edges (dataset_id, owner)",
        """CREATE TABLE improve_state (
            dataset_id uuid NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
            key text NOT NULL,
            value text NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (dataset_id, key)
        )""",
    ),
)

_V4_ACCESS = Migration(
    4,
    "access control: administrator flag, API keys (hashed), dataset grants",
    (
        "ALTER TABLE users ADD COLUMN is_admin boolean NOT NULL DEFAULT false",
        # Only a hash of the key's secret is stored; the key is shown once, at creation.
        """CREATE TABLE api_keys (
            id uuid PRIMARY KEY,
            user_id uuid NOT NULL REFERENCES users (id),
            name text NOT NULL DEFAULT '',
            prefix text NOT NULL,
            secret_hash text NOT NULL,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        )""",
        "CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at)",
        # Deleted with their dataset (every deletion path removes the datasets row).
        """CREATE TABLE grants (
            dataset_id uuid NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
            grantee_id uuid NOT NULL REFERENCES users (id),
            permission text NOT NULL
                CHECK (permission IN ('read', 'write', 'delete', 'share')),
            granted_by uuid NOT NULL,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (dataset_id, grantee_id, permission)
        )""",
        "CREATE INDEX grants_by_grantee ON grants (grantee_id, permission)",
    ),
)

_V5_STAGED = Migration(
    5,
    "staged inputs: added to a dataset, not built into its graph yet (cognee's add)",
    (
        """CREATE TABLE staged_data (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            dataset_id uuid NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
            content_hash text NOT NULL,
            name text NOT NULL,
            text text NOT NULL,
            mime_type text NOT NULL,
            size_bytes bigint NOT NULL,
            source_path text,
            options jsonb NOT NULL DEFAULT '{}',
            created_at timestamptz NOT NULL,
            UNIQUE (dataset_id, content_hash)
        )""",
    ),
)

_V6_TENANTS = Migration(
    6,
    "tenants and roles: members, a user's selected tenant, a dataset's tenant, grants to any "
    "principal (user, role, tenant)",
    (
        """CREATE TABLE tenants (
            id uuid PRIMARY KEY,
            name text NOT NULL,
            owner_id uuid NOT NULL REFERENCES users (id),
            created_at timestamptz NOT NULL
        )""",
        """CREATE TABLE tenant_members (
            tenant_id uuid NOT NULL REFERENCES tenants (id),
            user_id uuid NOT NULL REFERENCES users (id),
            created_at timestamptz NOT NULL,
            PRIMARY KEY (tenant_id, user_id)
        )""",
        "CREATE INDEX tenant_members_by_user ON tenant_members (user_id, tenant_id)",
        """CREATE TABLE roles (
            id uuid PRIMARY KEY,
            tenant_id uuid NOT NULL REFERENCES tenants (id),
            name text NOT NULL,
            created_at timestamptz NOT NULL,
            UNIQUE (tenant_id, name)
        )""",
        """CREATE TABLE role_members (
            role_id uuid NOT NULL REFERENCES roles (id),
            user_id uuid NOT NULL REFERENCES users (id),
            created_at timestamptz NOT NULL,
            PRIMARY KEY (role_id, user_id)
        )""",
        "CREATE INDEX role_members_by_user ON role_members (user_id, role_id)",
        "ALTER TABLE users ADD COLUMN tenant_id uuid REFERENCES tenants (id)",
        "ALTER TABLE datasets ADD COLUMN tenant_id uuid REFERENCES tenants (id)",
        # The grantee may now be a role or a tenant (the store checks the grantee exists).
        "ALTER TABLE grants DROP CONSTRAINT grants_grantee_id_fkey",
        "ALTER TABLE grants ADD COLUMN grantee_kind text NOT NULL DEFAULT 'user' "
        "CHECK (grantee_kind IN ('user', 'role', 'tenant'))",
    ),
)

_V7_TOOLS = Migration(
    7,
    "recall's tools scope: registered SQL connections and approval-gated write proposals",
    (
        # The connection string is a secret: read only when a query runs, never listed.
        """CREATE TABLE tool_connections (
            id uuid PRIMARY KEY,
            owner_id uuid NOT NULL REFERENCES users (id),
            name text NOT NULL,
            provider text NOT NULL CHECK (provider IN ('sqlite', 'postgres')),
            connection_string text NOT NULL,
            options jsonb NOT NULL DEFAULT '{}',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            UNIQUE (owner_id, name)
        )""",
        """CREATE TABLE tool_write_proposals (
            id uuid PRIMARY KEY,
            owner_id uuid NOT NULL REFERENCES users (id),
            connection_name text NOT NULL,
            status text NOT NULL
                CHECK (status IN ('proposed', 'applied', 'rejected', 'failed')),
            instruction text NOT NULL,
            evidence jsonb,
            sql text NOT NULL,
            target_table text,
            estimated_rows bigint,
            applied_rows bigint,
            error text,
            created_at timestamptz NOT NULL,
            resolved_at timestamptz
        )""",
        "CREATE INDEX tool_write_proposals_by_owner ON tool_write_proposals (owner_id, created_at)",
    ),
)

_V8_SERVED_GUIDANCE = Migration(
    8,
    "Q&A entries record the session guidance their answer's prompt showed",
    ("ALTER TABLE session_qa ADD COLUMN used_context_ids uuid[] NOT NULL DEFAULT '{}'",),
)

_V9_RUN_STAGES = Migration(
    9,
    "pipeline runs keep the stage results of an improve run (list_improve_runs)",
    ("ALTER TABLE pipeline_runs ADD COLUMN stages jsonb NOT NULL DEFAULT '[]'",),
)

_V10_LEXICAL_TERMS = Migration(
    10,
    "full-text document frequencies per (collection, dataset, word), kept with the rows",
    (*TERMS_DDL, add_terms("TRUE")),
)

MIGRATIONS: tuple[Migration, ...] = (
    _V1_CORE,
    _V2_SESSIONS,
    _V3_DERIVED,
    _V4_ACCESS,
    _V5_STAGED,
    _V6_TENANTS,
    _V7_TOOLS,
    _V8_SERVED_GUIDANCE,
    _V9_RUN_STAGES,
    _V10_LEXICAL_TERMS,
)
LATEST_VERSION = latest_version(MIGRATIONS)


async def applied_version(conn: AsyncConnection[Any], schema: str) -> int | None:
    """The newest applied version in ``schema`` (None: no engramdb tables there)."""
    table = sql.Identifier(schema, "schema_migrations")
    cur = await conn.execute(
        sql.SQL("SELECT to_regclass({})").format(sql.Literal(table.as_string()))
    )
    row = await cur.fetchone()
    if row is None or row[0] is None:
        return None
    cur = await conn.execute(sql.SQL("SELECT max(version) FROM {}").format(table))
    found = await cur.fetchone()
    return None if found is None or found[0] is None else int(found[0])


async def apply_migrations(conn: AsyncConnection[Any]) -> list[int]:
    """Apply every pending migration; the caller holds an open transaction (and commits it).
    Returns the versions applied now."""
    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
    await conn.execute(
        """CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY,
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )"""
    )
    cur = await conn.execute("SELECT version FROM schema_migrations")
    done = {int(row[0]) for row in await cur.fetchall()}
    newly: list[int] = []
    for migration in pending(MIGRATIONS, done):
        for statement in migration.statements:
            await conn.execute(statement)
        await conn.execute(record_sql(POSTGRES), (migration.version, migration.name, utcnow()))
        newly.append(migration.version)
    return newly
