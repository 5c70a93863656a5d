"""`gorila suite` on two real MinAtar games, then `gorila report` of it: each game runs as its -v0 id
under the minatar preset, the table sets the training return beside MinAtar's published DQN at the same
frames (Freeway's curve is read from 21,500 frames, so the games train 22,000, mostly acting before
learning starts at 21,000; Breakout's is read only from 80,800, so its row says that) and the report
draws a panel per game over the published curves. A suite mixing MinAtar and Atari games is refused."""
import csv

import yaml

from gorila.cli import main

FAST = ["--runtime", "local", "--learning-starts", "21000", "--update-every", "16", "--eval-every-frames", "0",
        "--eval-episodes", "1", "--checkpoint-every-frames", "0", "--episodes", "1"]


def test_a_minatar_suite_is_tabulated_and_drawn_beside_the_published_dqn(tmp_path, capsys):
    suite = tmp_path / "suite"
    assert main(["suite", "--games", "MinAtar/Breakout,MinAtar/Freeway", "--frames-per-game", "22000",
                 "--out", str(suite), *FAST]) == 0
    config = yaml.safe_load((suite / "MinAtar_Freeway-v0" / "config.yaml").read_text())
    assert config["env"] == "MinAtar/Freeway-v0" and config["network"] == "minatar_cnn"     # the minatar preset
    with open(suite / "results.csv") as file:
        rows = {r["game"]: r for r in csv.DictReader(file)}
    assert list(rows) == ["MinAtar/Breakout-v0", "MinAtar/Freeway-v0"]
    freeway, breakout = rows["MinAtar/Freeway-v0"], rows["MinAtar/Breakout-v0"]
    assert freeway["env"] == "MinAtar/Freeway-v0" and int(freeway["frames"]) >= 22_000
    assert float(freeway["published_dqn"]) == 5.56                  # flat at 5.56 from 21,500 frames
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
