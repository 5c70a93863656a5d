"""`gorila suite` on two real MinAtar games, then `gorila report` of it: each game runs as its -v0 id
under the minatar preset, the table sets the training return beside MinAtar's published DQN at the same
frames (Freeway's curve is read from 21,500 frames, so the games train 22,000, mostly acting before
learning starts at 21,000; Breakout's is read only from 80,800, so its row says that) and the report
draws a panel per game over the published curves. A suite mixing MinAtar and Atari games is refused."""

import csv

import yaml

from gorila.cli import main

FAST = [
    "--runtime",
    "local",
    "--learning-starts",
    "21000",
    "--update-every",
    "16",
    "--eval-every-frames",
    "0",
    "--eval-episodes",
    "1",
    "--checkpoint-every-frames",
    "0",
    "--episodes",
    "1",
]


def test_a_minatar_suite_is_tabulated_and_drawn_beside_the_published_dqn(tmp_path, capsys):
    suite = tmp_path / "suite"
    assert (
        main(
            [
                "suite",
                "--games",
                "MinAtar/Breakout,MinAtar/Freeway",
                "--frames-per-game",
                "22000",
                "--out",
                str(suite),
                *FAST,
            ]
        )
        == 0
    )
    config = yaml.safe_load((suite / "MinAtar_Freeway-v0" / "config.yaml").read_text())
    assert config["env"] == "MinAtar/Freeway-v0" and config["network"] == "minatar_cnn"  # the minatar preset
    with open(suite / "results.csv") as file:
        rows = {r["game"]: r for r in csv.DictReader(file)}
    assert list(rows) == ["MinAtar/Breakout-v0", "MinAtar/Freeway-v0"]
    freeway, breakout = rows["MinAtar/Freeway-v0"], rows["MinAtar/Breakout-v0"]
    assert freeway["env"] == "MinAtar/Freeway-v0" and int(freeway["frames"]) >= 22_000
    assert float(freeway["published_dqn"]) == 5.56  # flat at 5.56 from 21,500 frames
    assert float(freeway["ratio"]) == float(freeway["ours_training_return"]) / 5.56
    assert breakout["published_dqn"] == "" and "begins at 80,800 frames" in breakout["published_note"]
    assert "Games at >= 1.0 of the published DQN:" in (suite / "results.md").read_text()

    capsys.readouterr()
    assert main(["report", str(suite), "--out", str(tmp_path / "report")]) == 0
    text = capsys.readouterr().out
    assert "MinAtar/Freeway-v0: " in text and "published DQN 5.56" in text
    assert (tmp_path / "report" / "suite_minatar_curves.png").stat().st_size > 10_000
    page = (tmp_path / "report" / "index.html").read_text()
    assert 'src="suite_minatar_curves.png"' in page and "<td>5.56</td>" in page


def test_a_suite_mixing_minatar_and_atari_games_is_refused_in_one_line(tmp_path, capsys):
    assert main(["suite", "--games", "MinAtar/Breakout,Pong", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gorila: error: --games: MinAtar and other games cannot share"), err
    assert not (tmp_path / "s").exists()


def test_a_suite_of_two_seeds_runs_each_in_its_own_directory_and_tables_and_draws_them_together(tmp_path, capsys):
    suite = tmp_path / "suite"
    argv = [
        "suite",
        "--games",
        "MinAtar/Freeway",
        "--frames-per-game",
        "22000",
        "--seeds",
        "0,1",
        "--out",
        str(suite),
        *FAST,
    ]
    assert main(argv) == 0
    seeds = [
        yaml.safe_load((suite / f"seed-{k}" / "MinAtar_Freeway-v0" / "config.yaml").read_text())["seed"] for k in (0, 1)
    ]
    assert seeds == [0, 1]
    with open(suite / "results.csv") as file:
        [row] = list(csv.DictReader(file))
    per_seed = []
    for k in (0, 1):
        with open(suite / f"seed-{k}" / "results.csv") as file:
            per_seed.append(float(next(csv.DictReader(file))["ours_training_return"]))
    assert float(row["ours_training_return"]) == (per_seed[0] + per_seed[1]) / 2
    assert float(row["published_dqn"]) == 5.56 and "with seeds 0, 1" in (suite / "results.md").read_text()

    capsys.readouterr()
    assert main(argv) == 0  # again: both seeds finished, nothing trains
    assert "finished earlier" in capsys.readouterr().out
    assert main(["report", str(suite), "--out", str(tmp_path / "report")]) == 0
    text = capsys.readouterr().out
    assert "1 of 1 MinAtar games finished with seeds 0, 1" in text
    assert (
        f"MinAtar/Freeway-v0: {float(row['ours_training_return']):.2f} (seeds: {per_seed[0]:.2f}, {per_seed[1]:.2f})"
        in text
    )
    assert (tmp_path / "report" / "suite_minatar_curves.png").stat().st_size > 10_000


def test_bad_seeds_are_refused_in_one_line(tmp_path, capsys):
    for argv, message in (
        (["--seeds", "0,x"], "--seeds: comma-separated whole numbers"),
        (["--seeds", "0,1", "--seed", "3"], "give --seeds or --seed, not both"),
        (["--seeds", "1,1"], "--seeds: each seed once"),
        (["--games", "Pong", "--seeds", "0,1"], "--seeds: a suite of several seeds is tabled for MinAtar"),
    ):
        games = [] if "--games" in argv else ["--games", "MinAtar/Freeway"]
        assert main(["suite", *games, *argv, "--out", str(tmp_path / "s")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "s").exists()
