"""Numbered schema migrations of the embedded SQLite store.

Each migration is a list of statements, applied in order inside ONE ``BEGIN IMMEDIATE``
transaction together with its row in ``schema_migrations``. The immediate transaction takes the
database's write lock first, so when two processes run ``setup`` at once the second one waits,
then sees the versions the first recorded and applies nothing: setup is idempotent and safe under
concurrency. Statements are executed one by one (never ``executescript``, which would commit the
surrounding transaction).

Conventions: ids are UUID text, times are ISO-8601 UTC text (``...+00:00``, fixed width so they
sort), JSON columns are text. ``locks.expires_at`` is a Unix timestamp (REAL) because leases
are compared arithmetically. Append new migrations; never edit a released one.
"""

from __future__ import annotations

import sqlite3

from engramdb.storage.dialect import SQLITE
from engramdb.storage.migrations import Migration, latest_version, pending, record_sql

__all__ = [
    "LATEST_VERSION",
    "LEXICAL_FTS_DDL",
    "MIGRATIONS",
    "Migration",
    "applied_versions",
    "apply_migrations",
]


#: The full-text table (created by migration 1; the bulk forget of a dataset drops and recreates
#: it with this same statement when it keeps fewer rows than it deletes).
LEXICAL_FTS_DDL = """CREATE VIRTUAL TABLE lexical_fts USING fts5(
            text, tokenize = 'unicode61 remove_diacritics 2'
        )"""

_V1_CORE = Migration(
    1,
    "core schema: users, datasets, data, runs, graph, vectors, full text, locks",
    (
        """CREATE TABLE users (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            is_default INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )""",
        # At most one default user, enforced by the database rather than by a check-then-insert.
        "CREATE UNIQUE INDEX users_single_default ON users(is_default) WHERE is_default = 1",
        """CREATE TABLE datasets (
            id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL REFERENCES users(id),
            name TEXT NOT NULL,
            embedding_model TEXT,
            embedding_dim INTEGER,
            created_at TEXT NOT NULL,
            UNIQUE (owner_id, name)
        )""",
        """CREATE TABLE data (
            id TEXT PRIMARY KEY,
            dataset_id TEXT NOT NULL REFERENCES datasets(id),
            name TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            importance_weight REAL NOT NULL,
            external_metadata TEXT NOT NULL DEFAULT '{}',
            node_set TEXT NOT NULL DEFAULT '[]',
            size_bytes INTEGER NOT NULL DEFAULT 0,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            UNIQUE (dataset_id, content_hash)
        )""",
        "CREATE INDEX data_by_dataset_created ON data(dataset_id, created_at)",
        """CREATE TABLE pipeline_runs (
            id TEXT PRIMARY KEY,
            dataset_id TEXT NOT NULL REFERENCES datasets(id),
            pipeline TEXT NOT NULL,
            status TEXT NOT NULL,
            graph_writing INTEGER NOT NULL DEFAULT 1,
            error_class TEXT,
            error_message TEXT,
            pid INTEGER,
            hostname TEXT,
            counts TEXT NOT NULL DEFAULT '{}',
            started_at TEXT NOT NULL,
            finished_at TEXT
        )""",
        "CREATE INDEX pipeline_runs_by_dataset ON pipeline_runs(dataset_id, started_at)",
        "CREATE INDEX pipeline_runs_by_status ON pipeline_runs(status)",
        # ``seq`` is an explicit INTEGER PRIMARY KEY so the integer rowid is stable (VACUUM
        # cannot renumber it) and gives a deterministic insertion order.
        """CREATE TABLE nodes (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            dataset_id TEXT NOT NULL REFERENCES datasets(id),
            type TEXT NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL DEFAULT '',
            properties TEXT NOT NULL DEFAULT '{}',
            importance_weight REAL NOT NULL,
            feedback_weight REAL NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        "CREATE INDEX nodes_by_dataset_type ON nodes(dataset_id, type)",
        """CREATE TABLE node_sources (
            node_id TEXT NOT NULL REFERENCES nodes(id),
            data_id TEXT NOT NULL REFERENCES data(id),
            PRIMARY KEY (node_id, data_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX node_sources_by_data ON node_sources(data_id)",
        """CREATE TABLE edges (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            dataset_id TEXT NOT NULL REFERENCES datasets(id),
            source_id TEXT NOT NULL REFERENCES nodes(id),
            target_id TEXT NOT NULL REFERENCES nodes(id),
            relation TEXT NOT NULL,
            properties TEXT NOT NULL DEFAULT '{}',
            importance_weight REAL NOT NULL,
            feedback_weight REAL NOT NULL
        )""",
        "CREATE INDEX edges_by_source ON edges(source_id)",
        "CREATE INDEX edges_by_target ON edges(target_id)",
        "CREATE INDEX edges_by_dataset ON edges(dataset_id)",
        """CREATE TABLE edge_sources (
            edge_id TEXT NOT NULL REFERENCES edges(id),
            data_id TEXT NOT NULL REFERENCES data(id),
            PRIMARY KEY (edge_id, data_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX edge_sources_by_data ON edge_sources(data_id)",
        """CREATE TABLE vectors (
            node_id TEXT NOT NULL REFERENCES nodes(id),
            collection TEXT NOT NULL,
            dataset_id TEXT NOT NULL,
            dim INTEGER NOT NULL,
            embedding BLOB NOT NULL,
            PRIMARY KEY (node_id, collection)
        )""",
        "CREATE INDEX vectors_by_collection_dataset ON vectors(collection, dataset_id)",
        # Append-only change log of vector writes, read by every process before it searches so
        # its in-memory matrices follow other processes' commits. op: 'upsert' | 'delete' |
        # 'drop' (evict the matrices of dataset_id, or of everything when dataset_id is NULL).
        """CREATE TABLE vector_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            collection TEXT,
            dataset_id TEXT,
            node_id TEXT,
            op TEXT NOT NULL
        )""",
        # One row per (node, full-text collection); its integer id is the FTS rowid, so deleting
        # a node's full-text rows is an indexed rowid delete.
        """CREATE TABLE lexical_docs (
            id INTEGER PRIMARY KEY,
            node_id TEXT NOT NULL REFERENCES nodes(id),
            collection TEXT NOT NULL,
            dataset_id TEXT NOT NULL,
            UNIQUE (node_id, collection)
        )""",
        "CREATE INDEX lexical_docs_by_dataset ON lexical_docs(dataset_id, collection)",
        LEXICAL_FTS_DDL,
        """CREATE TABLE locks (
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            pid INTEGER NOT NULL,
            hostname TEXT NOT NULL,
            expires_at REAL NOT NULL
        )""",
    ),
)

_V2_CACHE = Migration(
    2,
    "key-value cache (LLM answers keyed by model + prompt)",
    (
        """CREATE TABLE kv_cache (
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            data_id TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (namespace, key)
        ) WITHOUT ROWID""",
        "CREATE INDEX kv_cache_data ON kv_cache(data_id) WHERE data_id IS NOT NULL",
    ),
)

_V3_VOCAB = Migration(
    3,
    "full-text vocabulary view (document frequencies for query pruning)",
    ("CREATE VIRTUAL TABLE lexical_vocab USING fts5vocab(lexical_fts, 'row')",),
)

_V4_SESSIONS = Migration(
    4,
    "session store: sessions, Q&A entries, agent traces, guidance entries, consumer marks",
    (
        # Sessions are per user: the same session_id under two users is two sessions. Entry
        # ``seq`` values are AUTOINCREMENT so a deleted entry's number is never handed out again
        # (consumers may keep watermarks).
        """CREATE TABLE sessions (
            user_id TEXT NOT NULL REFERENCES users(id),
            session_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, session_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE session_qa (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            origin TEXT NOT NULL,
            question TEXT NOT NULL,
            context TEXT NOT NULL,
            answer TEXT NOT NULL,
            search_type TEXT,
            used_node_ids TEXT NOT NULL DEFAULT '[]',
            used_edge_ids TEXT NOT NULL DEFAULT '[]',
            feedback_score INTEGER,
            feedback_text TEXT,
            feedback_source TEXT,
            feedback_at TEXT,
            rating_rev INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions(user_id, session_id)
        )""",
        "CREATE INDEX session_qa_by_session ON session_qa(user_id, session_id, seq)",
        # The datasets an answer came from, filterable; no foreign key: a conversation outlives
        # a forgotten dataset.
        """CREATE TABLE session_qa_datasets (
            qa_id TEXT NOT NULL REFERENCES session_qa(id),
            dataset_id TEXT NOT NULL,
            PRIMARY KEY (qa_id, dataset_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX session_qa_datasets_by_dataset ON session_qa_datasets(dataset_id, qa_id)",
        """CREATE TABLE session_traces (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            origin_function TEXT NOT NULL,
            status TEXT NOT NULL,
            memory_query TEXT NOT NULL DEFAULT '',
            memory_context TEXT NOT NULL DEFAULT '',
            method_params TEXT NOT NULL DEFAULT '{}',
            method_return_value TEXT NOT NULL DEFAULT 'null',
            error_message TEXT NOT NULL DEFAULT '',
            session_feedback TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions(user_id, session_id)
        )""",
        "CREATE INDEX session_traces_by_session ON session_traces(user_id, session_id, seq)",
        """CREATE TABLE session_context (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            context_profile TEXT NOT NULL,
            section TEXT NOT NULL,
            content TEXT NOT NULL,
            normalized_content TEXT NOT NULL,
            confidence REAL NOT NULL,
            source_ids TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            FOREIGN KEY (user_id, session_id) REFERENCES sessions(user_id, session_id),
            UNIQUE (user_id, session_id, context_profile, section, normalized_content)
        )""",
        # What each consumer (an improve stage) already processed; for a Q&A rating, at which
        # revision. Deleted with the entry (no foreign key: the entry table depends on kind).
        """CREATE TABLE session_marks (
            kind TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            consumer TEXT NOT NULL,
            rating_rev INTEGER NOT NULL DEFAULT 0,
            marked_at TEXT NOT NULL,
            PRIMARY KEY (kind, entry_id, consumer)
        ) WITHOUT ROWID""",
    ),
)

_V5_EDGE_INDEXES = Migration(
    5,
    "edge indexes for bounded graph reads: (source, target) pairs and (target, relation)",
    (
        # Each replaces a single-column index it extends (a prefix still serves the old lookups).
        # (source_id, target_id) finds the edges between two given nodes without scanning a hub's
        # fan-out; (target_id, relation) reads a hub's incoming facts without its thousands of
        # incoming ``contains`` edges.
        "CREATE INDEX edges_by_source_target ON edges(source_id, target_id)",
        "CREATE INDEX edges_by_target_relation ON edges(target_id, relation)",
        "DROP INDEX edges_by_source",
        "DROP INDEX edges_by_target",
    ),
)

_V6_DERIVED = Migration(
    6,
    "improve: derived graph elements (owners), per-dataset improve state",
    (
        # Which nodes/edges improve() derived, and who owns them. The cascades keep these rows
        # in step with every deletion path (document, dataset, everything).
        """CREATE TABLE derived_nodes (
            node_id TEXT PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
            dataset_id TEXT NOT NULL,
            owner TEXT NOT NULL
        ) WITHOUT ROWID""",
        "CREATE INDEX derived_nodes_by_owner ON derived_nodes(dataset_id, owner)",
        """CREATE TABLE derived_edges (
            edge_id TEXT PRIMARY KEY REFERENCES edges(id) ON DELETE CASCADE,
            dataset_id TEXT NOT NULL,
            owner TEXT NOT NULL
        ) WITHOUT ROWID""",
        "CREATE INDEX derived_edges_by_owner ON derived_edges(dataset_id, owner)",
        """CREATE TABLE improve_state (
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (dataset_id, key)
        ) WITHOUT ROWID""",
    ),
)

_V7_ACCESS = Migration(
    7,
    "access control: administrator flag, API keys (hashed), dataset grants",
    (
        "ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0",
        # Only a hash of the key's secret is stored; the key is shown once, at creation.
        """CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            name TEXT NOT NULL DEFAULT '',
            prefix TEXT NOT NULL,
            secret_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )""",
        "CREATE INDEX api_keys_by_user ON api_keys(user_id, created_at)",
        # Deleted with their dataset (every deletion path removes the datasets row).
        """CREATE TABLE grants (
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            grantee_id TEXT NOT NULL REFERENCES users(id),
            permission TEXT NOT NULL
                CHECK (permission IN ('read', 'write', 'delete', 'share')),
            granted_by TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (dataset_id, grantee_id, permission)
        ) WITHOUT ROWID""",
        "CREATE INDEX grants_by_grantee ON grants(grantee_id, permission)",
    ),
)

_V8_STAGED = Migration(
    8,
    "staged inputs: added to a dataset, not built into its graph yet (cognee's add)",
    (
        """CREATE TABLE staged_data (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            text TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            size_bytes INTEGER NOT NULL,
            source_path TEXT,
            options TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            UNIQUE (dataset_id, content_hash)
        )""",
    ),
)

_V9_TENANTS = Migration(
    9,
    "tenants and roles: members, a user's selected tenant, a dataset's tenant, grants to any "
    "principal (user, role, tenant)",
    (
        """CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            owner_id TEXT NOT NULL REFERENCES users(id),
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE tenant_members (
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant_id, user_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX tenant_members_by_user ON tenant_members(user_id, tenant_id)",
        """CREATE TABLE roles (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            name TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (tenant_id, name)
        )""",
        """CREATE TABLE role_members (
            role_id TEXT NOT NULL REFERENCES roles(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            created_at TEXT NOT NULL,
            PRIMARY KEY (role_id, user_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX role_members_by_user ON role_members(user_id, role_id)",
        "ALTER TABLE users ADD COLUMN tenant_id TEXT REFERENCES tenants(id)",
        "ALTER TABLE datasets ADD COLUMN tenant_id TEXT REFERENCES tenants(id)",
        # The grantee may now be a role or a tenant: rebuilt without the foreign key to users
        # (the store checks the grantee exists), with the grantee's kind. Nothing references
        # grants, so the copy-drop-rename is safe inside the migration's transaction.
        """CREATE TABLE grants_v9 (
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            grantee_id TEXT NOT NULL,
            permission TEXT NOT NULL
                CHECK (permission IN ('read', 'write', 'delete', 'share')),
            granted_by TEXT NOT NULL,
            created_at TEXT NOT NULL,
            grantee_kind TEXT NOT NULL DEFAULT 'user'
                CHECK (grantee_kind IN ('user', 'role', 'tenant')),
            PRIMARY KEY (dataset_id, grantee_id, permission)
        ) WITHOUT ROWID""",
        "INSERT INTO grants_v9 (dataset_id, grantee_id, permission, granted_by, created_at) "
        "SELECT dataset_id, grantee_id, permission, granted_by, created_at FROM grants",
        "DROP TABLE grants",
        "ALTER TABLE grants_v9 RENAME TO grants",
        "CREATE INDEX grants_by_grantee ON grants(grantee_id, permission)",
    ),
)

_V10_TOOLS = Migration(
    10,
    "recall's tools scope: registered SQL connections and approval-gated write proposals",
    (
        # The connection string is a secret: read only when a query runs, never listed.
        """CREATE TABLE tool_connections (
            id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL REFERENCES users(id),
            name TEXT NOT NULL,
            provider TEXT NOT NULL CHECK (provider IN ('sqlite', 'postgres')),
            connection_string TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (owner_id, name)
        )""",
        """CREATE TABLE tool_write_proposals (
            id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL REFERENCES users(id),
            connection_name TEXT NOT NULL,
            status TEXT NOT NULL
                CHECK (status IN ('proposed', 'applied', 'rejected', 'failed')),
            instruction TEXT NOT NULL,
            evidence TEXT,
            sql TEXT NOT NULL,
            target_table TEXT,
            estimated_rows INTEGER,
            applied_rows INTEGER,
            error TEXT,
            created_at TEXT NOT NULL,
            resolved_at TEXT
        )""",
        "CREATE INDEX tool_write_proposals_by_owner ON tool_write_proposals(owner_id, created_at)",
    ),
)

_V11_SERVED_GUIDANCE = Migration(
    11,
    "Q&A entries record the session guidance their answer's prompt showed",
    ("ALTER TABLE session_qa ADD COLUMN used_context_ids TEXT NOT NULL DEFAULT '[]'",),
)

_V12_RUN_STAGES = Migration(
    12,
    "pipeline runs keep the stage results of an improve run (list_improve_runs)",
    ("ALTER TABLE pipeline_runs ADD COLUMN stages TEXT NOT NULL DEFAULT '[]'",),
)

MIGRATIONS: tuple[Migration, ...] = (
    _V1_CORE,
    _V2_CACHE,
    _V3_VOCAB,
    _V4_SESSIONS,
    _V5_EDGE_INDEXES,
    _V6_DERIVED,
    _V7_ACCESS,
    _V8_STAGED,
    _V9_TENANTS,
    _V10_TOOLS,
    _V11_SERVED_GUIDANCE,
    _V12_RUN_STAGES,
)
LATEST_VERSION = latest_version(MIGRATIONS)


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    """Versions recorded in ``schema_migrations`` (empty when the table does not exist)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if exists is None:
        return set()
    return {int(row[0]) for row in conn.execute("SELECT version FROM schema_migrations")}


def apply_migrations(conn: sqlite3.Connection, applied_at: str) -> list[int]:
    """Apply every pending migration. The caller holds an open ``BEGIN IMMEDIATE`` transaction
    (and commits it); returns the versions applied now."""
    conn.execute(
        """CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )"""
    )
    newly: list[int] = []
    for migration in pending(MIGRATIONS, applied_versions(conn)):
        for statement in migration.statements:
            conn.execute(statement)
        conn.execute(record_sql(SQLITE), (migration.version, migration.name, applied_at))
        newly.append(migration.version)
    return newly
