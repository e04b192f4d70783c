"""How the room owner reaches the rules: in-process engine or the rules service."""

from __future__ import annotations

from hand_table import LocalRules, RulesPort

__all__ = ["GrpcRules", "LocalRules", "RulesPort"]


class GrpcRules:
    """The stateless rules service over gRPC (any replica answers any call)."""

    def __init__(self, address: str, max_message_bytes: int = 4 * 1024 * 1024, timeout_s: float = 3.0) -> None:
        self.timeout_s = timeout_s
        import grpc

        from hand.v1 import rules_service_pb2_grpc

        opts = [("grpc.max_receive_message_length", max_message_bytes),
                ("grpc.max_send_message_length", max_message_bytes),
                ("grpc.lb_policy_name", "round_robin"),
                # a rules service that comes back is found again within a second or two
                ("grpc.initial_reconnect_backoff_ms", 200), ("grpc.min_reconnect_backoff_ms", 200),
                ("grpc.max_reconnect_backoff_ms", 2000)]
        self._channel = grpc.aio.insecure_channel(address, options=opts)
        self._stub = rules_service_pb2_grpc.RulesServiceStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def _call(self, method, request):
        import grpc
        from grpc_status import rpc_status

        from hand_engine import Code, RuleViolation
        from hand_common.status import from_status

        from hand_table import RoomCode, RoomError

        try:
            return await method(request, timeout=self.timeout_s)
        except grpc.aio.AioRpcError as exc:
            detail = from_status(rpc_status.from_call(exc)) if exc.trailing_metadata() else None
            if detail is not None and detail.code:
                from hand.v1 import errors_pb2

                name = errors_pb2.ErrorCode.Name(detail.code).removeprefix("ERROR_CODE_")
                if name in Code.__members__:
                    raise RuleViolation(Code[name], detail.message, **dict(detail.params)) from None
            # the rules service is down, overloaded or failed: nothing was applied; retry later
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, f"rules service: {exc.code().name}",
                            retry_after_ms=1000) from None

    async def start_round(self, options, n, *, seed, dealer, round_no, fair=None):
        from hand.v1 import options_pb2, rules_service_pb2 as rs
        from hand_wire import event_from_proto, options_to_proto, state_from_proto

        req = rs.StartRoundRequest(rules=options_pb2.RuleSelection(preset="hand", overrides=options_to_proto(options)),
                                   seats=n, seed=seed, round_no=round_no)
        if dealer is not None:
            req.dealer = dealer
        if fair is not None:
            req.fair.server_seed, req.fair.seat_seeds[:] = fair.server_seed, fair.seat_seeds
            req.fair.deal_version = fair.version
        resp = await self._call(self._stub.StartRound, req)
        return state_from_proto(resp.state), [event_from_proto(e) for e in resp.events]

    async def apply(self, state, seat, action):
        from hand.v1 import rules_service_pb2 as rs
        from hand_wire import action_to_proto, event_from_proto, state_from_proto, state_to_proto

        resp = await self._call(self._stub.ApplyAction, rs.ApplyActionRequest(
            state=state_to_proto(state), seat=seat, action=action_to_proto(action)))
        return state_from_proto(resp.state), [event_from_proto(e) for e in resp.events]

    async def auto_turn(self, state):
        from hand.v1 import rules_service_pb2 as rs
        from hand_wire import action_from_proto, state_to_proto

        resp = await self._call(self._stub.AutoTurn, rs.AutoTurnRequest(state=state_to_proto(state)))
        return [action_from_proto(a) for a in resp.actions]
