"""A sweep's search space (`gorila.experiments.sweep.space`) and its results table, without Ray."""

import json

import pytest

from gorila.config import ConfigError
from gorila.experiments.sweep.driver import SweepPlan, param_space
from gorila.experiments.sweep.space import Axis, check_axes, grid_axis, point_name, random_axis
from gorila.experiments.sweep.table import collect, markdown, points_of
from gorila.runtime.ray.tuning import early_stopping


def test_grid_values_are_read_in_the_fields_type():
    assert grid_axis("learning_rate=0.001,4e-3") == Axis("learning_rate", values=(0.001, 0.004))
    assert grid_axis("batch_size=32,64,32") == Axis("batch_size", values=(32, 64))  # repeats once
    assert grid_axis("hidden_sizes=[64,64],[128]").values == ((64, 64), (128,))
    assert grid_axis("dueling=true,false").values == (True, False)


@pytest.mark.parametrize(
    "text, message",
    [
        ("learning_rat=0.1,0.2", "no config field 'learning_rat'; did you mean learning_rate"),
        ("batch_size=32,x", "batch_size must be"),
        ("seed=0,1", "seed is set by the sweep for each trial"),
        ("learning_rate", "expected FIELD=V1,V2"),
        ("learning_rate=0.1,,0.2", "an empty value"),
    ],
)
def test_a_bad_grid_is_refused_naming_what_is_wrong(text, message):
    with pytest.raises(ConfigError, match=message):
        grid_axis(text)


def test_random_ranges():
    assert random_axis("learning_rate=1e-4:1e-2:log") == Axis("learning_rate", low=1e-4, high=1e-2, log=True)
    assert random_axis("batch_size=16:128") == Axis("batch_size", low=16, high=128)
    for text, message in [
        ("learning_rate=0.1:0.01", "LOW < HIGH"),
        ("learning_rate=0:1:log", "LOW > 0"),
        ("dueling=0:1", "not a number field"),
        ("learning_rate=1:2:lin", "LOW:HIGH"),
    ]:
        with pytest.raises(ConfigError, match=message):
            random_axis(text)


def test_axes_are_one_per_field_and_at_least_one():
    with pytest.raises(ConfigError, match="nothing to sweep"):
        check_axes([])
    with pytest.raises(ConfigError, match="learning_rate swept twice"):
        check_axes([grid_axis("learning_rate=0.1,0.2"), random_axis("learning_rate=0.1:0.2")])


def test_each_point_and_seed_has_its_own_path_safe_name():
    assert point_name({"learning_rate": 0.001, "seed": 0}) == "learning_rate=0.001,seed=0"
    assert (
        point_name({"hidden_sizes": (64, 64), "env": "MinAtar/Breakout", "seed": 1})
        == "hidden_sizes=64x64,env=MinAtar_Breakout,seed=1"
    )


def test_the_space_crosses_grids_draws_and_seeds_and_asha_counts_frames(tmp_path):
    plan = SweepPlan(
        tmp_path,
        (grid_axis("learning_rate=0.001,0.004"), random_axis("batch_size=16:64")),
        seeds=(0, 1),
        samples=3,
        early_stop=True,
    )
    assert plan.trials == 2 * 3 * 2
    space = param_space(plan)
    assert space["learning_rate"] == {"grid_search": [0.001, 0.004]} and space["seed"] == {"grid_search": [0, 1]}
    assert all(16 <= space["batch_size"].sample() <= 64 for _ in range(50))
    scheduler = early_stopping(100_000)
    assert (scheduler._time_attr, scheduler._max_t, scheduler._reduction_factor) == ("env_frames", 100_000, 2)


def write_trial(out, name, config: dict, returns: list[float], frames: list[int]):
    run = out / "trials" / name
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("".join(f"{k}: {v}\n" for k, v in config.items()))
    (run / "metrics.jsonl").write_text(
        "".join(
            json.dumps({"kind": "train", "wall_time": i, "env_frames": f, "return_mean": r}) + "\n"
            for i, (r, f) in enumerate(zip(returns, frames))
        )
    )


def test_the_table_ranks_points_by_their_mean_over_seeds_and_says_what_each_trial_did(tmp_path):
    plan = SweepPlan(tmp_path, (grid_axis("learning_rate=0.001,0.004"),), seeds=(0, 1))
    write_trial(tmp_path, "learning_rate=0.001,seed=0", {"learning_rate": 0.001, "seed": 0}, [10, 50], [500, 1000])
    write_trial(tmp_path, "learning_rate=0.001,seed=1", {"learning_rate": 0.001, "seed": 1}, [10, 30], [500, 1000])
    write_trial(tmp_path, "learning_rate=0.004,seed=0", {"learning_rate": 0.004, "seed": 0}, [80], [500])
    outcomes = [
        ({"learning_rate": 0.001, "seed": 0}, None),
        ({"learning_rate": 0.001, "seed": 1}, None),
        ({"learning_rate": 0.004, "seed": 0}, None),
        ({"learning_rate": 0.004, "seed": 1}, RuntimeError("boom")),
    ]
    result = collect(plan, outcomes, total_frames=1000)
    status = {row["trial"]: row["status"] for row in result.rows}
    assert status == {
        "learning_rate=0.001,seed=0": "done",
        "learning_rate=0.001,seed=1": "done",
        "learning_rate=0.004,seed=0": "stopped early",
        "learning_rate=0.004,seed=1": "failed",
    }
    assert [(p["params"], p["mean"]) for p in result.points] == [
        ({"learning_rate": 0.004}, 80.0),
        ({"learning_rate": 0.001}, 40.0),
    ]
    text = markdown(result)
    assert "| 1 | 0.004 | 80.00 | 80.00 |" in text and "| 2 | 0.001 | 40.00 | 50.00, 30.00 |" in text
    assert "| learning_rate=0.004,seed=1 | failed | - | - | 0 | 0 | RuntimeError: boom |" in text
    assert result.best_line() == "learning_rate=0.004: return_mean 80.00 over 1 seed(s)"
    # a sweep interrupted while that trial ran: it was not stopped early, it was interrupted
    ended = {"learning_rate=0.001,seed=0", "learning_rate=0.001,seed=1", "learning_rate=0.004,seed=1"}
    assert collect(plan, outcomes, total_frames=1000, ended=ended).rows[2]["status"] == "interrupted"


def test_each_trial_gets_as_many_torch_threads_as_cpus_unless_given(tmp_path):
    axes = (grid_axis("learning_rate=0.001,0.004"),)
    assert SweepPlan(tmp_path, axes, preset="minatar").config({"seed": 0}).torch_threads == 1
    assert SweepPlan(tmp_path, axes, preset="minatar", cpus_per_trial=2).config({"seed": 0}).torch_threads == 2
    assert (
        SweepPlan(tmp_path, axes, preset="minatar", fields={"torch_threads": 3}).config({"seed": 0}).torch_threads == 3
    )


def test_points_without_a_value_come_last():
    rows = [
        {"trial": "a", "params": {"x": 1}, "return_mean": None},
        {"trial": "b", "params": {"x": 2}, "return_mean": 5.0},
    ]
    assert [p["params"]["x"] for p in points_of(rows, "return_mean")] == [2, 1]
