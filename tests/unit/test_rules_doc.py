"""docs/rules.md is the repository's own rule book, and the code cites it (issue 28).

- §12 lists every option of ``hand_engine.Options`` with its values (default
  first) and every preset of ``hand_engine.options.PRESETS`` with exactly the
  overrides the engine applies;
- every rules decision record (``docs/decisions/01xx-rules-*.md``) is linked
  from it, and its own links and anchors resolve;
- every citation "rules.md §N" anywhere in the repository names a section
  the book has;
- no tracked file cites a rules file from outside the repository (the old
  upper-case spec name) or names a path on a development machine.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from hand_engine.options import CHOICES, FIELDS, MODES, PRESETS, Options

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
DECISIONS = ROOT / "docs" / "decisions"

#: The spec this repository used to cite but does not hold (written so that
#: this file does not match itself).
OUTSIDE_SPEC = re.compile(r"RULES\.md")
#: Home and work folders of development machines (not inside a URL or a word).
MACHINE_PATH = re.compile(r"(?<![\w.\-])/(?:work|home|root|Users)/")
#: Build outputs and tools that are not part of the repository.
SKIP_DIRS = {".git", ".venv", "node_modules", "gen", "dist", "__pycache__", ".pytest_cache",
             ".hypothesis", "var", "results"}


def _text() -> str:
    return RULES.read_text(encoding="utf-8")


def _section(title: str) -> str:
    """The body of the '### title' subsection (up to the next heading)."""
    text = _text()
    start = text.index(f"### {title}\n")
    end = re.compile(r"^#{2,3} ", re.M).search(text, start + 4)
    return text[start:end.start() if end else len(text)]


def _table_rows(body: str) -> list[list[str]]:
    rows = []
    for line in body.splitlines():
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[1:]  # without the header


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _parse_value(text: str) -> object:
    text = text.strip().strip("`")
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"[−-]?\d+", text):
        return int(text.replace("−", "-"))
    return text


def _repo_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):  # no git (an unpacked copy)
        files = []
        for folder, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            files.extend(Path(folder) / n for n in names)
        return files


def _repo_texts() -> list[tuple[str, str]]:
    texts = []
    for path in _repo_files():
        try:
            texts.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary, or deleted in the working tree
    return texts


def test_the_rule_book_is_in_the_repository() -> None:
    assert RULES.is_file(), "docs/rules.md is missing"
    for n in range(0, 16):
        assert f'<a id="s{n}"></a>\n## {n}. ' in _text(), f"§{n} has no anchor or heading"


def test_every_option_is_listed_with_its_values_default_first() -> None:
    rows = {(_ticked(row[0]) or [""])[0]: row for row in _table_rows(_section("Every option"))}
    assert set(rows) == set(FIELDS), "the option table and Options differ"
    defaults = Options()
    for name in FIELDS:
        values = re.sub(r"\([^)]*\)", "", rows[name][1])  # drop "(1 to 1000)" and the like
        listed = [_parse_value(v) for v in values.split(",") if v.strip()]
        assert listed[0] == getattr(defaults, name), f"{name}: the default is not listed first"
        if name in CHOICES:
            assert listed == list(CHOICES[name]), f"{name}: values differ from the engine's"


def test_every_preset_is_listed_with_the_engine_overrides() -> None:
    listed: dict[str, dict[str, object]] = {}
    for names_cell, overrides_cell in (row[:2] for row in _table_rows(_section("The presets"))):
        overrides: dict[str, object] = {}
        for token in _ticked(overrides_cell):
            if "=" in token:
                key, value = token.split("=", 1)
                overrides[key] = _parse_value(value)
            else:  # another preset's row, "`eram-hand` + ..."
                overrides = {**listed[token], **overrides}
        for name in _ticked(names_cell):
            listed[name] = overrides
    assert set(listed) == set(PRESETS), "the preset table and PRESETS differ"
    for name, options in PRESETS.items():
        assert Options(**listed[name]) == options, f"preset {name}: the table and the engine differ"
    for mode in MODES:
        assert f"`{mode}`" in _text()


def test_every_rules_decision_record_is_linked_from_the_rule_book() -> None:
    records = sorted(p.name for p in DECISIONS.glob("01[0-9][0-9]-rules-*.md"))
    assert records
    for name in records:
        assert f"(decisions/{name}" in _text(), f"{name} is not linked from docs/rules.md"


def test_the_rule_book_links_resolve() -> None:
    text = _text()
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for target in re.findall(r"\]\(([^)]+)\)", text):
        path, _, anchor = target.partition("#")
        if re.match(r"^[a-z]+://", path):
            continue
        if path:
            assert (RULES.parent / path).is_file(), f"broken link {target}"
        elif anchor:
            assert anchor in anchors, f"broken anchor {target}"


def test_section_citations_name_sections_the_book_has() -> None:
    sections = {int(n) for n in re.findall(r'<a id="s(\d+)"></a>', _text())}
    bad = []
    for name, text in _repo_texts():
        for line_no, line in enumerate(text.splitlines(), 1):
            if "rules.md" in line and "§" in line:
                for n in re.findall(r"§(\d+)", line):
                    if int(n) not in sections:
                        bad.append(f"{name}:{line_no}: §{n}")
    assert not bad, bad


@pytest.mark.parametrize("pattern", [OUTSIDE_SPEC, MACHINE_PATH], ids=["outside-spec", "machine-path"])
def test_no_citation_leaves_the_repository(pattern: re.Pattern[str]) -> None:
    hits = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for name, text in _repo_texts() for m in pattern.finditer(text)]
    assert not hits, hits
