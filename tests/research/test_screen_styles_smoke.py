"""research/botlab/screen_styles.py: variants parse onto strong's style; strong against
itself is 50 %; the variants play through the planner's ``styles`` seam (the bots' table
is left as it is)."""

from __future__ import annotations

from hand_bot.planner import STYLES
from hand_bot.potential import PotentialStyle
from research.botlab import screen_styles


def test_a_variant_sets_style_and_potential_fields_over_strong() -> None:
    name, style = screen_styles.variant("v=danger:30,potential.samples:8,potential.in_open:false")
    assert name == "v" and style.danger == 30 and style.outs == STYLES["strong"].outs
    assert style.potential == PotentialStyle(samples=8, in_open=False)


def test_strong_against_itself_is_the_exact_baseline_and_a_variant_plays_legally() -> None:
    before = dict(STYLES)
    rows = screen_styles.main(["same=", "pot=potential.samples:4,potential.horizon:2",
                               "--deals", "2", "--workers", "0"])
    assert STYLES == before
    assert rows[0]["won"][0] == 0.5 and rows[0]["diff"][0] == 0.0
    # the mirrored rounds of a deal: as many with fewer unopened seats as with more, and
    # among the rounds with as many, each side won as often
    same = rows[0]["openings"]
    assert same["fewer"] == same["more"] and same["won_equal"] == 0.5
    assert 0.0 <= rows[1]["won"][0] <= 1.0
