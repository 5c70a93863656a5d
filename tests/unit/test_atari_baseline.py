"""benchmarks/atari_baseline.py compiles a run with both times to each mark: the training mean's
(`first_reached`) and the DQN-protocol evaluations' (`protocol_first_reached`), from the run's records."""

import json
import sys
from pathlib import Path

from tests.unit.experiments.report.test_targets import RECORDS, run_dir

ROOT = Path(__file__).resolve().parents[2]


def test_the_compiled_file_holds_both_times_to_each_mark(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import atari_baseline

    (tmp_path / "run").mkdir()
    resume = {"kind": "resume", "wall_time": 2_500.0, "env_frames": 2_000_000, "replay": "replay: empty (...)"}
    run = run_dir(tmp_path / "run", [*RECORDS[:3], resume, *RECORDS[3:]])
    monkeypatch.setattr(atari_baseline, "OUT", tmp_path / "out")
    argv = ["atari_baseline.py", str(run), "--name", "pong-test", "--command", "gorila train ...", "--target", "17"]
    monkeypatch.setattr(sys, "argv", [*argv, "--commit", "abc1234", "--machine", "here"])
    atari_baseline.main()
    compiled = json.loads((tmp_path / "out" / "pong-test.json").read_text())
    assert compiled["first_reached"]["+18"] == {"frames": 3_000_000, "wall_s": 3_600.0}
    assert compiled["protocol_first_reached"]["+18"] == {"frames": 4_000_000, "wall_s": 4_831.0}
    assert compiled["protocol_first_reached"]["+17"] == {"frames": 4_000_000, "wall_s": 4_831.0}
    assert compiled["protocol_first_reached"]["+10"] == {"frames": 3_000_000, "wall_s": 3_650.0}
    assert compiled["evaluation_protocol"].startswith("DQN-protocol evaluation (null-op starts, epsilon 0.05")
    assert [e["mean"] for e in compiled["evaluations"]] == [5.0, 16.3, 18.2]  # no confirmation
    assert compiled["resumes"] == [{"frames": 2_000_000, "wall_s": 2_500.0, "replay": "replay: empty (...)"}]
    resume["replay_files_restored"] = 1  # a resume record that says how many saved files refilled it
    run_dir(tmp_path / "run", [*RECORDS[:3], resume, *RECORDS[3:]])
    atari_baseline.main()
    compiled = json.loads((tmp_path / "out" / "pong-test.json").read_text())
    assert [r["replay_restored"] for r in compiled["resumes"]] == [True]
