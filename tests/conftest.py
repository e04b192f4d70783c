"""Test-wide settings, applied before any test module imports grpc."""

import os

# The tests' processes start PostgreSQL and the broker with subprocess (fork + exec)
# while gRPC servers and channels run on other threads. gRPC's fork handlers are only
# for a fork that goes on without exec; in a forked child they can crash it before its
# exec (seen once: a segfault in the child of TempPostgres.restart, test_chaos_dependencies).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")


#: Modules whose tests take a minute or so each (whole stacks, browsers, several instances):
#: run first, so that the two workers of ``make test`` (``--dist worksteal``) end together
#: instead of one of them starting a browser suite when the other has nothing left.
HEAVY = ("tests/e2e/", "tests/integration/test_conformance_node.py", "tests/integration/test_chaos",
         "tests/integration/test_room_failover.py", "tests/integration/test_hand_run.py",
         "tests/integration/test_bench_", "tests/integration/test_fuzz.py", "tests/integration/test_bot_match.py",
         "tests/integration/test_broker_outage.py", "tests/integration/test_ledger_kafka.py",
         "tests/integration/test_ledger_stack.py", "tests/integration/test_room_overload.py",
         "tests/integration/test_room_frozen_instance.py", "tests/integration/test_room_memory_bounds.py",
         "tests/integration/test_room_owner_routing.py", "tests/integration/test_ledger_process.py")


#: The longest of them, longest first (minutes on 2 cores).
LONGEST = ("[play.test.mjs]", "test_conformance_node.py", "[clock.test.mjs]", "[session.test.mjs]",
           "test_web_two_instances.py", "test_chaos.py", "test_room_failover.py")


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 (pytest's hook signature)
    """The longest tests first (LONGEST), then the heavy ones (HEAVY), then the rest, each in
    their collected order."""
    def rank(item) -> tuple[int, int]:
        for i, name in enumerate(LONGEST):
            if name in item.nodeid:
                return (0, i)
        return (1, 0) if item.nodeid.split("::", 1)[0].startswith(HEAVY) else (2, 0)
    items.sort(key=rank)
