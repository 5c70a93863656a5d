"""`gorila report` of a suite directory holding final evaluations (no training): the paper's counts
with double and 5 times DQN, and the table's marks and footnotes, on the page and in the text."""

import json

from gorila.experiments.report.page import make_report
from gorila.experiments.suite.plan import SUITE_FILE, SuitePlan
from tests.helpers import store_final_evaluation


def test_the_report_shows_the_counts_and_marks_of_the_suite_table(tmp_path):
    plan = SuitePlan(tmp_path / "suite", ("Pong", "VideoPinball"), 20_000, protocols=("noop", "human-starts"))
    plan.out.mkdir()
    (plan.out / SUITE_FILE).write_text(json.dumps(plan.to_dict()))
    store_final_evaluation(plan, "Pong", "noop", 19.0)
    store_final_evaluation(plan, "VideoPinball", "noop", 20_000.0)
    store_final_evaluation(plan, "Pong", "human-starts", 16.5, starts="random-play")
    store_final_evaluation(plan, "VideoPinball", "human-starts", 112_093.37)
    text, index = make_report([str(plan.out)], tmp_path / "report")
    page = index.read_text()
    assert "<th>games at 2x DQN</th><th>games at 5x DQN</th>" in page
    assert "<td>16.5‡</td>" in page and "<td>-1,904.9†</td>" in page and "<td>112,093.4</td>" in page
    assert "‡ Start points not recorded from human play: Pong (random-play)." in page
    assert "† The published human score is at or below random play&#x27;s: VideoPinball (human starts)." in page
    assert "‡ Start points not recorded from human play: Pong (random-play)." in text
    assert "| human starts | ours | 2 | 2 | 1 | 1 | 2 |" in text  # Pong 103% of human; Video Pinball by the rule
    assert (tmp_path / "report" / "suite_human_normalised_human_starts.png").stat().st_size > 1_000
