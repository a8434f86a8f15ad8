"""Reference sheets worth printing: terminal tables that keep rule text as written (no
markup eaten, no word broken), with the table id and the ruleset's column labels; CSV one
file per table; a compact HTML sheet checked in headless Chromium (skipped with a message
where Chromium is not installed); `--with` mistakes caught on the command line."""
from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.game.api import load_ruleset
from interpreter.render.export import render_tables
from interpreter.tables import resolve

ROOT = Path(__file__).parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def rulecraft(*args, columns="80"):
    env = dict(os.environ, NO_COLOR="1", COLUMNS=columns)
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env)


def test_terminal_tables_show_rule_text_in_brackets_as_written():
    out = rulecraft("tables", "tanks", "glancing").stdout
    assert '[apply(target, "shaken",' in out          # rich markup would have eaten it


def test_terminal_tables_show_the_id_beside_the_title_and_break_no_word():
    out = rulecraft("tables", "legowars").stdout
    assert "Figure and creature statistics  creatures" in out
    words = set(re.findall(r"[A-Za-z]{4,}", (ROOT / "rules/legowars/legowars.yaml").read_text()))
    for line in out.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line)[1:-1]]
        for cell in cells:
            last = cell.split()[-1] if cell.split() else ""
            # a fragment that is no word of the rules is a word broken across lines
            if last.isalpha() and len(last) >= 4:
                assert last in words or last.lower() in {w.lower() for w in words}, line


def test_column_labels_come_from_the_ruleset_else_spaces_for_underscores(tmp_path):
    rules = tmp_path / "labels.yaml"
    rules.write_text("ruleset: labels\ntitle: Labels\ntables:\n  saves:\n    key: armour\n"
                     "    columns:\n      save_roll: {type: integer, label: Save on D6}\n"
                     "      crew_left: integer\n    rows:\n      light: {save_roll: 5, crew_left: 1}\n")
    out = rulecraft("tables", str(rules)).stdout
    assert "Save on D6" in out and "crew left" in out and "save_roll" not in out


def test_csv_is_one_loadable_file_per_table(tmp_path):
    done = rulecraft("tables", "tanks", "--format", "csv", "--output", str(tmp_path / "sheets"))
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (tmp_path / "sheets").iterdir())
    assert len(files) == len(load_ruleset("tanks").tables)
    with open(tmp_path / "sheets" / "to_hit.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["bs", "value"] and rows[1] == ["1", "6"] and rows[-1] == ["5+", "2"]


@pytest.mark.parametrize("args,message", [
    (["run", "tanks", "range_band", "--with", "distance=twenty"],
     "distance must be a number, got the text 'twenty'"),
    (["run", "tanks", "range_band", "--with", "distance=3", "--with", "distance=4"],
     "--with distance is given twice"),
    (["tables", "tanks", "to_hit", "--with", "bs=3"], "no formula of this table reads 'bs'"),
])
def test_with_mistakes_are_usage_errors(args, message):
    done = rulecraft(*args)
    assert done.returncode == 2 and message in done.stderr
    assert "tanks.yaml" not in done.stderr     # the input's error, not the rule file's


def _sheet(ruleset: str, **meta) -> str:
    r = load_ruleset(ruleset)
    resolved = [resolve(t) for t in r.tables.values()]
    return render_tables(resolved, "html", {"title": r.title, "source": r.source,
                                            "rulings": r.rulings, **meta})


def test_html_sheet_has_a_contents_leaves_out_rule_code_unless_full():
    page = _sheet("tanks")
    assert '<nav class="toc">' in page and 'href="#table-glancing"' in page
    assert "apply(target" not in page and "rule code left out" in page
    assert "apply(target" in _sheet("tanks", full=True)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                              "(which chromium chromium-browser found nothing)")
def test_html_sheet_renders_in_headless_chromium_compactly(tmp_path):
    page = tmp_path / "legowars.html"
    page.write_text(_sheet("legowars"), encoding="utf-8")
    pdf, png = tmp_path / "legowars.pdf", tmp_path / "legowars.png"
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer"]
    subprocess.run(common + [f"--print-to-pdf={pdf}", page.as_uri()], capture_output=True,
                   timeout=120, check=True)
    subprocess.run(common + [f"--screenshot={png}", "--window-size=1000,1400", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))
    assert 1 <= pages <= 5, f"the legowars sheet prints on {pages} A4 pages (was 9 one to a column)"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


# ------------------------------------------------------------------ charts and comparisons


def test_odds_svg_chart_has_one_bar_per_value_and_expression():
    import xml.etree.ElementTree as ET
    done = rulecraft("odds", "2d6", "d6", "--format", "svg")
    assert done.returncode == 0, done.stderr
    svg = ET.fromstring(done.stdout)
    ns = "{http://www.w3.org/2000/svg}"
    bars = [r for r in svg.iter(f"{ns}rect") if r.find(f"{ns}title") is not None]
    assert len(bars) == 12 * 2                        # the values 1..12, two series
    titles = [r.find(f"{ns}title").text for r in bars]
    assert "2d6: 7 16.67%" in titles and "d6: 7 0.00%" in titles


def test_run_odds_html_chart_lists_outcomes_in_declared_order():
    done = rulecraft("run", "tanks", "shoot", "--odds", "--format", "html")
    assert done.returncode == 0, done.stderr
    page = done.stdout
    assert page.index("<th>miss</th>") < page.index("<th>no effect</th>") < page.index("<th>crew shaken</th>")
    assert "(1/2)" in page


def test_a_chart_of_a_sampled_run_is_a_usage_error():
    done = rulecraft("run", "tanks", "shoot", "--format", "svg")
    assert done.returncode == 2 and "add --odds" in done.stderr


def test_odds_compares_expressions_side_by_side():
    out = rulecraft("odds", "3d6", "4d6kh3").stdout
    rows = {l.split()[0]: l.replace("│", " ").split()[1:] for l in out.splitlines()
            if l.strip()[:1].isdigit()}
    assert rows["3"] == ["0.46%", "0.08%"]           # 1/216 and 1/1296
    assert rows["18"] == ["0.46%", "1.62%"]          # 1/216 and 21/1296
    assert "mean" in out and "10.5000" in out and "12.2446" in out


@pytest.mark.parametrize("args,shown", [
    (["odds", "d6 >= 4"], ["false", "true"]),
    (["odds", "glancing[d6]", "--ruleset", "tanks"], ["1-2: crew shaken", "6: vehicle destroyed"]),
])
def test_odds_values_read_as_the_rules_write_them(args, shown):
    out = rulecraft(*args).stdout
    for text in shown:
        assert text in out
    assert "True" not in out and "row '" not in out
