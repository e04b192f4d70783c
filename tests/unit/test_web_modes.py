"""Every rule preset the rules service knows (``hand_engine.options.PRESETS``, docs/rules.md §12) has a
mode name and a one-line description in the web app, in English and in Arabic (web/src/i18n.ts,
``modes``), and the lobby offers only known presets: the page never shows a raw preset id."""

from __future__ import annotations

import re
from pathlib import Path

from hand_engine.options import PRESETS

WEB = Path(__file__).resolve().parents[2] / "web" / "src"


def _modes(block: str) -> dict[str, tuple[str, str]]:
    return {k: (n, d) for k, n, d in re.findall(r'^\s*"?([a-z0-9-]+)"?: \["([^"]+)", "([^"]+)"\],$', block, re.M)}


def test_every_preset_has_a_name_and_a_description_in_both_languages() -> None:
    text = (WEB / "i18n.ts").read_text()
    en_block, ar_block = re.findall(r"modes: \{\n(.*?)\n  \}", text, re.S)
    en, ar = _modes(en_block), _modes(ar_block)
    assert set(en) == set(PRESETS) == set(ar), (sorted(set(PRESETS) ^ set(en)), sorted(set(PRESETS) ^ set(ar)))
    for preset in PRESETS:
        assert en[preset][0] and en[preset][1] and en[preset][0] != preset, preset
        assert re.search("[\u0600-\u06ff]", ar[preset][0]) and re.search("[\u0600-\u06ff]", ar[preset][1]), preset


def test_the_lobby_offers_known_presets_only() -> None:
    lobby = (WEB / "ui" / "lobby.tsx").read_text()
    offered = re.findall(r'"([a-z0-9-]+)"', re.search(r"const PRESETS = \[(.*?)\];", lobby, re.S).group(1))
    assert offered and set(offered) <= set(PRESETS), offered
