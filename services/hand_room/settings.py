"""Settings of the room service (``python -m hand_room``): its variables, declared once.

Play now's variables (``HAND_MATCH_*``) are here too: the room service forms its tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import GrpcServerConfig, IdentityConfig, LogConfig, RateLimitConfig
from hand_common.env import EnvReader, EnvVar, integer, number, raw, read_settings, setting, switch, text
from hand_common.metrics import port_or_off
from hand_web.settings import ENABLED as WEB_ENABLED
from hand_web.settings import HOST as WEB_HOST
from hand_web.settings import PORT as WEB_PORT

__all__ = ["LOADERS", "RoomConfig"]


def _ladder(env: EnvReader, var: EnvVar[tuple[float, ...]]) -> tuple[float, ...]:
    """Comma-separated seconds, one or more, each 0..86400."""
    value = env.raw(var)
    try:
        steps = tuple(float(x) for x in value.split(","))
        if steps and all(0 <= x <= 86400 for x in steps):
            return steps
    except ValueError:
        pass
    env.fail(var, value, "comma-separated seconds from 0 to 86400")
    return (0.0,)


def _advertised_web_url(env: EnvReader, var: EnvVar[str]) -> str:
    url = env.raw(var).strip().rstrip("/")
    if url or env.raw(WEB_ENABLED) != "on" or env.raw(WEB_PORT) in ("", "0"):
        return url
    return f"http://{env.raw(WEB_HOST)}:{env.raw(WEB_PORT)}"


HOST = EnvVar("HAND_ROOM_HOST", "127.0.0.1", "address the room service listens on", text)
PORT = EnvVar(
    "HAND_ROOM_PORT", "50052",
    "gRPC port of the room service; 0 picks a free port",
    integer(0, 65535),
)
RULES_ADDRESS = EnvVar(
    "HAND_RULES_ADDRESS", "",
    "host:port of the rules service the room owner calls; empty: the engine in-process",
    raw,
)
COMMAND_TIMEOUT_S = EnvVar(
    "HAND_ROOM_COMMAND_TIMEOUT_S", "10",
    "seconds a room call waits for the owner's answer before UNAVAILABLE",
    number(0.1, 600),
)
PRESENCE_GRACE_S = EnvVar(
    "HAND_ROOM_PRESENCE_GRACE_S", "10",
    "seconds after a seat's stream closes before a bot takes the seat over",
    number(0, 3600),
)
AWAY_AFTER_TIMEOUTS = EnvVar(
    "HAND_ROOM_AWAY_AFTER_TIMEOUTS", "2",
    "consecutive expired turns after which a bot takes the seat over",
    integer(1, 100),
)
GROUP = EnvVar("HAND_ROOM_GROUP", "hand-room-owners", "consumer group of the room owners", text)
LOCAL_COMMANDS = EnvVar(
    "HAND_ROOM_LOCAL_COMMANDS", "on",
    "on: an instance that owns a room decides its commands in-process (no Kafka round trip); off: "
    "every command goes through hand.room-commands",
    switch,
)
SESSION_TIMEOUT_MS = EnvVar(
    "HAND_ROOM_SESSION_TIMEOUT_MS", "1000",
    "consumer-group session timeout of the room owners: a killed owner's rooms move after about this "
    "plus half of it (Kafka brokers need group.min.session.timeout.ms at or below it)",
    integer(500, 300_000),
)
HEARTBEAT_MS = EnvVar(
    "HAND_ROOM_HEARTBEAT_MS", "200",
    "heartbeat interval of the room owners (well below the session timeout)",
    integer(50, 60_000),
)
STORE_TIMEOUT_S = EnvVar(
    "HAND_ROOM_STORE_TIMEOUT_S", "1",
    "seconds the owner waits on the event store for one batch's reads and append before refusing its "
    "commands UNAVAILABLE, and the gateway for a room not in its cache (a crashed database's "
    "connections may hang instead of failing)",
    number(0.05, 600),
)
ADVERTISED_ADDRESS = EnvVar(
    "HAND_ROOM_ADVERTISED_ADDRESS", "",
    "host:port clients reach this instance at (RoomInfo.owner.address, ROOM_MOVED); empty: "
    "HAND_ROOM_HOST:<its port>. Behind a balancer, each instance's own address",
    raw,
)
WEB_ADVERTISED_URL = EnvVar(
    "HAND_WEB_ADVERTISED_URL", "",
    "base URL browsers reach this instance's Connect / gRPC-Web endpoint at (RoomInfo.owner.web_url);"
    " empty: http://HAND_WEB_HOST:HAND_WEB_PORT when this process serves browsers "
    "(HAND_WEB_ENABLED=on), else none",
    _advertised_web_url,
)
MAX_PENDING = EnvVar(
    "HAND_ROOM_MAX_PENDING", "2000",
    "clients' commands an instance queues for its rooms at most; past it (or past "
    "HAND_ROOM_MAX_QUEUE_DELAY_MS) it refuses at once with OVERLOADED and retry_after_ms",
    integer(1, 10**7),
)
MAX_QUEUE_DELAY_MS = EnvVar(
    "HAND_ROOM_MAX_QUEUE_DELAY_MS", "250",
    "the longest a queued command may have waited before new clients' commands are refused OVERLOADED"
    " (admission by queue time, not by timeouts)",
    integer(1, 600_000),
)
PASS_LINGER_MS = EnvVar(
    "HAND_ROOM_PASS_LINGER_MS", "10",
    "how long an idle owner waits after a command arrives before it starts a pass, so the commands "
    "arriving meanwhile share its transaction, publish and wake-ups (a command's latency grows by at "
    "most this; only while commands come closer than this on average; busy, passes follow each other "
    "without it); 0: at once; at most half of HAND_ROOM_STORE_TIMEOUT_S, which counts from a "
    "command's arrival",
    integer(0, 1000),
)
PUBLISH_LINGER_MS = EnvVar(
    "HAND_ROOM_PUBLISH_LINGER_MS", "50",
    "how long the owner holds committed events for the next ones before publishing them to "
    "hand.room-events together (fewer produce requests, less CPU at human pace); what only "
    "readers of the topic wait for: the ledger, streams served by an instance that does not own "
    "the room; the streams of the owner see each event at its commit; 0: at once",
    integer(0, 500),
)
MAX_LOOP_LAG_MS = EnvVar(
    "HAND_ROOM_MAX_LOOP_LAG_MS", "500",
    "how late the event loop may run its timers (mean over ~0.5 s, hand_room_loop_lag_seconds) before "
    "new clients' commands are refused OVERLOADED (limit loop_lag): the queueing before any handler "
    "that the pending count cannot see; 0: off",
    integer(0, 600_000),
)
WAITING_TTL_S = EnvVar(
    "HAND_ROOM_WAITING_TTL_S", "1800",
    "seconds a room may wait for its match to start; then it is no longer listed, joined or started "
    "(ROOM_NOT_FOUND, reason expired) and leaves memory (0: never)",
    integer(0, 10**7),
)
CREATE_PER_PLAYER_PER_MIN = EnvVar(
    "HAND_ROOM_CREATE_PER_PLAYER_PER_MIN", "20",
    "rooms one player (session, or guest id) may create a minute (token bucket, burst the same); past"
    " it CreateRoom is refused RATE_LIMITED (limit rooms_per_player); 0: no limit",
    integer(0, 10**6),
)
CREATE_PER_PEER_PER_MIN = EnvVar(
    "HAND_ROOM_CREATE_PER_PEER_PER_MIN", "300",
    "rooms one peer address may create a minute (token bucket, burst the same); past it CreateRoom is"
    " refused RATE_LIMITED (limit rooms_per_peer); 0: no limit",
    integer(0, 10**6),
)
CHAT_PER_MIN = EnvVar(
    "HAND_ROOM_CHAT_PER_MIN", "30",
    "quick-chat phrases one sender (a seat, or a signed-in spectator) may send to a room a minute "
    "(token bucket, burst HAND_ROOM_CHAT_BURST); past it Chat is refused RATE_LIMITED (limit "
    "chat_per_sender, retry_after_ms); 0: no limit",
    integer(0, 10**6),
)
CHAT_BURST = EnvVar(
    "HAND_ROOM_CHAT_BURST", "3",
    "quick-chat phrases one sender may send at once before HAND_ROOM_CHAT_PER_MIN applies",
    integer(1, 1000),
)
LEDGER_ADDRESS = EnvVar(
    "HAND_ROOM_LEDGER_ADDRESS", "",
    "host:port of the ledger the room service reads a signed-in player's rating from (play now); "
    "empty: every ticket is matched as a new player",
    raw,
)
METRICS_PORT = EnvVar(
    "HAND_ROOM_METRICS_PORT", "off",
    "Prometheus /metrics port of python -m hand_room; 0 picks a free port; off: none",
    port_or_off,
)
# --- play now (hand_room.matchmaking) ---
MATCH_RANGE_START = EnvVar(
    "HAND_MATCH_RANGE_START", "3",
    "play now: the rating range (± ledger ordinal) a new ticket accepts",
    number(0, 10**6),
)
MATCH_RANGE_STEP = EnvVar(
    "HAND_MATCH_RANGE_STEP", "3",
    "play now: how much a waiting ticket's rating range widens every HAND_MATCH_RANGE_STEP_S",
    number(0, 10**6),
)
MATCH_RANGE_STEP_S = EnvVar(
    "HAND_MATCH_RANGE_STEP_S", "5",
    "play now: seconds between two widenings of a ticket's range",
    number(0.1, 86400),
)
MATCH_RANGE_MAX = EnvVar(
    "HAND_MATCH_RANGE_MAX", "50",
    "play now: the widest rating range a ticket reaches",
    number(0, 10**6),
)
MATCH_BOT_FILL_S = EnvVar(
    "HAND_MATCH_BOT_FILL_S", "30",
    "play now: seconds a ticket waits before its table is completed with bots of a matching level "
    "(with whoever fits by then)",
    number(0, 86400),
)
MATCH_QUIT_LADDER_S = EnvVar(
    "HAND_MATCH_QUIT_LADDER_S", "0,0,60,300,900,3600",
    "play now: seconds a player is held before being matched, by the ledger's recent_quits (quits "
    "among the latest 10 matches): 0, 1, 2, … and the last for more (docs/decisions/0027)",
    _ladder,
)
MATCH_TICK_MS = EnvVar(
    "HAND_MATCH_TICK_MS", "250",
    "play now: how often a pool's owner forms tables",
    integer(20, 60_000),
)
MATCH_SNAPSHOT_EVERY = EnvVar(
    "HAND_MATCH_SNAPSHOT_EVERY", "1000",
    "play now: rows a pool's log may hold since its latest snapshot before its owner writes a new "
    "one and deletes the rows before it (docs/decisions/0028-matchmaking.md)",
    integer(10, 10**7),
)

_MATCH_RANGE = (MATCH_RANGE_START, MATCH_RANGE_STEP, MATCH_RANGE_STEP_S, MATCH_RANGE_MAX)


@dataclass(frozen=True)
class RoomConfig:
    """Settings of the room service (``python -m hand_room``)."""

    server: GrpcServerConfig
    log: LogConfig
    rules_address: str = setting(RULES_ADDRESS, required=True)
    command_timeout_s: float = setting(COMMAND_TIMEOUT_S, required=True)
    presence_grace_s: float = setting(PRESENCE_GRACE_S, required=True)
    away_after_timeouts: int = setting(AWAY_AFTER_TIMEOUTS, required=True)
    group_id: str = setting(GROUP, required=True)
    local_commands: bool = setting(LOCAL_COMMANDS)
    limits: RateLimitConfig = RateLimitConfig()
    identity: IdentityConfig = IdentityConfig()
    session_timeout_ms: int = setting(SESSION_TIMEOUT_MS)
    heartbeat_ms: int = setting(HEARTBEAT_MS)
    store_timeout_s: float = setting(STORE_TIMEOUT_S)
    advertised_address: str = setting(ADVERTISED_ADDRESS)
    web_url: str = setting(WEB_ADVERTISED_URL)
    max_pending: int = setting(MAX_PENDING)
    max_queue_delay_ms: int = setting(MAX_QUEUE_DELAY_MS)
    max_loop_lag_ms: int = setting(MAX_LOOP_LAG_MS)
    pass_linger_ms: int = setting(PASS_LINGER_MS)
    publish_linger_ms: int = setting(PUBLISH_LINGER_MS)
    waiting_ttl_s: int = setting(WAITING_TTL_S)
    create_per_player_per_min: int = setting(CREATE_PER_PLAYER_PER_MIN)
    create_per_peer_per_min: int = setting(CREATE_PER_PEER_PER_MIN)
    chat_per_min: int = setting(CHAT_PER_MIN)
    chat_burst: int = setting(CHAT_BURST)
    # start, step, step_s, max
    match_range: tuple[float, float, float, float] = tuple(var.value for var in _MATCH_RANGE)  # type: ignore[assignment]
    match_bot_fill_s: float = setting(MATCH_BOT_FILL_S)
    match_quit_ladder_s: tuple[float, ...] = setting(MATCH_QUIT_LADDER_S)
    match_tick_ms: int = setting(MATCH_TICK_MS)
    match_snapshot_every: int = setting(MATCH_SNAPSHOT_EVERY)
    ledger_address: str = setting(LEDGER_ADDRESS)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RoomConfig:
        env = EnvReader(environ)
        config = read_settings(
            cls, env,
            server=GrpcServerConfig._read(env, HOST, PORT),
            log=LogConfig._read(env),
            limits=RateLimitConfig._read(env),
            identity=IdentityConfig._read(env),
            match_range=tuple(env.get(var) for var in _MATCH_RANGE),
        )
        if config.pass_linger_ms > config.store_timeout_s * 1000 / 2:  # a pass's store time counts from arrival
            env.fail(PASS_LINGER_MS, str(config.pass_linger_ms),
                     f"at most half of HAND_ROOM_STORE_TIMEOUT_S ({config.store_timeout_s * 500:g} ms)")
        env.check("room service")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (RoomConfig.from_env,)
