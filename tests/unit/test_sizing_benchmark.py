"""benchmarks/sizing.py's Atari rows: one bundle's frames times the price measured at N bundles, from
N machines on (held past N: marked as extrapolated), over M machines' frames/s."""

import json

import pytest

CAPACITY = {"1": {"ray_applied_per_s": 1e9, "apply_per_s": 1e9}}  # a server that never sets the pace


@pytest.fixture
def sizing(benchmark):
    return benchmark("sizing")


def test_the_price_at_4_bundles_applies_from_4_machines_on_and_is_marked_held_past_them(sizing):
    rows = sizing.budget_rows(4_000_000, 800.0, {8: 1_000.0}, 0.025, CAPACITY, price=(4, 1.5))
    by_machines = {row["machines"]: row for row in rows}
    assert by_machines[1]["seconds"] == pytest.approx(4_000_000 / 800.0, abs=0.1)  # one bundle: no price
    assert by_machines[8]["seconds"] == pytest.approx(1.5 * 4_000_000 / (8 * 1_000.0), abs=0.1)
    assert by_machines[1]["extrapolated_from"] is None and by_machines[8]["extrapolated_from"] == 4


def test_without_a_measured_price_the_rows_take_one_bundles_frames(sizing):
    rows = sizing.budget_rows(4_000_000, 800.0, {8: 1_000.0}, 0.025, CAPACITY, price=(1, 1.0))
    eight = next(row for row in rows if row["machines"] == 8)
    assert eight["seconds"] == pytest.approx(4_000_000 / 8_000.0, abs=0.1) and eight["extrapolated_from"] is None


def test_the_pong_price_is_the_studys_frames_over_one_bundles_at_least_its_budgets_or_none(sizing, tmp_path):
    assert sizing.pong_price(tmp_path, 4_000_000) is None  # no study compiled
    study = tmp_path / sizing.PONG_PRICE_STUDY
    study.mkdir()
    stopped = {"bundles": 4, "frames": 4_300_000, "stop_reason": "interrupted"}
    spent = {"bundles": 4, "frames": 6_000_000, "stop_reason": "budget"}
    never = lambda *runs: json.dumps({"by_bundles": {"4": {"frames_to_score": None}}, "runs": dict(enumerate(runs))})
    (study / "results.json").write_text(never(stopped))
    assert sizing.pong_price(tmp_path, 4_000_000) is None  # stopped short of the score and of its budget
    (study / "results.json").write_text(never(spent))
    assert sizing.pong_price(tmp_path, 4_000_000) == (4, 1.5, True)  # its budget spent: at least 1.5
    (study / "results.json").write_text('{"by_bundles": {"4": {"frames_to_score": 5000000}}}')
    assert sizing.pong_price(tmp_path, 4_000_000) == (4, 1.25, False)
