"""The progress line: what a person watching a run reads."""
from gorila.records.progress import describe

STATS = {"fps": 4687.2, "ups": 0.0, "return_mean": 1.8, "ps_version": 0, "replay_size": 1_285}


def test_before_the_first_update_the_line_says_what_the_learners_wait_for():
    assert describe({**STATS, "warmup": 50_000}) == (
        "4,687 frames/s | 0.0 updates/s (learning starts once each replay holds 50,000) | return 1.8 | PS v0 | "
        "replay 1,285")
    assert describe({**STATS, "ups": 12.5, "warmup": None}) == (
        "4,687 frames/s | 12.5 updates/s | return 1.8 | PS v0 | replay 1,285")
