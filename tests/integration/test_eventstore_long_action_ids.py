"""Action ids up to the documented 128 characters are stored, whatever prefix the owner adds.

The room owner keys an action by ``<seat-hash prefix>:<client action id>``
(17 + up to 128 characters); PostgreSQL refused a key over the
``String(128)`` column, so a legal Act of a 112–128 character id failed with
INTERNAL there (issue 11). SQLite never noticed: it does not enforce varchar
lengths, which is why each test runs on both backends.
"""

from __future__ import annotations

import pytest

from hand_infra.eventstore import DuplicateAction, EventStore, stored_key

SEAT_PREFIX = "0123456789abcdef:"  # what owner.py puts before the client's id


@pytest.mark.parametrize("length", [111, 112, 120, 128])
async def test_a_legal_action_id_with_the_owner_prefix_is_applied_once(
        store: EventStore, length: int) -> None:
    key = SEAT_PREFIX + "a" * length
    assert await store.append("r1", 0, [("Moved", b"1")], action_id=key) == [0]
    with pytest.raises(DuplicateAction) as info:
        await store.append("r1", 1, [("Moved", b"2")], action_id=key)
    assert info.value.seqs == [0] and info.value.action_id == key
    assert await store.lookup_action("r1", key) == [0]
    assert await store.next_seq("r1") == 1


async def test_the_batch_path_stores_and_finds_long_keys(store: EventStore) -> None:
    long_a, long_b = SEAT_PREFIX + "x" * 128, SEAT_PREFIX + "y" * 128
    results = await store.append_batch([
        ("r1", 0, [("A", b"a")], long_a), ("r2", 0, [("B", b"b")], long_b), ("r1", 1, [("C", b"c")], long_a)])
    assert results[0] == [0] and results[1] == [0]
    assert isinstance(results[2], DuplicateAction) and results[2].seqs == [0]
    assert await store.lookup_actions([("r1", long_a), ("r2", long_b), ("r2", long_a)]) == {
        ("r1", long_a): [0], ("r2", long_b): [0]}


def test_long_keys_hash_to_distinct_column_sized_keys_and_short_ones_stay_as_they_are() -> None:
    assert stored_key("a" * 128) == "a" * 128
    assert len(stored_key("a" * 145)) <= 128
    assert stored_key("a" * 145) != stored_key("a" * 144 + "b")
