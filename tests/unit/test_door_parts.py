"""The door's parts without a server: page tokens, field limits, token buckets, peers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hand.v1 import room_service_pb2, rules_service_pb2, state_pb2
from hand_common import pagetoken
from hand_common.limits import DEFAULT_REPEATED, DEFAULT_STRING, LIMITS, check
from hand_common.ratelimit import Buckets, peer_host
from hand_common.refusal import Refusal


@given(st.integers(0, pagetoken.MAX_OFFSET))
def test_a_page_token_gives_back_its_offset(offset: int) -> None:
    assert pagetoken.decode(pagetoken.encode(offset, scope="leaderboard"), scope="leaderboard") == offset


@given(st.text(max_size=300))
def test_any_other_text_is_refused_as_a_page_token_never_crashes(text: str) -> None:
    try:
        offset = pagetoken.decode(text, scope="leaderboard")
    except Refusal as refusal:
        assert refusal.code == "INVALID_ARGUMENT" and refusal.params == {"field": "page_token"}
    else:
        assert 0 <= offset <= pagetoken.MAX_OFFSET and (not text or text == pagetoken.encode(
            offset, scope="leaderboard"))


@pytest.mark.parametrize("token", ["50", "٣", "9" * 5000, str(2**63), "-1", "AVMAAAAy=", " AVMAAAAy"])
def test_the_page_tokens_that_crashed_the_ledger_are_refused(token: str) -> None:
    with pytest.raises(Refusal):
        pagetoken.decode(token, scope="leaderboard")


def test_a_token_of_one_list_is_refused_by_another() -> None:
    with pytest.raises(Refusal):
        pagetoken.decode(pagetoken.encode(50, scope="leaderboard"), scope="rooms")


def test_over_long_fields_are_refused_with_their_path_and_limit() -> None:
    with pytest.raises(Refusal) as info:
        check(room_service_pb2.ActRequest(room_id="r", action_id="a" * 129))
    assert (info.value.code, info.value.params) == ("LIMIT_EXCEEDED", {"field": "action_id", "limit": 128})
    check(room_service_pb2.ActRequest(room_id="r", action_id="a" * 128))
    state = state_pb2.RoundState()
    state.seats.add().hand.extend([1] * (DEFAULT_REPEATED + 1))
    with pytest.raises(Refusal) as info:
        check(rules_service_pb2.ApplyActionRequest(state=state))
    assert info.value.params == {"field": "state.seats[0].hand", "limit": DEFAULT_REPEATED}
    check(rules_service_pb2.EchoRequest(payload=b"x" * 100_000))  # only the message size limit


def test_every_named_limit_is_a_field_of_the_contract() -> None:
    from google.protobuf import descriptor_pool

    import hand.v1.auth_service_pb2  # noqa: F401 - each import registers its messages
    import hand.v1.ledger_service_pb2  # noqa: F401
    import hand.v1.tournament_service_pb2  # noqa: F401

    pool = descriptor_pool.Default()

    for name in LIMITS:
        message, _, field = name.rpartition(".")
        assert field in pool.FindMessageTypeByName(message).fields_by_name, name
    assert DEFAULT_STRING >= 128


def test_a_bucket_refills_at_its_rate_and_names_the_wait() -> None:
    now = [0.0]
    buckets = Buckets(rate=2.0, burst=3, max_keys=10, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0.0  # other keys are not charged
    now[0] = 0.5
    assert buckets.take("a") == 0.0


def test_buckets_forget_the_least_recently_seen_keys() -> None:
    buckets = Buckets(rate=1.0, burst=1, max_keys=100, clock=lambda: 0.0)
    for i in range(10_000):
        buckets.take(f"peer{i}")
    assert len(buckets._state) == 100


@pytest.mark.parametrize("peer, host", [("ipv4:10.0.0.7:5555", "ipv4:10.0.0.7"),
                                        ("ipv6:[::1]:443", "ipv6:[::1]"), ("unix:/tmp/s", "unix:/tmp/s"),
                                        (None, "unknown")])
def test_the_peer_bucket_is_per_address_not_per_port(peer, host) -> None:
    assert peer_host(peer) == host



def test_the_contract_doc_lists_every_limit() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "contracts.md").read_text(encoding="utf-8")
    for name, limit in LIMITS.items():
        row = f"| `{name.removeprefix('hand.v1.')}` | {'the message size limit only' if limit is None else limit} |"
        assert row in text, row
