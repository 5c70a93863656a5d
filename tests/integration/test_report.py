"""`gorila report` on a real tiny CartPole suite: PNG plots, one index.html with the run summaries and
the final evaluation of the saved parameters, and an evaluation episode as an animation."""

import re

from gorila.cli import main
from gorila.experiments.suite.driver import run_suite
from gorila.experiments.suite.plan import SuitePlan
from gorila.records.checkpoints import BEST, find_checkpoint, load_checkpoint, save_best

FIELDS = dict(
    learning_starts=256,
    batch_size=32,
    hidden_sizes="32",
    eval_every_frames=512,
    eval_episodes=2,
    envs_per_actor=2,
    log_every_seconds=0.5,
    stop_at_return=0.0,
)


def test_report_writes_plots_a_page_and_a_video(tmp_path, capsys):
    suite = tmp_path / "suite"
    run_suite(
        SuitePlan(suite, ("CartPole-v1",), 1024, preset="cartpole", overrides=FIELDS, episodes=2), say=lambda line: None
    )
    run = suite / "CartPole-v1"
    capsys.readouterr()
    assert main(["report", str(run), str(suite), "--out", str(tmp_path / "report"), "--video"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"evaluation of the saved parameters \(1,02\d frames\)", text) and "stored by gorila suite" in text
    assert "biased upwards" in text
    files = {p.name for p in (tmp_path / "report").iterdir()}
    assert {"return_vs_frames.png", "return_vs_wall_time.png", "suite_curves.png", "index.html"} <= files
    assert {"CartPole-v1-episode.gif", "CartPole-v1-episode.mp4"} & files
    page = (tmp_path / "report" / "index.html").read_text()
    for name in ("return_vs_frames.png", "suite_curves.png", "CartPole-v1-episode", "evaluation of the saved"):
        assert name in page


def test_report_of_one_run_defaults_to_run_report_and_evaluates_itself(tmp_path, capsys):
    suite = tmp_path / "suite"
    run_suite(
        SuitePlan(suite, ("CartPole-v1",), 1024, preset="cartpole", overrides=FIELDS, episodes=2), say=lambda line: None
    )
    run = suite / "CartPole-v1"
    (run / "final_eval-noop.json").unlink()  # a plain run: the report evaluates it
    capsys.readouterr()
    assert main(["report", str(run), "--episodes", "3"]) == 0
    loaded = find_checkpoint(run).name  # what `gorila evaluate RUN` loads
    assert f"over 3 episodes; checkpoints/{loaded} evaluated by this report" in capsys.readouterr().out
    assert (run / "report" / "index.html").is_file() and (run / "report" / "return_vs_frames.png").is_file()
    assert (run / "report" / "CartPole-v1-final_eval.json").is_file()


def test_a_path_that_is_no_run_nor_suite_exits_2_with_one_line(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not a run")
    for path in (tmp_path, tmp_path / "notes.txt", tmp_path / "missing"):
        assert main(["report", str(path), "--out", str(tmp_path / "report")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("gorila: error: ") and "is neither a run directory" in err[0], err
    assert not (tmp_path / "report").exists()


def test_report_of_a_solved_run_evaluates_the_model_gorila_evaluate_loads(tmp_path, capsys):
    """A run that stopped on a confirmed solve is reported by its best.pt, as `gorila evaluate RUN` is,
    not by the checkpoint written after it."""
    run = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "--preset",
                "cartpole",
                "--runtime",
                "local",
                "--run-dir",
                str(run),
                "--total-frames",
                "3000",
                "--stop-at-return",
                "9",
                "--eval-every-frames",
                "1024",
                "--eval-episodes",
                "2",
                "--confirm-episodes",
                "2",
                "--learning-starts",
                "256",
            ]
        )
        == 0
    )
    assert (run / "checkpoints" / "best.pt").is_file()
    capsys.readouterr()
    assert main(["report", str(run), "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "checkpoints/best.pt evaluated by this report" in out, out


def test_report_shows_the_evaluation_gorila_evaluate_kept_until_the_parameters_change(tmp_path, capsys):
    """`gorila evaluate RUN` keeps its result in RUN/evaluations; the report shows it, naming its episodes,
    protocol and file, instead of evaluating again (not one at another epsilon); asked for other episodes,
    or once best.pt holds other parameters, the report evaluates anew."""
    run = tmp_path / "run"
    assert (
        main(
            [
                "train",
                "--preset",
                "cartpole",
                "--runtime",
                "local",
                "--run-dir",
                str(run),
                "--total-frames",
                "2000",
                "--eval-every-frames",
                "1024",
                "--eval-episodes",
                "2",
                "--learning-starts",
                "256",
            ]
        )
        == 0
    )
    loaded = find_checkpoint(run)
    assert main(["evaluate", str(run), "--episodes", "3"]) == 0
    kept = run / "evaluations" / f"{loaded.resolve().stem}-noop-3ep-epsilon0.json"
    assert f"saved: {kept}" in capsys.readouterr().out
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    assert (
        f"over 3 episodes; checkpoints/{loaded.name} evaluated by gorila evaluate, protocol noop "
        f"(evaluations/{kept.name})"
    ) in out, out
    assert not (run / "report" / "run-final_eval.json").exists()  # nothing was evaluated again

    # an evaluation at another epsilon is kept beside it, and the report still shows the run's own
    assert main(["evaluate", str(run), "--episodes", "3", "--epsilon", "0.5"]) == 0
    assert (run / "evaluations" / f"{loaded.resolve().stem}-noop-3ep-epsilon0.5.json").is_file() and kept.is_file()
    assert main(["report", str(run)]) == 0
    assert f"(evaluations/{kept.name})" in capsys.readouterr().out

    assert main(["report", str(run), "--episodes", "2"]) == 0
    assert f"over 2 episodes; checkpoints/{loaded.name} evaluated by this report" in capsys.readouterr().out

    payload = load_checkpoint(loaded)
    save_best(run, {**payload, "theta": payload["theta"] + 0.01}, payload["env_frames"])
    assert main(["report", str(run)]) == 0
    assert f"checkpoints/{BEST} evaluated by this report" in capsys.readouterr().out
