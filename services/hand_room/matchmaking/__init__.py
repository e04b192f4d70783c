"""Play now: matchmaking pools owned like rooms (docs/decisions/0028-matchmaking.md)."""

from .matchmaker import Matchmaker
from .play_now import PlayNow
from .pool import Schedule
from .ratings import LedgerRatings, NoRatings, RatingsPort, Standing

__all__ = ["LedgerRatings", "Matchmaker", "NoRatings", "PlayNow", "RatingsPort", "Schedule", "Standing"]
