"""docs/rules.md §2 — Seats, deal, turn order."""

from __future__ import annotations

import random

import pytest

from hand_engine import (
    Code, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake, RuleViolation,
    TakeDiscard, apply, next_round, record_round, resolve, start_match, start_round,
)
from hand_engine.events import RoundStarted, TurnStarted
from hand_engine.invariants import check_state
from tests.moves_support import ok, refused

FIVE = resolve("hand", {"max_players": 5})


def _deck(seed: int) -> list[int]:
    d = list(range(106))
    random.Random(seed).shuffle(d)
    return d


SEAT_COUNTS = [2, 3, 4, 5]


# --------------------------------------------------------------- the deal layout
@pytest.mark.parametrize("n", SEAT_COUNTS)
@pytest.mark.parametrize("dealer_offset", [0, 1, -1])
def test_seat_starter_plus_k_receives_d_k_for_k_0_to_14n(n: int, dealer_offset: int) -> None:
    """For k = 0 … 14n, seat (starter + k) mod n receives d[k]."""
    d = _deck(100 * n + dealer_offset)
    dealer = dealer_offset % n
    state, _ = start_round(FIVE, n, deck=d, dealer=dealer)
    starter = (dealer + 1) % n
    assert state.starter == starter
    expected: list[list[int]] = [[] for _ in range(n)]
    for k in range(14 * n + 1):
        expected[(starter + k) % n].append(d[k])
    for seat in range(n):
        assert sorted(state.seats[seat].hand) == sorted(expected[seat])
        assert state.seats[seat].hand == tuple(sorted(expected[seat]))
    check_state(state)


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_the_starter_gets_15_cards_including_d_14n_and_the_others_14(n: int) -> None:
    d = _deck(n)
    dealer = n - 1
    state, _ = start_round(FIVE, n, deck=d, dealer=dealer)
    starter = 0
    assert [len(s.hand) for s in state.seats] == [15 if s == starter else 14 for s in range(n)]
    assert d[14 * n] in state.seats[starter].hand
    assert d[0] in state.seats[starter].hand


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_the_stock_is_the_rest_of_d_in_order_and_the_pile_starts_empty(n: int) -> None:
    """The stock is d[14n+1 … 105], d[14n+1] drawn first; the discard pile starts empty."""
    d = _deck(7 * n)
    state, _ = start_round(FIVE, n, deck=d, dealer=0)
    assert state.stock == tuple(d[14 * n + 1:])
    assert len(state.stock) == 106 - (14 * n + 1)
    assert state.pile == ()
    assert state.melds == ()
    assert state.deck == tuple(d)


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_d_14n_plus_1_is_the_first_card_drawn(n: int) -> None:
    d = _deck(11 * n)
    state, _ = start_round(FIVE, n, deck=d, dealer=0)
    starter = 1 % n
    discard = state.seats[starter].hand[0]
    state = ok(state, starter, Discard(discard))
    nxt = (starter + 1) % n
    state, events = apply(state, nxt, DrawStock())
    assert state.turn.drawn == d[14 * n + 1]
    assert d[14 * n + 1] in state.seats[nxt].hand
    assert state.stock == tuple(d[14 * n + 2:])
    check_state(state)


def test_the_deal_is_recorded_in_the_round_started_event() -> None:
    d = _deck(5)
    state, events = start_round(resolve("hand"), 4, deck=d, dealer=2, seed=9)
    started = events[0]
    assert isinstance(started, RoundStarted)
    assert (started.dealer, started.starter, started.n_seats, started.seed) == (2, 3, 4, 9)
    assert started.deck == tuple(d)
    assert events[1] == TurnStarted(3, 1, False, True)


def test_the_explicit_deck_order_is_authoritative_whatever_the_seed() -> None:
    """A round is defined by its dealer and order d: the seed does not change an explicit deal."""
    d = _deck(1)
    a, _ = start_round(resolve("hand"), 4, deck=d, dealer=1, seed=1)
    b, _ = start_round(resolve("hand"), 4, deck=d, dealer=1, seed=2)
    assert a.seats == b.seats and a.stock == b.stock


# --------------------------------------------------------------- seats and players
@pytest.mark.parametrize("n", [2, 3, 4])
def test_two_to_four_players_with_max_players_4(n: int) -> None:
    state, _ = start_round(resolve("hand"), n, seed=1)
    assert state.n == n


@pytest.mark.parametrize("n", [0, 1, 5, 6])
def test_other_player_counts_are_refused_with_max_players_4(n: int) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("hand"), n, seed=1)
    assert info.value.code is Code.INVALID_OPTIONS


@pytest.mark.parametrize("preset", ["hand", "r2019"])
def test_max_players_5_allows_five_seats(preset: str) -> None:
    options = resolve(preset, {"max_players": 5})
    state, _ = start_round(options, 5, seed=4)
    assert [len(s.hand) for s in state.seats].count(15) == 1
    assert len(state.stock) == 106 - 71


@pytest.mark.parametrize("n", [1, 6])
def test_max_players_5_still_refuses_one_or_six_seats(n: int) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(FIVE, n, seed=1)
    assert info.value.code is Code.INVALID_OPTIONS


def test_max_players_takes_only_4_or_5() -> None:
    for bad in (3, 6):
        with pytest.raises(RuleViolation) as info:
            resolve("hand", {"max_players": bad})
        assert info.value.code is Code.INVALID_OPTIONS


@pytest.mark.parametrize("preset", ["partnership", "saudi-partnership", "eram-partnership"])
def test_partnership_plays_with_exactly_four_seats(preset: str) -> None:
    state, _ = start_round(resolve(preset), 4, seed=3)
    assert state.n == 4


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("preset", ["partnership", "saudi-partnership", "eram-partnership", "eram-saudi-partnership"])
def test_partnership_with_other_than_four_seats_is_refused(preset: str, n: int) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve(preset), n, seed=3)
    assert info.value.code is Code.INVALID_OPTIONS


def test_partnership_with_five_seats_is_refused_even_with_max_players_5() -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("partnership", {"max_players": 5}), 5, seed=3)
    assert info.value.code is Code.INVALID_OPTIONS


def test_partnership_also_refuses_a_match_without_four_seats() -> None:
    with pytest.raises(RuleViolation) as info:
        start_match(resolve("partnership"), 3)
    assert info.value.code is Code.INVALID_OPTIONS


def test_partners_face_each_other_teams_are_seats_0_2_and_1_3() -> None:
    state, _ = start_round(resolve("eram-partnership"), 4, seed=3)
    assert state.team_of(0) == (0, 2) and state.team_of(2) == (2, 0)
    assert state.team_of(1) == (1, 3) and state.team_of(3) == (3, 1)


# --------------------------------------------------------------- dealer and starter
def test_round_one_dealer_comes_from_the_seed_deterministically_and_is_recorded() -> None:
    for seed in range(20):
        a, ea = start_round(resolve("hand"), 4, seed=seed)
        b, eb = start_round(resolve("hand"), 4, seed=seed)
        assert a == b and ea == eb
        assert ea[0].dealer == a.dealer
        assert ea[0].deck == a.deck
        assert sorted(a.deck) == list(range(106))


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_the_seeded_dealer_can_be_every_seat(n: int) -> None:
    """Chosen uniformly at random from the seed: over many seeds every seat deals."""
    dealers = {start_round(FIVE, n, seed=seed)[0].dealer for seed in range(200)}
    assert dealers == set(range(n))


def test_different_seeds_give_different_shuffles() -> None:
    decks = {start_round(resolve("hand"), 4, seed=seed)[0].deck for seed in range(10)}
    assert len(decks) == 10


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_the_starter_is_dealer_plus_one_and_moves_first(n: int) -> None:
    for dealer in range(n):
        state, events = start_round(FIVE, n, seed=1, dealer=dealer)
        assert state.dealer == dealer
        assert state.turn.seat == (dealer + 1) % n
        assert events[0].starter == (dealer + 1) % n


def test_a_shuffled_deal_records_its_order_and_replays_from_it() -> None:
    state, events = start_round(resolve("hand"), 3, seed=42)
    again, _ = start_round(resolve("hand"), 3, deck=events[0].deck, dealer=events[0].dealer)
    assert again.seats == state.seats and again.stock == state.stock


def test_round_r_plus_1_dealer_is_round_r_dealer_plus_one() -> None:
    """The previous starter deals the next round."""
    options = resolve("hand", {"max_turns": 1})
    match = start_match(options, 3, seed=5)
    dealers = []
    for _ in range(4):
        state, _ = next_round(match)
        dealers.append(state.dealer)
        starter = state.turn.seat
        state = ok(state, starter, Discard(state.seats[starter].hand[0]))
        seat = state.turn.seat
        state = ok(state, seat, DrawStock())
        state = ok(state, seat, Discard(state.seats[seat].hand[0]))
        assert state.result is not None and state.result.finish == "exhausted"
        match = record_round(match, state)
        if match.over:
            break
    assert all(b == (a + 1) % 3 for a, b in zip(dealers, dealers[1:]))


# --------------------------------------------------------------- refused deals
@pytest.mark.parametrize(
    "deck",
    [
        list(range(105)),
        list(range(107)),
        [*range(105), 0],
        [*range(105), 106],
        [*range(105), -1],
        [*range(1, 106), 0.0],
        [*range(1, 106), False],
        [*range(105), "105"],
        [*range(105), None],
        [],
    ],
    ids=["105 cards", "107 cards", "duplicate", "id 106", "id -1", "float", "bool", "str", "None", "empty"],
)
def test_a_deck_order_that_is_not_the_106_ids_once_each_is_refused(deck: list) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("hand"), 4, deck=deck, dealer=0)
    assert info.value.code is Code.INVALID_ARGUMENT


@pytest.mark.parametrize("dealer", [-1, 4, True, 1.0, "0"])
def test_a_dealer_outside_the_seats_is_refused(dealer: object) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("hand"), 4, seed=1, dealer=dealer)  # type: ignore[arg-type]
    assert info.value.code is Code.INVALID_ARGUMENT


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", None])
def test_a_seed_outside_0_to_2_64_is_refused(seed: object) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("hand"), 4, seed=seed)  # type: ignore[arg-type]
    assert info.value.code is Code.INVALID_ARGUMENT


@pytest.mark.parametrize("n", [4.0, "4", None])
def test_a_seat_count_that_is_not_an_integer_is_refused(n: object) -> None:
    with pytest.raises(RuleViolation) as info:
        start_round(resolve("hand"), n, seed=1)  # type: ignore[arg-type]
    assert info.value.code is Code.INVALID_ARGUMENT


# --------------------------------------------------------------- the starter's discard-only turn
@pytest.fixture
def dealt():
    state, _ = start_round(resolve("hand"), 4, deck=_deck(3), dealer=3)
    return state


def test_the_starters_first_turn_is_already_past_the_draw_step(dealt) -> None:
    assert dealt.turn.seat == 0
    assert dealt.turn.phase == "play"
    assert dealt.turn.opening_discard


def test_the_starter_may_not_draw_from_the_stock_on_the_first_turn(dealt) -> None:
    refused(dealt, 0, DrawStock(), Code.OPENING_DISCARD_ONLY)


def test_the_starter_may_not_take_the_discard_top_on_the_first_turn(dealt) -> None:
    refused(dealt, 0, TakeDiscard(), Code.OPENING_DISCARD_ONLY)


def test_the_starter_may_not_lay_melds_on_the_first_turn() -> None:
    """Even a 51-point opening is refused on the starter's discard-only turn."""
    # seat 0 (starter, dealer 3) gets d[0], d[4], ..., d[56]: put K♠ Q♠ J♠ 7♥ 7♦ 7♣ there
    wanted = [12, 11, 10, 19, 32, 45]
    rest = [x for x in range(106) if x not in wanted]
    d = []
    for k in range(106):
        d.append(wanted.pop(0) if k % 4 == 0 and wanted else rest.pop(0))
    state, _ = start_round(resolve("hand"), 4, deck=d, dealer=3)
    spec = (MeldSpec((12, 11, 10)), MeldSpec((19, 32, 45)))
    assert set(spec[0].cards + spec[1].cards) <= set(state.seats[0].hand)
    refused(state, 0, LayMelds(spec), Code.OPENING_DISCARD_ONLY)


def test_the_starter_may_not_lay_off_or_retrieve_on_the_first_turn(dealt) -> None:
    card = dealt.seats[0].hand[0]
    refused(dealt, 0, LayOff(1, (card,)), Code.OPENING_DISCARD_ONLY)
    refused(dealt, 0, RetrieveJoker(1, 104, (card,)), Code.OPENING_DISCARD_ONLY)


def test_the_starter_has_no_take_to_return(dealt) -> None:
    refused(dealt, 0, ReturnTake(), Code.NO_ACTIVE_TAKE)


def test_the_starter_may_not_discard_a_card_it_does_not_hold(dealt) -> None:
    other = dealt.seats[1].hand[0]
    refused(dealt, 0, Discard(other), Code.CARD_NOT_IN_HAND)


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_nobody_else_moves_during_the_starters_discard(dealt, seat: int) -> None:
    refused(dealt, seat, DrawStock(), Code.NOT_YOUR_TURN)
    refused(dealt, seat, Discard(dealt.seats[seat].hand[0]), Code.NOT_YOUR_TURN)


def test_the_starters_discard_starts_the_pile_and_passes_the_turn(dealt) -> None:
    card = dealt.seats[0].hand[5]
    state, events = apply(dealt, 0, Discard(card))
    check_state(state)
    assert state.pile == (card,)
    assert len(state.seats[0].hand) == 14
    assert state.turn.seat == 1 and state.turn.phase == "draw"
    assert state.turn.first_turn
    assert state.draw_turns == 0


def test_the_starters_opening_discard_does_not_count_as_its_first_turn(dealt) -> None:
    """Its next turn, the first in which it draws, is its first turn (out_on_first_turn)."""
    state = ok(dealt, 0, Discard(dealt.seats[0].hand[0]))
    for seat in (1, 2, 3):
        state = ok(state, seat, DrawStock())
        state = ok(state, seat, Discard(state.turn.drawn))
    assert state.turn.seat == 0 and state.turn.first_turn
    state = ok(state, 0, DrawStock())
    state = ok(state, 0, Discard(state.turn.drawn))
    assert state.turn.seat == 1 and not state.turn.first_turn


@pytest.mark.parametrize("n", SEAT_COUNTS)
def test_play_goes_to_seat_s_plus_1_mod_n(n: int) -> None:
    state, _ = start_round(FIVE, n, deck=_deck(n), dealer=n - 2)
    seat = state.turn.seat
    assert seat == n - 1
    order = [seat]
    state = ok(state, seat, Discard(state.seats[seat].hand[0]))
    for _ in range(2 * n):
        seat = state.turn.seat
        order.append(seat)
        state = ok(state, seat, DrawStock())
        state = ok(state, seat, Discard(state.turn.drawn))
    assert all(b == (a + 1) % n for a, b in zip(order, order[1:]))
