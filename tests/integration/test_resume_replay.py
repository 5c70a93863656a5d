"""A resumed run says what its replay holds: the transitions restored from the replay saved with the
checkpoint (`save_replay`), or that it starts empty, what refilling it costs and how to keep it.

A tiny CartPole run on the local runtime trains to its budget (its final checkpoint), then a second
Driver resumes it to a larger budget, as `gorila train --resume RUN --total-frames N` does.
"""

from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.records.checkpoints import load_latest_good, replay_file
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver

CONFIG = dict(
    env="CartPole-v1",
    runtime="local",
    total_frames=2_000,
    learning_starts=500,
    batch_size=32,
    hidden_sizes="32",
    eval_every_frames=0,
    eval_episodes=2,
    checkpoint_every_frames=0,
    replay_capacity=20_000,
    envs_per_actor=2,
    log_every_seconds=0.5,
    seed=3,
)


def resumes(run_dir) -> list[dict]:
    return [r for r in read_metrics(run_dir) if r["kind"] == "resume"]


def replay_of(trainer: Driver):
    return trainer.system.workers[WorkerId("bundle", 0)].replay


def train_then_resume(tmp_path, capsys, **fields) -> tuple[Driver, Driver]:
    """The first run, trained to its budget, and the Driver that resumes it (to 4,000 frames), placed
    and not yet run."""
    config = build_config(overrides={**CONFIG, **fields})
    first = Driver(config, tmp_path / "run", live_progress=False)
    first.run()
    capsys.readouterr()
    longer = build_config(overrides={**CONFIG, **fields, "total_frames": 4_000})
    second = Driver(longer, tmp_path / "run", live_progress=False, resume=load_latest_good(tmp_path / "run"))
    return first, second


def test_a_resume_restores_the_saved_replay_and_says_so(tmp_path, capsys):
    first, second = train_then_resume(tmp_path, capsys, save_replay=True)
    held = replay_of(first).sampleable()  # transitions, an episode's last frame left out
    assert held >= 1_900 and replay_of(second).sampleable() == held  # the experience came back whole
    assert len(replay_of(second)) == len(replay_of(first))
    second.run()
    printed = capsys.readouterr().out.splitlines()
    line = f"replay: {held:,} transitions restored from {replay_file(tmp_path / 'run', 0)}"
    assert line in printed
    [resume] = resumes(tmp_path / "run")  # the metrics keep it: a compiled result names its resumes
    assert resume["env_frames"] == first.info.frames(first.steps) and resume["replay"] == line
    assert resume["replay_files_restored"] == 1


def test_a_resume_without_a_saved_replay_says_it_starts_empty(tmp_path, capsys):
    first, second = train_then_resume(tmp_path, capsys)
    assert replay_of(first).sampleable() >= 1_900 and len(replay_of(second)) == 0
    second.run()
    printed = capsys.readouterr().out.splitlines()
    assert (
        "replay: empty (this run saves none: --set save_replay=true keeps it); learning waits until it holds "
        "500 transitions again (about 500 frames), and refills to its 20,000 in about 20,000 frames"
    ) in printed
    assert len([line for line in printed if line.startswith("replay:")]) == 1
    assert [r["replay"].startswith("replay: empty") for r in resumes(tmp_path / "run")] == [True]
    assert [r["replay_files_restored"] for r in resumes(tmp_path / "run")] == [0]


def test_a_fresh_run_says_nothing_of_a_replay(tmp_path, capsys):
    Driver(build_config(overrides=CONFIG), tmp_path / "run", live_progress=False).run()
    assert not any(line.startswith("replay:") for line in capsys.readouterr().out.splitlines())
    assert resumes(tmp_path / "run") == []
