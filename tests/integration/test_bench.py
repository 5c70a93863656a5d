"""`gorila bench` measures real components (here the quick sections) and writes every figure as JSON."""

import json

from gorila import cli
from gorila.cli.errors import USAGE_ERROR


def test_bench_writes_ratios_for_the_sections_asked(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert cli.main(["bench", "--sections", "actor", "replay", "--seconds", "0.5", "--json", str(path)]) == 0
    figures = json.loads(path.read_text())
    assert set(figures) == {"actor", "replay"}
    actor = figures["actor"]
    assert actor["bare_ale_steps_per_s"] > 0 and actor["actor_steps_per_s"] > 0
    assert actor["ratio"] == actor["actor_steps_per_s"] / actor["bare_ale_steps_per_s"]
    replay = figures["replay"]
    assert 84 * 84 <= replay["bytes_per_transition"] < 84 * 84 * 1.05  # one frame per transition
    assert replay["inserts_per_s"] > 0 and replay["sampled_transitions_per_s"] > 0
    assert "actor" in capsys.readouterr().out


def test_bench_refuses_an_unknown_section(capsys):
    assert cli.main(["bench", "--sections", "warp-drive"]) == USAGE_ERROR
    assert "unknown warp-drive" in capsys.readouterr().err
