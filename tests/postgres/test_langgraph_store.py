"""EngramdbStore on PostgreSQL: the same cases as on the embedded store (items, updates,
filters, per-field vectors, namespaces, users, TTL), with the store's engine on a fresh schema."""

from __future__ import annotations

import pytest

from engramdb.integrations.langgraph import EngramdbStore
from tests.unit.integrations.test_langgraph_store import (
    make_store,
    ours,
    store,
    test_a_filtered_item_far_down_the_ranking_is_still_scored,
    test_an_expired_item_is_invisible_before_any_sweep,
    test_deleting_the_last_item_drops_the_namespace,
    test_each_indexed_field_is_its_own_vector,
    test_each_user_has_their_own_items,
    test_items_persist_across_stores_on_one_data_dir,
    test_list_namespaces_prefix_suffix_depth_and_pages,
    test_long_and_unusual_namespaces_round_trip,
    test_reads_refresh_the_ttl_unless_told_not_to,
    test_search_with_filters,
    test_the_sweeper_deletes_expired_items,
    test_ttl_none_keeps_an_item_and_a_put_sets_the_ttl_afresh,
    test_update_replaces_the_embedding_and_index_false_is_not_ranked,
    test_values_round_trip_and_created_at_survives_updates,
    ttl_store,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

__all__ = [
    "make_store",
    "ours",
    "store",
    "test_a_filtered_item_far_down_the_ranking_is_still_scored",
    "test_an_expired_item_is_invisible_before_any_sweep",
    "test_deleting_the_last_item_drops_the_namespace",
    "test_each_indexed_field_is_its_own_vector",
    "test_each_user_has_their_own_items",
    "test_items_persist_across_stores_on_one_data_dir",
    "test_list_namespaces_prefix_suffix_depth_and_pages",
    "test_long_and_unusual_namespaces_round_trip",
    "test_reads_refresh_the_ttl_unless_told_not_to",
    "test_search_with_filters",
    "test_the_sweeper_deletes_expired_items",
    "test_ttl_none_keeps_an_item_and_a_put_sets_the_ttl_afresh",
    "test_update_replaces_the_embedding_and_index_false_is_not_ranked",
    "test_values_round_trip_and_created_at_survives_updates",
    "ttl_store",
]


def test_the_store_is_on_postgres(ours: EngramdbStore) -> None:
    ours.put(("a",), "k", {"v": 1})
    assert ours.engine.settings.storage_url.startswith("postgresql://")
    assert type(ours.engine.store).__name__ == "PostgresStore"
