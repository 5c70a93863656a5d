"""benchmarks/dopamine_reference.py turns Dopamine's baselines JSON (one record per run and iteration)
into the reference curves of benchmarks/reference/, and the committed curves are in its form."""

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def reference(benchmark):
    return benchmark("dopamine_reference")


def test_each_iteration_is_the_mean_min_and_max_of_the_agents_runs_at_its_last_frame(reference):
    records = [
        {"Agent": "DQN", "Iteration": 0, "Value": 1.0},
        {"Agent": "DQN", "Iteration": 0, "Value": 3.0},
        {"Agent": "Rainbow", "Iteration": 0, "Value": 100.0},  # another agent: not counted
        {"Agent": "DQN", "Iteration": 1, "Value": -2.0},
        {"Agent": "DQN", "Iteration": 1, "Value": 8.0},
        {"Agent": "DQN", "Iteration": 1, "Value": 0.0},
        {"Agent": "DQN", "Iteration": 2, "Value": 9.0},  # past the iterations asked for
    ]
    assert reference.curve(records, "DQN", iterations=2) == [(1_000_000, 2.0, 1.0, 3.0), (2_000_000, 2.0, -2.0, 8.0)]
    with pytest.raises(SystemExit, match="C51"):
        reference.curve(records, "C51", iterations=2)


def test_the_written_file_reads_back_as_its_curve(reference, tmp_path):
    rows = [(1_000_000, -20.424, -20.5, -20.35), (2_000_000, 3.0, 2.5, 3.5)]
    path = tmp_path / "dopamine_rainbow_pong.tsv"
    path.write_text(reference.header("Rainbow", "pong", "5873f54", 2, 199) + reference.table(rows))
    assert "commit 5873f54" in path.read_text() and "Iterations 0-1 of its 200" in path.read_text()
    np.testing.assert_allclose(np.loadtxt(path, comments="#", delimiter="\t"), np.round(rows, 2))


@pytest.mark.parametrize(
    "path", sorted((ROOT / "benchmarks" / "reference").glob("dopamine_*.tsv")), ids=lambda p: p.stem
)
def test_every_committed_curve_has_a_row_per_million_frames_with_its_mean_between_min_and_max(path):
    rows = np.loadtxt(path, comments="#", delimiter="\t", ndmin=2)
    assert rows.shape[1] == 4 and len(rows) >= 10
    np.testing.assert_array_equal(rows[:, 0], np.arange(1, len(rows) + 1) * 1_000_000)
    assert np.all(rows[:, 2] <= rows[:, 1] + 0.005) and np.all(rows[:, 1] <= rows[:, 3] + 0.005)
