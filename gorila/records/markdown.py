"""Markdown tables, as the suite, report and sweep write them: one way to lay out a header, its rule
and the rows.

    table_lines(["game", "return"], [["Pong", cell_number(18.2)]], right={1})
    # ['| game | return |', '|---|---:|', '| Pong | 18.2 |']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence


def cell_number(value, digits: int = 1) -> str:
    """A number as a table cell: thousands separated, `digits` decimals, a dash for none."""
    return "—" if value is None else f"{value:,.{digits}f}"


def row_line(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table_lines(header: Sequence[str], rows: Iterable[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """The header, its rule (the columns numbered in `right` aligned right) and a line per row."""
    rule = "|" + "".join("---:|" if column in right else "---|" for column in range(len(header)))
    return [row_line(header), rule, *(row_line(cells) for cells in rows)]
