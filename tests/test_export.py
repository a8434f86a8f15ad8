"""Exporting resolved tables: golden Markdown/CSV/JSON per kind of table, the rich
rendering on a fixed-width recording console, odds against exact fractions, the HTML page
parsed back, and the no-overwrite rule of --output.

Golden files live in tests/golden/tables/.  To regenerate them after an intended change,
run with RULECRAFT_UPDATE_GOLDEN=1, read the diff, and commit it.
"""
from __future__ import annotations

import io
import json
import os
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from interpreter.errors import UsageError
from interpreter.render.export import FORMATS, render_tables, write_output
from interpreter.source.load import load_text
from interpreter.tables import build_table, resolve

GOLDEN = Path(__file__).parent / "golden" / "tables"
UPDATE = os.environ.get("RULECRAFT_UPDATE_GOLDEN") == "1"

RULES = """\
tables:
  layout:
    description: Battlefield layout (roll 1D20 for each sector).
    roll: 1d20
    unhandled: [17, 18]
    rows:
      "1-6": {feature: hill, cover: true}
      "7-12": {feature: wood, cover: true}
      "13-16": {feature: river, cover: false}
      "19-20": {feature: "town | ruins", cover: true}
  reaction:
    description: Reaction test (2D6).
    roll: 2d6
    rows:
      "2-6": hostile
      "7": wary
      "8-12": friendly
  to_hit:
    description: Score needed to hit, by Ballistic Skill.
    key: bs
    domain: [1, 10]
    columns: {needed: {type: integer}}
    rows:
      "2 or less": 6
      "3-4": 5
      "5-6": 4
      "7+": 3
  melee_weapons:
    description: Hand weapons; points = (damage - to_hit) x 5.
    key: name
    columns: {damage: {type: integer}, to_hit: {type: integer}, points: {type: integer},
              hits: {type: any}}
    rows:
      Sword: {damage: 3, to_hit: -1, points: "=(damage - to_hit) * 5", hits: 1}
      Halberd: {damage: 4, to_hit: -2, points: 30, hits: "=d3"}
      "Flail, heavy": {damage: 5, to_hit: 1, points: "=(damage - to_hit) * 5", hits: "=2d6"}
    checks:
      - column: points
        formula: (damage - to_hit) * 5
  standard_weapons:
    roll: d10
    rows:
      "1-4": {weapon: Catapult, damage: "=2d6"}
      "5-8": {weapon: Ballista, damage: "=d6 + 2"}
      "9-10": {weapon: "=reaction[2d6]", damage: "=bonus_dice[d6] * 3"}
  bonus_dice:
    roll: d6
    rows: {"1-3": 1, "4-6": 2}
  penetration:
    description: Armour against weapon strength.
    key: armour
    column_key: strength
    rows:
      "10": {"1-5": none, "6-8": glancing, "9+": penetrating}
      "11-12": {"1-5": none, "6-8": none, "9+": glancing}
  ram_damage:
    description: Ram damage, (D6 + SC) x velocity.
    computed:
      formula: (d6 + sc) * velocity
      over: {sc: [1, 3], velocity: [1, 3]}
"""

META = {"title": "Test <Rules> & Co", "source": "001_test.txt",
        "rulings": [{"id": "full-range", "text": "Weapons at full range suffer -1",
                     "ruling": "Full range is over 3/4 of the range.",
                     "why": "The text gives no width for <full range>."}]}


@pytest.fixture(scope="module")
def tables():
    doc = load_text(RULES, "export.yaml")
    built = {}
    for name, node in doc["tables"].items():
        table, findings = build_table(name, node, {})
        assert findings == [], [f.message for f in findings]
        built[name] = table
    for table in built.values():
        table.bind(built)
    return built


KINDS = {
    "die": ["layout", "reaction"],
    "band": ["to_hit"],
    "name": ["melee_weapons"],
    "formula": ["standard_weapons"],
    "two_dimensional": ["penetration"],
    "computed": ["ram_damage"],
}
EXT = {"md": "md", "csv": "csv", "json": "json"}


def resolved(tables, names, odds=True):
    return [resolve(tables[n], odds=odds) for n in names]


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden file {path} is missing; run with RULECRAFT_UPDATE_GOLDEN=1")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    assert text == path.read_text(encoding="utf-8")


# ------------------------------------------------------------------------- goldens


@pytest.mark.parametrize("fmt", ["md", "csv", "json"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_golden_output_for_each_kind_of_table(tables, kind, fmt):
    text = render_tables(resolved(tables, KINDS[kind]), fmt, {})
    check_golden(f"{kind}.{EXT[fmt]}", text)


def test_golden_rich_rendering_on_a_fixed_width_console(tables):
    names = [n for group in KINDS.values() for n in group]
    text = render_tables(resolved(tables, names), "rich", {"title": "Test rules", "width": 100})
    assert all(len(line) <= 100 for line in text.splitlines())
    check_golden("all.rich.txt", text)


def test_rich_rendering_is_the_same_text_as_a_recording_console(tables):
    from rich.console import Console
    from interpreter.render.export import rich_renderables
    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    for item in rich_renderables(resolved(tables, ["to_hit"])):
        console.print(item)
    assert console.export_text() == render_tables(resolved(tables, ["to_hit"]), "rich", {})


# ---------------------------------------------------------------------------- json


def test_json_has_the_documented_shape(tables):
    data = json.loads(render_tables(resolved(tables, ["melee_weapons", "reaction"]), "json",
                                    {}))
    assert [t["name"] for t in data] == ["melee_weapons", "reaction"]
    weapons, reaction = data
    assert set(weapons) >= {"name", "title", "description", "columns", "rows", "odds"}
    assert weapons["rows"][0] == {"name": "Sword", "damage": "3", "to_hit": "-1",
                                  "points": "20", "hits": "1"}
    assert weapons["rows"][2]["hits"] == "2d6 (2-12, avg 7)"
    assert weapons["odds"] is None
    assert reaction["odds"][1] == {"row": "7", "probability": "1/6", "percent": 16.666667}


# ---------------------------------------------------------------------------- odds


@pytest.mark.parametrize("name, expected", [
    ("reaction", {"2-6": Fraction(15, 36), "7": Fraction(6, 36), "8-12": Fraction(15, 36)}),
    ("layout", {"1-6": Fraction(6, 20), "7-12": Fraction(6, 20), "13-16": Fraction(4, 20),
                "17-18": Fraction(2, 20), "19-20": Fraction(2, 20)}),
    ("standard_weapons", {"1-4": Fraction(2, 5), "5-8": Fraction(2, 5),
                          "9-10": Fraction(1, 5)}),
])
def test_odds_columns_are_exact_fractions_of_the_die(tables, name, expected):
    table = resolve(tables[name], odds=True)
    assert table.columns[-2:] == ["chance", "%"]
    got = {row[0]: Fraction(row[-2]) for row in table.rows}
    assert got == expected
    for row in table.rows:
        assert row[-1] == f"{float(expected[row[0]]) * 100:.2f}%"
    assert {o["row"]: Fraction(o["probability"]) for o in table.odds} == expected


def test_tables_without_a_die_get_no_odds_column(tables):
    table = resolve(tables["to_hit"], odds=True)
    assert "chance" not in table.columns and table.odds is None
    assert "no odds" in table.notes[0]


# ---------------------------------------------------------------------------- html


class _PageParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, dict]] = []
        self.h1, self.h2 = [], []
        self.tables: list[list[list[str]]] = []
        self.style = ""
        self._stack: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, dict(attrs)))
        self._stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if self._stack and self._stack[-1] == tag:
            self._stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        top = self._stack[-1] if self._stack else None
        if self._cell is not None:
            self._cell.append(data)
        elif top == "h1":
            self.h1.append(data)
        elif top == "h2":
            self.h2.append(data)
        elif top == "style":
            self.style += data


@pytest.fixture(scope="module")
def page(tables):
    names = [n for group in KINDS.values() for n in group]
    chosen = resolved(tables, names)
    text = render_tables(chosen, "html", META)
    parser = _PageParser()
    parser.feed(text)
    parser.close()
    return text, parser, chosen


def test_html_holds_every_table_and_every_row(page):
    text, parser, chosen = page
    assert len(parser.tables) == len(chosen)
    for resolved_table, html_table in zip(chosen, parser.tables):
        assert any(h.startswith(resolved_table.title) for h in parser.h2)
        shown = [i for i in range(len(resolved_table.columns))
                 if i not in resolved_table.code_columns]    # rule code is left out
        assert html_table[0] == [resolved_table.headings[i] for i in shown]
        assert html_table[1:] == [[row[i] for i in shown] for row in resolved_table.rows]


def test_html_is_one_self_contained_printable_page(page):
    text, parser, _ = page
    assert text.startswith("<!DOCTYPE html>")
    assert "script" not in parser.tags
    assert not any(tag in ("link", "img", "iframe", "object", "embed") for tag in parser.tags)
    assert not any("src" in attrs for _, attrs in parser.attrs)
    # the only links are the table of contents' links inside the page
    assert all(dict(attrs)["href"].startswith("#") for _, attrs in parser.attrs if "href" in attrs)
    assert "@page" in parser.style and "size: A4" in parser.style
    assert "@media print" in parser.style
    assert "url(" not in parser.style and "@import" not in parser.style


def test_html_shows_title_source_and_rulings_escaped(page):
    text, parser, _ = page
    assert parser.h1 == ["Test <Rules> & Co"]
    assert "Test &lt;Rules&gt; &amp; Co" in text
    assert "001_test.txt" in "".join(parser.text)
    assert "Rulings" in parser.h2
    body = "".join(parser.text)
    assert "full-range" in body and "The text gives no width for <full range>." in body
    assert "<full range>" not in text


# ------------------------------------------------------------------ markdown details


def test_markdown_escapes_pipes_in_cells(tables):
    text = render_tables(resolved(tables, ["layout"]), "md", {})
    assert "town \\| ruins" in text


def test_csv_sections_name_their_tables(tables):
    text = render_tables(resolved(tables, ["to_hit", "reaction"]), "csv", {})
    sections = text.split("\n\n")
    assert [s.splitlines()[0] for s in sections] == ["# table: to_hit", "# table: reaction"]


def test_unknown_format_is_a_usage_error(tables):
    with pytest.raises(UsageError, match="unknown format 'pdf'"):
        render_tables(resolved(tables, ["to_hit"]), "pdf", {})
    assert FORMATS == ("rich", "md", "csv", "json", "html")


# --------------------------------------------------------------------------- output


def test_write_output_goes_to_stdout_without_a_path(capsys):
    write_output("hello\n", None, force=False)
    assert capsys.readouterr().out == "hello\n"


def test_write_output_never_overwrites_without_force(tmp_path):
    target = tmp_path / "tables.html"
    write_output("first", target, force=False)
    assert target.read_text() == "first"
    with pytest.raises(UsageError, match="already exists; use --force"):
        write_output("second", target, force=False)
    assert target.read_text() == "first"
    write_output("third", str(target), force=True)
    assert target.read_text() == "third"


def test_write_output_refuses_a_directory(tmp_path):
    with pytest.raises(UsageError, match="is a directory"):
        write_output("x", tmp_path, force=True)
