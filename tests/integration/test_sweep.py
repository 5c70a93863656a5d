"""`gorila sweep` on real Ray Tune with tiny CartPole runs: a grid of four trials, two of which fail,
gives a table, a figure and a normal run directory per trial; bad input ends in one line."""

import json

import torch

from gorila.cli import main
from gorila.records.metrics import read_metrics

FIELDS = [
    "--set",
    "total_frames=3000",
    "--set",
    "learning_starts=256",
    "--set",
    "eval_every_frames=0",
    "--set",
    "eval_episodes=2",
    "--set",
    "log_every_seconds=0.5",
    "--set",
    "stop_at_return=0",
]
BROKEN = "tests.integration.test_sweep:network_that_does_not_build"


def network_that_does_not_build(obs_shape, num_actions) -> torch.nn.Module:
    raise RuntimeError("this network does not build")


def test_a_grid_sweep_runs_each_trial_in_its_own_run_and_reports_the_failed_ones(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = main(
        [
            "sweep",
            "--preset",
            "cartpole",
            "--grid",
            "learning_rate=0.001,0.004",
            "--grid",
            f"network=mlp,{BROKEN}",
            "--concurrent",
            "2",
            "--out",
            str(out),
            *FIELDS,
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    result = json.loads((out / "results.json").read_text())
    status = {row["trial"]: row["status"] for row in result["trials"]}
    done = [name for name, s in status.items() if s == "done"]
    failed = [name for name, s in status.items() if s == "failed"]
    assert sorted(done) == ["learning_rate=0.001,network=mlp,seed=0", "learning_rate=0.004,network=mlp,seed=0"]
    assert len(failed) == 2 and all(
        "does not build" in row["error"] for row in result["trials"] if row["status"] == "failed"
    ), result["trials"]
    for name in done:  # each trial a normal run directory
        run = out / "trials" / name
        records = read_metrics(run)
        assert max(r["env_frames"] for r in records) >= 3000
        assert (run / "checkpoints" / "latest.pt").is_file()
    assert [p["params"]["network"] for p in result["points"][:2]] == ["mlp", "mlp"]  # scored points first
    assert (out / "results.png").stat().st_size > 10_000
    assert "sweep: results in" in printed and "| rank | learning_rate | network |" in printed


def test_bad_sweeps_end_in_one_line_before_anything_starts(tmp_path, capsys):
    for args, message in [
        (["--grid", "learning_rat=0.1,0.2"], "no config field 'learning_rat'; did you mean learning_rate"),
        (["--grid", "learning_rate=0.1", "--seed", "3"], "give --seeds instead of seed"),
        (["--grid", "learning_rate=0.1", "--runtime", "ray"], "each trial trains on the local runtime"),
        (["--grid", "learning_rate=-1,0.1"], "learning_rate"),
        (["--samples", "3", "--grid", "learning_rate=0.1"], "--samples N (>= 1) draws the --random fields"),
    ]:
        assert main(["sweep", "--preset", "cartpole", "--out", str(tmp_path / "s"), *args]) == 2
        error = capsys.readouterr().err.strip()
        assert message in error and len(error.splitlines()) == 1, error
    assert not (tmp_path / "s").exists()
