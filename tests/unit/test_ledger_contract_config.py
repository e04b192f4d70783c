"""The ledger's contract (one request and response per RPC, tie-break outcomes
mirror sheets.OUTCOMES) and its configuration from the environment."""

from __future__ import annotations

import pytest

from hand.v1 import ledger_service_pb2, ledger_service_pb2_grpc
from hand_common.config import SERVICES
from hand_common.env import ConfigError
from hand_ledger import sheets
from hand_ledger.grpc_messages import OUTCOME
from hand_ledger.settings import LedgerConfig

RPCS = ("GetScoreSheet", "GetMatchResult", "GetPlayerStats", "GetLeaderboard", "GetReplay", "CheckReplay",
        "VerifyDeal")


def test_ledger_service_has_every_rpc_with_its_own_request_and_response() -> None:
    service = ledger_service_pb2.DESCRIPTOR.services_by_name["LedgerService"]
    methods = {m.name: m for m in service.methods}
    assert set(methods) == set(RPCS)
    for name, method in methods.items():
        assert method.input_type.name == f"{name}Request"
        assert method.output_type.name == f"{name}Response"
    assert hasattr(ledger_service_pb2_grpc, "LedgerServiceStub")


def test_every_tie_break_outcome_has_an_enum_value() -> None:
    assert {OUTCOME.decode(OUTCOME.encode(o)) for o in sheets.OUTCOMES} == set(sheets.OUTCOMES)
    assert len(ledger_service_pb2.TieBreakOutcome.keys()) == len(sheets.OUTCOMES) + 1


def test_ledger_config_defaults_and_overrides() -> None:
    config = LedgerConfig.from_env({})
    assert config.server.address == "127.0.0.1:50053" and config.group_id == "hand-ledger"
    assert config.url == "sqlite:///var/hand-ledger.db"
    assert SERVICES["ledger"].module == "hand_ledger" and SERVICES["ledger"].default_port == 50053
    custom = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": "postgresql://h/db",
                                    "HAND_LEDGER_GROUP": "g"})
    assert (custom.server.port, custom.url, custom.group_id) == (0, "postgresql://h/db", "g")
    with pytest.raises(ConfigError, match="HAND_LEDGER_PORT"):
        LedgerConfig.from_env({"HAND_LEDGER_PORT": "-1"})
