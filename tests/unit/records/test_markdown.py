"""Markdown tables: the header, a rule with each column's alignment, a line per row; numbers as cells."""

from gorila.records.markdown import cell_number, table_lines


def test_a_table_has_its_header_rule_and_rows_with_right_aligned_columns():
    lines = table_lines(["game", "frames", "return"], [["Pong", "4,027,172", "18.1"], ["Breakout", "1", "—"]], {1, 2})
    assert lines == [
        "| game | frames | return |",
        "|---|---:|---:|",
        "| Pong | 4,027,172 | 18.1 |",
        "| Breakout | 1 | — |",
    ]
    assert table_lines(["a"], []) == ["| a |", "|---|"]


def test_a_number_cell_separates_thousands_and_shows_none_as_a_dash():
    assert cell_number(12345.678) == "12,345.7" and cell_number(2.5, 0) == "2" and cell_number(None) == "—"
