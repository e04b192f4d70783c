"""Test-wide settings, applied before any test module imports grpc."""

import os

import structlog

# The tests' processes start PostgreSQL and the broker with subprocess (fork + exec)
# while gRPC servers and channels run on other threads. gRPC's fork handlers are only
# for a fork that goes on without exec; in a forked child they can crash it before its
# exec (seen once: a segfault in the child of TempPostgres.restart, test_chaos_dependencies).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")


def _plain_tracebacks() -> None:
    """The services the tests start in this process (the ledger, rooms) log through structlog's
    default configuration, whose renderer draws an exception with rich and every frame's locals:
    1.6 s for one SQLAlchemy error on an idle machine, several on a loaded one, with the event
    loop — the services' and the tests' timing clients' — stopped meanwhile (a refused Act timed
    at 4.97 s while PostgreSQL restarted, CI 2026-12-07). The services' own processes render
    plain tracebacks (hand_common.logging); so does this one."""
    processors = [structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)
                  if isinstance(p, structlog.dev.ConsoleRenderer) else p
                  for p in structlog.get_config()["processors"]]
    structlog.configure(processors=processors)


_plain_tracebacks()


#: Modules whose tests take a minute or so each (whole stacks, browsers, several instances):
#: run first, so that the two workers of ``make test`` (``--dist worksteal``) end together
#: instead of one of them starting a browser suite when the other has nothing left.
HEAVY = ("tests/e2e/", "tests/integration/test_conformance_node.py", "tests/integration/test_chaos",
         "tests/integration/test_room_failover.py", "tests/integration/test_hand_run.py",
         "tests/integration/test_bench_", "tests/integration/test_fuzz.py", "tests/integration/test_bot_match.py",
         "tests/integration/test_broker_outage.py", "tests/integration/test_ledger_kafka.py",
         "tests/integration/test_ledger_stack.py", "tests/integration/test_room_overload.py",
         "tests/integration/test_room_frozen_instance.py", "tests/integration/test_room_memory_bounds.py",
         "tests/integration/test_room_owner_routing.py", "tests/integration/test_ledger_process.py",
         "tests/integration/test_metrics_stack.py", "tests/integration/test_tracing_stack.py")


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
