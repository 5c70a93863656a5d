"""benchmarks/long_runs.py: each run's command is one `gorila train` or `gorila suite` accepts, and a run is
started, resumed or passed over by what its directory holds."""

import json
import signal
import sys
import time
from pathlib import Path

import pytest

from gorila.cli.main import build_parser
from gorila.cli.suite import suite_plan
from gorila.cli.train import checked_train_config
from gorila.records.checkpoints import LATEST


@pytest.fixture
def long_runs(benchmark, monkeypatch, tmp_path):
    module = benchmark("long_runs")
    monkeypatch.setattr(module, "head_commit", lambda: "0123abc")  # git through the subprocess tests replace
    monkeypatch.setattr(module, "OUT", tmp_path / "baselines")  # none of the repository's compiled runs
    return module


@pytest.mark.parametrize(
    "name",
    [
        "pong-atari-fast-seed1",
        "breakout-atari-fast-sticky-seed0",
        "pong-rainbow-dopamine-seed0",
        "pong-atari-fast-impala-seed0",
    ],
)
def test_a_new_runs_command_passes_gorila_trains_checks(long_runs, name, tmp_path):
    argv = long_runs.command(name, tmp_path / name, "new")
    assert argv[:4] == [sys.executable, "-m", "gorila", "train"]
    config, info = checked_train_config(build_parser(argv[3:]).parse_args(argv[3:]))
    preset, game, seed, _ = long_runs.RUNS[name]
    assert (config.env, config.seed, config.save_replay) == (game, seed, True)
    assert config.checkpoint_every_frames == 1_000_000 and config.runtime == "local"
    if preset == "atari-fast":
        assert config.total_frames == 10_000_000
        assert config.sticky_actions == (0 if game == "Pong" else 0.25)
        assert config.stop_at_return == (18 if game == "Pong" else 0)
    else:
        assert (config.algorithm, config.total_frames, config.sticky_actions) == ("rainbow", 5_000_000, 0.25)
    assert config.fire_reset == (game == "Breakout" and preset == "atari-fast")
    assert config.network == ("impala_cnn" if "impala" in name else "nature_cnn")


def test_the_suites_command_plans_the_five_minatar_games_at_seed_1(long_runs, tmp_path):
    (name,) = long_runs.SUITES
    argv = long_runs.command(name, tmp_path / name, "new")
    assert argv[:4] == [sys.executable, "-m", "gorila", "suite"]
    plan, address = suite_plan(build_parser(argv[3:]).parse_args(argv[3:]))
    assert (
        len(plan.games) == 5
        and plan.frames_per_game == 500_000
        and plan.seeds == (1,)
        and plan.preset == "rainbow-minatar"
    )
    assert address == "" and plan.out == tmp_path / name


def records(run_dir: Path, *lines: dict) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text("env: Pong\n")
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    (run_dir / "checkpoints" / LATEST).touch()
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_training_run_is_new_cut_or_done_by_its_directory(long_runs, tmp_path):
    run_dir, name = tmp_path / "run", "pong-atari-fast-apex-ladder-seed2"
    assert long_runs.state(name, run_dir) == "new"
    records(run_dir, {"kind": "train", "env_frames": 1000})  # killed: no summary
    assert long_runs.state(name, run_dir) == "cut"
    resumed = long_runs.command(name, run_dir, "cut")
    assert resumed[3:] == ["train", "--resume", str(run_dir), "--set", "stop_at_return=18", *long_runs.APEX_LADDER]
    records(run_dir, {"kind": "summary", "stop_reason": "interrupted"})
    assert long_runs.state(name, run_dir) == "cut"
    records(run_dir, {"kind": "summary", "stop_reason": "interrupted"}, {"kind": "summary", "stop_reason": "solved"})
    assert long_runs.state(name, run_dir) == "done"
    records(run_dir, {"kind": "summary", "stop_reason": "budget", "env_frames": 10_000_000})
    assert long_runs.state(name, run_dir) == "done"


def test_a_suite_is_done_once_it_ended_well(long_runs, tmp_path, monkeypatch):
    (name,) = long_runs.SUITES
    out = tmp_path / name
    assert long_runs.state(name, out) == "new"
    out.mkdir()
    assert long_runs.state(name, out) == "cut"  # started, never ended well: the same command goes on
    ran = []
    monkeypatch.setattr(long_runs, "run_until", lambda argv, log, stop_by: ran.append(argv) or (0, False))
    assert long_runs.main([str(tmp_path), "--only", name]) == 0
    assert ran and ran[0][3] == "suite" and long_runs.state(name, out) == "done"
    assert long_runs.main([str(tmp_path), "--only", name]) == 0 and len(ran) == 1  # passed over


def test_an_ended_run_is_compiled_once_with_its_games_dopamine_curves(long_runs, tmp_path, monkeypatch):
    name = "breakout-atari-fast-sticky-seed0"
    monkeypatch.setattr(long_runs, "OUT", tmp_path / "baselines")
    evaluate, compile_ = long_runs.compile_commands(name, tmp_path / name)
    args = build_parser(evaluate[3:]).parse_args(evaluate[3:])
    assert (args.command, args.episodes, args.path) == ("evaluate", 100, str(tmp_path / name))
    references = compile_[compile_.index("--reference") + 1 :]
    assert references == ["dopamine_dqn_breakout.tsv", "dopamine_rainbow_breakout.tsv"]
    assert all((long_runs.REFERENCE / f).is_file() for f in references)
    typed = compile_[compile_.index("--command") + 1]
    assert typed.startswith("gorila train --preset atari-fast --env Breakout --seed 0") and "--run-dir RUN" in typed
    records(tmp_path / name, {"kind": "summary", "stop_reason": "budget", "env_frames": 10_000_000})
    ran = []

    def run(argv, **_):
        ran.append(argv)
        if "atari_baseline.py" in argv[1]:
            long_runs.compiled(name).parent.mkdir(parents=True, exist_ok=True)
            long_runs.compiled(name).write_text("{}")
        return type("R", (), {"returncode": 0})

    monkeypatch.setattr(long_runs.subprocess, "run", run)
    assert long_runs.main([str(tmp_path), "--only", name]) == 0
    assert [argv[3] if argv[1] == "-m" else "compile" for argv in ran] == ["evaluate", "compile"]
    assert long_runs.main([str(tmp_path), "--only", name]) == 0 and len(ran) == 2  # compiled: passed over


def test_a_run_cut_short_is_resumed_and_not_compiled(long_runs, tmp_path, monkeypatch):
    name = "pong-atari-fast-apex-ladder-seed2"
    records(tmp_path / name, {"kind": "train", "env_frames": 1000})
    ran = []
    monkeypatch.setattr(long_runs, "run_until", lambda argv, log, stop_by: ran.append(argv) or (130, False))
    assert long_runs.main([str(tmp_path), "--only", name]) == 130
    assert len(ran) == 1 and ran[0][3:5] == ["train", "--resume"]


def test_the_compiled_command_names_each_resume_and_the_commit_names_each_start(long_runs, tmp_path, monkeypatch):
    name = "pong-atari-fast-apex-ladder-seed2"
    run_dir = tmp_path / name
    records(
        run_dir,
        {"kind": "train", "env_frames": 1000},
        {"kind": "resume", "env_frames": 2_000_000, "replay": "replay: 500,000 transitions restored from x"},
        {"kind": "summary", "stop_reason": "solved", "env_frames": 5_000_000},
    )
    log = tmp_path / f"{name}.log"
    log.write_text(f"{long_runs.STARTED}abc1234 (new)\nnoise\n{long_runs.STARTED}def5678 (cut)\n")
    typed = long_runs.as_typed(name, run_dir)
    assert typed.endswith(
        "--run-dir RUN; gorila train --resume RUN --set stop_at_return=18 --ladder-base 0.4 --ladder-alpha 7 at 2,000,000 frames"
    )
    compile_ = long_runs.compile_commands(name, run_dir)[1]
    assert compile_[compile_.index("--commit") + 1] == "abc1234, then def5678"
    log.write_text(f"{long_runs.STARTED}abc1234 (new)\n")
    records(run_dir, {"kind": "summary", "stop_reason": "solved", "env_frames": 5_000_000})  # no resume
    assert "--resume" not in long_runs.as_typed(name, run_dir) and long_runs.started(log) == "abc1234"


def test_each_command_of_a_run_leaves_its_commit_in_the_runs_log(long_runs, tmp_path, monkeypatch):
    name = "pong-atari-fast-apex-ladder-seed2"
    monkeypatch.setattr(long_runs, "run_until", lambda argv, log, stop_by: (130, False))
    assert long_runs.main([str(tmp_path), "--only", name]) == 130
    assert long_runs.started(tmp_path / f"{name}.log") == "0123abc"


# A stand-in for gorila train that, as it does, saves on SIGTERM and exits 130; it writes what it did.
# It starts with SIGTERM blocked (the mask its parent had) and unblocks it once its handler is there, so a
# SIGTERM sent while it starts waits for the handler rather than killing it; "parent" sends its parent
# SIGTERM once it can take the one passed back.
TRAINING = """
import os, signal, sys, time
def stop(*_):
    print("checkpoint saved", flush=True)
    sys.exit(130)
signal.signal(signal.SIGTERM, stop)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
print("training", flush=True)
if sys.argv[1] == "parent":
    os.kill(os.getppid(), signal.SIGTERM)
time.sleep(60 if sys.argv[1] == "parent" else float(sys.argv[1]))
print("budget", flush=True)
"""


def test_a_training_run_past_stop_by_is_stopped_as_ctrl_c_stops_it(long_runs, tmp_path):
    log_path = tmp_path / "run.log"
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        with open(log_path, "w") as log:
            code, stopped = long_runs.run_until([sys.executable, "-c", TRAINING, "60"], log, time.time())
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    assert (code, stopped) == (130, True)
    assert log_path.read_text().split() == ["checkpoint", "saved"]  # at once: the deadline had passed
    with open(log_path, "w") as log:  # one that ends first is left alone
        assert long_runs.run_until([sys.executable, "-c", TRAINING, "0"], log, time.time() + 600) == (0, False)
    assert log_path.read_text().split() == ["training", "budget"]


def test_sigterm_to_the_script_reaches_its_training_run(long_runs, tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with open(tmp_path / "run.log", "w") as log:
        code, stopped = long_runs.run_until([sys.executable, "-c", TRAINING, "parent"], log, None)
    assert (code, stopped) == (130, False)
    assert (tmp_path / "run.log").read_text().split() == ["training", "checkpoint", "saved"]
    assert signal.getsignal(signal.SIGTERM) == before  # the script's own handler is back


def test_a_run_stopped_by_stop_by_is_compiled_with_a_note_then_passed_over_once_its_directory_is_gone(
    long_runs, tmp_path, monkeypatch
):
    name = "breakout-atari-fast-sticky-seed0"
    monkeypatch.setattr(long_runs, "OUT", tmp_path / "baselines")
    run_dir = tmp_path / "runs" / name

    def stopped(argv, log, stop_by):
        records(
            run_dir,
            {"kind": "train", "env_frames": 6_400_000},
            {"kind": "eval", "env_frames": 6_000_000, "eval_return_mean": 41.5},
        )
        return 130, True

    compiled = []

    def run(argv, **_):
        compiled.append(argv)
        if "atari_baseline.py" in argv[1]:
            long_runs.compiled(name).parent.mkdir(parents=True, exist_ok=True)
            long_runs.compiled(name).write_text(json.dumps({"note": argv[argv.index("--note") + 1]}))
        return type("R", (), {"returncode": 0})

    monkeypatch.setattr(long_runs, "run_until", stopped)
    monkeypatch.setattr(long_runs.subprocess, "run", run)
    assert long_runs.main([str(tmp_path / "runs"), "--only", name, "--stop-by", "23:59"]) == 130
    note = json.loads(long_runs.compiled(name).read_text())["note"]
    assert note.startswith(
        "stopped at 6.40M frames by long_runs --stop-by 23:59 (best evaluation during training 41.5)"
    )
    assert long_runs.state(name, run_dir) == "cut"  # its directory here: the next call resumes it
    assert long_runs.passed_over(name, run_dir, "cut") is None
    assert "its run directory is not here" in long_runs.passed_over(name, tmp_path / "gone", "new")
    monkeypatch.setattr(long_runs, "run_until", lambda *a: pytest.fail("a compiled run started again from launch"))
    assert long_runs.main([str(tmp_path / "elsewhere"), "--only", name]) == 0


def test_nothing_starts_past_stop_by_and_a_bad_time_is_refused(long_runs, tmp_path, monkeypatch):
    monkeypatch.setattr(long_runs, "deadline", lambda text: time.time() - 1)
    monkeypatch.setattr(long_runs, "run_until", lambda *a: pytest.fail("started past --stop-by"))
    assert long_runs.main([str(tmp_path), "--only", "pong-atari-fast-apex-ladder-seed2", "--stop-by", "00:00"]) == 0
    monkeypatch.undo()
    with pytest.raises(SystemExit) as exit_:
        long_runs.main([str(tmp_path), "--stop-by", "late"])
    assert exit_.value.code == 2
    assert 0 < long_runs.deadline("00:00") - time.time() <= 86_400
