"""The backend-independent in-memory index (storage/vectors.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engramdb.storage.vectors import VectorIndex, search_indexes


def _rows(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def _expected(ids: list[str], rows: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    sims = rows @ query / (np.linalg.norm(rows, axis=1) * np.linalg.norm(query))
    return [ids[i] for i in np.argsort(1 - sims, kind="stable")[:k]]


def test_empty_index() -> None:
    index = VectorIndex(8)
    assert len(index) == 0
    assert index.search(np.ones(8, dtype=np.float32), 5) == []
    assert index.remove(["nope"]) == 0
    assert index.distances(np.ones(8, dtype=np.float32)).shape == (0,)


def test_add_and_exact_search() -> None:
    rows = _rows(200)
    ids = [f"n{i}" for i in range(200)]
    index = VectorIndex(8)
    index.add(ids, rows)
    assert len(index) == 200 and "n5" in index
    for query in _rows(10, seed=1):
        hits = index.search(query, 7)
        assert [h[0] for h in hits] == _expected(ids, rows, query, 7)
        distances = [h[1] for h in hits]
        assert distances == sorted(distances)
    all_hits = index.search(rows[3], 1000)
    assert len(all_hits) == 200
    assert all_hits[0][0] == "n3" and all_hits[0][1] == pytest.approx(0.0, abs=1e-6)


def test_replace_keeps_one_row() -> None:
    index = VectorIndex(4)
    index.add(["a", "b"], np.eye(4, dtype=np.float32)[:2])
    index.add(["a"], np.eye(4, dtype=np.float32)[2:3])
    assert len(index) == 2
    assert index.search(np.eye(4, dtype=np.float32)[2], 1) == [("a", pytest.approx(0.0))]
    np.testing.assert_array_equal(index.get("a"), np.eye(4, dtype=np.float32)[2])


def test_duplicate_ids_in_one_add_keep_the_last() -> None:
    index = VectorIndex(2)
    index.add(["a", "a"], np.array([[1, 0], [0, 1]], dtype=np.float32))
    assert len(index) == 1
    np.testing.assert_array_equal(index.get("a"), [0, 1])


def test_swap_remove_keeps_the_rest_searchable() -> None:
    rows = _rows(50)
    ids = [f"n{i}" for i in range(50)]
    index = VectorIndex(8)
    index.add(ids, rows)
    removed = {"n0", "n49", "n17", "missing"}
    assert index.remove(removed) == 3
    keep = [i for i, name in enumerate(ids) if name not in removed]
    assert sorted(index.ids()) == sorted(ids[i] for i in keep)
    for i in keep:
        np.testing.assert_array_equal(index.get(ids[i]), rows[i])
    query = _rows(1, seed=3)[0]
    expected = _expected([ids[i] for i in keep], rows[keep], query, 5)
    assert [h[0] for h in index.search(query, 5)] == expected


def test_grows_past_capacity() -> None:
    index = VectorIndex(8, capacity=1)
    start = index.capacity
    for i in range(300):
        index.add([f"n{i}"], _rows(1, seed=i))
    assert len(index) == 300 and index.capacity >= 300 > start
    np.testing.assert_array_equal(index.get("n123"), _rows(1, seed=123)[0])


def test_zero_vectors_have_distance_one() -> None:
    index = VectorIndex(3)
    index.add(["zero", "x"], np.array([[0, 0, 0], [1, 0, 0]], dtype=np.float32))
    assert dict(index.search(np.array([1, 0, 0], dtype=np.float32), 2)) == {
        "x": pytest.approx(0.0),
        "zero": pytest.approx(1.0),
    }
    assert all(d == 1.0 for _, d in index.search(np.zeros(3, dtype=np.float32), 2))


def test_dimension_errors() -> None:
    index = VectorIndex(4)
    with pytest.raises(ValueError):
        index.add(["a"], np.ones((1, 5), dtype=np.float32))
    with pytest.raises(ValueError):
        index.add(["a", "b"], np.ones((1, 4), dtype=np.float32))
    index.add(["a"], np.ones(4, dtype=np.float32))
    with pytest.raises(ValueError):
        index.search(np.ones(3, dtype=np.float32), 1)
    with pytest.raises(ValueError):
        VectorIndex(0)


def test_search_indexes_merges_exactly() -> None:
    rows = _rows(90)
    ids = [f"n{i}" for i in range(90)]
    parts = [VectorIndex(8) for _ in range(3)]
    for p, index in enumerate(parts):
        index.add(ids[p * 30 : (p + 1) * 30], rows[p * 30 : (p + 1) * 30])
    query = _rows(1, seed=9)[0]
    merged = search_indexes(parts, query, 10)
    assert [h[0] for h in merged] == _expected(ids, rows, query, 10)
    assert search_indexes([], query, 10) == []
    assert search_indexes(parts, query, 0) == []


def test_mixed_add_replaces_known_and_appends_new() -> None:
    eye = np.eye(3, dtype=np.float32)
    index = VectorIndex(3)
    index.add(["a", "b"], eye[:2])
    index.add(["b", "c"], eye[[2, 0]])
    assert sorted(index.ids()) == ["a", "b", "c"]
    np.testing.assert_array_equal(index.get("b"), eye[2])
    np.testing.assert_array_equal(index.get("c"), eye[0])
    assert {hit[0] for hit in index.search(eye[0], 2)} == {"a", "c"}
