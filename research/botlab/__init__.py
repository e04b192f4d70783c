"""Bot-strength research: screens of planner styles, bounds of what hidden cards are
worth, take models and the expert's oracle (docs/bots.md). Analysis only: figures are
reported, never asserted (decision 0014), and no bot plays any of it.

The research drives the bots through their seams (``hand_bot.arena.play_round``'s
``view_of`` and ``choose``; ``hand_bot.planner.Planner``'s ``styles``, ``belief`` and
``feeds``; ``hand_bot.expert.search``'s ``belief``; ``hand_bot.rollout.rollout``'s
``horizon``), never by patching them. Run a study from the repository root:

    .venv/bin/python -m research.botlab.screen_styles --mode hand --deals 400 NAME=FIELD:VALUE
"""
