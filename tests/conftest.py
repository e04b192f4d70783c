"""Test-wide settings, applied before any test module imports grpc."""

import os

# The tests' processes start PostgreSQL and the broker with subprocess (fork + exec)
# while gRPC servers and channels run on other threads. gRPC's fork handlers are only
# for a fork that goes on without exec; in a forked child they can crash it before its
# exec (seen once: a segfault in the child of TempPostgres.restart, test_chaos_dependencies).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
