"""An evaluation kept as JSON names its figures as the Python API's `Evaluation` does, and one written
under the metric names (eval_return_mean, ...) reads the same."""

import json

from gorila.records.evaluation_files import as_evaluation, load_evaluation


def test_the_evaluators_metric_names_become_the_evaluations():
    result = {"eval_return_mean": 2.5, "eval_return_std": 0.5, "eval_episodes": 2, "eval_returns": [2.0, 3.0]}
    assert as_evaluation({**result, "protocol": "noop"}) == {
        "return_mean": 2.5,
        "return_std": 0.5,
        "episodes": 2,
        "returns": [2.0, 3.0],
        "protocol": "noop",
    }


def test_a_file_under_either_names_loads_as_an_evaluation(tmp_path):
    (tmp_path / "old.json").write_text(json.dumps({"eval_return_mean": 18.5, "eval_episodes": 30}))
    (tmp_path / "new.json").write_text(json.dumps({"return_mean": 18.5, "episodes": 30}))
    assert (
        load_evaluation(tmp_path / "old.json")
        == load_evaluation(tmp_path / "new.json")
        == {
            "return_mean": 18.5,
            "episodes": 30,
        }
    )
