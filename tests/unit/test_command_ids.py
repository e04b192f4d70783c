"""Command ids (``hand_table.commands.new_command_id``): unique within a process and across
processes, forked ones included, in a uuid's 32 hex characters."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hand_table.commands import Command, TurnTimeout, new_command_id


def test_ids_are_32_hex_characters_and_never_repeat_in_a_process() -> None:
    ids = [Command("r", TurnTimeout(1, 1, 3)).command_id for _ in range(10_000)]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)


def test_a_forked_child_draws_a_prefix_of_its_own() -> None:
    """In a fresh interpreter (one thread: a fork there is safe and warns of nothing)."""
    script = (
        "import os\n"
        "from hand_table.commands import new_command_id\n"
        "mine = new_command_id()\n"
        "read, write = os.pipe()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.write(write, new_command_id().encode()); os._exit(0)\n"
        "os.close(write); theirs = os.read(read, 64).decode(); os.waitpid(pid, 0)\n"
        "print(mine, theirs, new_command_id())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    mine, theirs, mine_next = done.stdout.split()
    assert theirs[:16] != mine[:16]  # the same place in the count, another prefix: no collision
    assert mine_next[:16] == mine[:16] and theirs != mine_next
