"""Large tables inside the documented limits are checked quickly: a d10000 table of
10,000 rows, and a row whose range is far wider than its die."""

HEAD = "ruleset: big\ntitle: big\n"


def test_a_d10000_table_of_10000_rows_validates_in_seconds(cli, write):
    rows = "\n".join(f'      "{i}": {{v: {i}}}' for i in range(1, 10_001))
    path = write("big.yaml", HEAD + f"tables:\n  t:\n    roll: d10000\n    columns: {{v: number}}\n"
                                    f"    rows:\n{rows}\n")
    result = cli("validate", path)
    assert result.code == 0, result.text
    assert result.seconds < 15   # listing every face per row took 25 s of CPU


def test_a_range_far_wider_than_the_die_is_refused_without_listing_it(cli, write):
    path = write("wide.yaml", HEAD + 'tables:\n  t:\n    roll: d6\n    columns: {v: number}\n'
                                     '    rows:\n      "1-1000000000": {v: 1}\n')
    result = cli("validate", path)
    assert result.code == 1 and result.seconds < 5
    assert "row '1-1000000000' covers 7-1000000000, which d6 cannot roll (faces 1-6)" \
        in result.text
