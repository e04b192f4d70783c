"""Refusals on the wire: gRPC status code, stable ErrorCode, and a message in English or Arabic."""

from __future__ import annotations

import re

import grpc
import pytest
from google.rpc import status_pb2

from hand.v1 import errors_pb2
from hand_engine import Code, RuleViolation
from hand_common.language import LANGUAGES, language
from hand_common.rule_messages import CATALOGUE, message
from hand_common.status import MALFORMED, error_code, from_status, rule_error, rule_status, status_code

ARABIC = re.compile(r"[\u0600-\u06FF]")


@pytest.mark.parametrize("code", list(Code), ids=lambda c: c.name)
def test_every_code_has_a_message_in_english_and_in_arabic(code: Code) -> None:
    entry = CATALOGUE[code]
    assert set(entry) == set(LANGUAGES)
    assert all(entry["en"]) and all(entry["ar"])
    assert len(entry["en"]) == len(entry["ar"]), "the same parameter variants in both languages"
    assert all(ARABIC.search(t) for t in entry["ar"])
    assert not any(ARABIC.search(t) for t in entry["en"])
    for lang in LANGUAGES:
        assert message(code, {}, lang)  # reads well without parameters too


@pytest.mark.parametrize("code", list(Code), ids=lambda c: c.name)
def test_every_code_maps_to_the_error_code_of_the_same_name(code: Code) -> None:
    assert errors_pb2.ErrorCode.Name(error_code(code)) == f"ERROR_CODE_{code.name}"


@pytest.mark.parametrize("code", list(Code), ids=lambda c: c.name)
def test_malformed_input_is_invalid_argument_and_rule_refusals_failed_precondition(code: Code) -> None:
    malformed = {
        Code.INVALID_ARGUMENT, Code.INVALID_OPTIONS, Code.INVALID_STATE, Code.UNKNOWN_CARD,
        Code.DUPLICATE_CARD, Code.STAGING_OVERLAP,
    }
    assert MALFORMED == malformed
    expected = grpc.StatusCode.INVALID_ARGUMENT if code in malformed else grpc.StatusCode.FAILED_PRECONDITION
    assert status_code(code) is expected


def test_parameters_fill_the_message_and_cards_are_named() -> None:
    exc = RuleViolation(Code.BELOW_THRESHOLD, "47 / 51", total=47, threshold=51)
    assert message(exc.code, exc.params, "en") == "Your opening totals 47 of the 51 needed."
    assert "47" in message(exc.code, exc.params, "ar") and "51" in message(exc.code, exc.params, "ar")
    assert "10H" in message(Code.CARD_NOT_IN_HAND, {"card": 22}, "en")
    assert "999" in message(Code.UNKNOWN_CARD, {"card": 999}, "en")
    assert message(Code.UNKNOWN_CARD, {}, "en") == "Unknown card."


def test_the_status_carries_one_rule_error_with_code_message_and_params() -> None:
    exc = RuleViolation(Code.NOT_YOUR_TURN, "it is seat 2's turn", seat=2)
    status = rule_status(exc, "ar")
    assert status.code is grpc.StatusCode.FAILED_PRECONDITION
    ((key, value),) = status.trailing_metadata
    assert key == "grpc-status-details-bin"
    rich = status_pb2.Status.FromString(value)
    error = from_status(rich)
    assert error == rule_error(exc, "ar")
    assert error.code == errors_pb2.ERROR_CODE_NOT_YOUR_TURN
    assert dict(error.params) == {"seat": "2"}
    assert error.message == status.details == rich.message and ARABIC.search(error.message)


@pytest.mark.parametrize(
    "header, lang",
    [
        (None, "en"), ("", "en"), ("ar", "ar"), ("AR-sa", "ar"), ("en-US,en;q=0.9", "en"),
        ("fr-FR, ar;q=0.8, en;q=0.5", "ar"), ("en;q=0.4, ar;q=0.6", "ar"), ("de", "en"),
        ("ar;q=0", "en"), ("ar;q=bogus", "en"),
    ],
)
def test_the_language_is_the_callers_preferred_one_we_offer(header: str | None, lang: str) -> None:
    assert language(header) == lang
