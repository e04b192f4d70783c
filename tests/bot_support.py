"""Positions for the bots' tests: rounds after random legal moves, their events as a seat
sees them, and the same public position with the hidden cards dealt anew."""

from __future__ import annotations

import random
from dataclasses import replace

from hand_engine import random_step, redact, resolve, start_round
from hand_engine.state import RoundState


def mid_game(preset: str = "hand", seed: int = 3, moves: int = 70) -> RoundState:
    state, _ = start_round(resolve(preset), 4, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        nxt, _, _ = random_step(state, rng)
        if nxt.result is not None:
            break  # stop short of the round's end
        state = nxt
    return state


def reshuffle_hidden(state: RoundState, seat: int, seed: int) -> RoundState:
    """The same public position and seat hand; other hands and the stock dealt anew."""
    hidden = [x for i, s in enumerate(state.seats) if i != seat for x in s.hand] + list(state.stock)
    random.Random(seed).shuffle(hidden)
    seats = []
    for i, s in enumerate(state.seats):
        if i == seat:
            seats.append(s)
        else:
            seats.append(replace(s, hand=tuple(sorted(hidden[:len(s.hand)]))))
            hidden = hidden[len(s.hand):]
    return replace(state, seats=tuple(seats), stock=tuple(hidden), seed=seed, deck=tuple(reversed(state.deck)))


def played(preset: str, seed: int, moves: int):
    """A round after ``moves`` random legal moves (short of its end) and its events."""
    state, events = start_round(resolve(preset), 4, seed=seed)
    log = list(events)
    rng = random.Random(seed)
    for _ in range(moves):
        nxt, evs, _ = random_step(state, rng)
        if nxt.result is not None:
            break
        state = nxt
        log.extend(evs)
    return state, log


def seen_by(log, seat: int) -> list:
    return [redact(e, seat) for e in log]
