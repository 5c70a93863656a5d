"""The published results (benchmarks/published.py): the pages' blocks agree with their files, and a
number typed over in a block fails the check that CI runs (`bash scripts/results.sh --check`)."""

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def published(benchmark):
    return benchmark("published")


@pytest.fixture
def copy(tmp_path):
    """The pages copied under tmp_path, beside the repository's benchmarks/ (linked, read only)."""
    for page in ("README.md", "docs/results.md", "docs/guides/failures.md"):
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
    (tmp_path / "benchmarks").symlink_to(ROOT / "benchmarks")
    return tmp_path


def test_every_block_of_the_pages_agrees_with_its_files(published):
    assert published.check(ROOT) == [], "run `bash scripts/results.sh` to render the blocks from their files"


def test_every_page_has_blocks_and_every_block_a_function(published):
    names = [m.group("name") for page in published.PAGES for m in published.BLOCK.finditer((ROOT / page).read_text())]
    assert {"pong", "minatar", "faults", "minatar-dqn", "faults-table"} <= set(names)
    assert set(names) <= set(published.BLOCKS)


def test_a_number_typed_over_in_a_block_fails_the_check(published, copy, capsys):
    readme = copy / "README.md"
    text = readme.read_text()
    begin = text.index("<!-- results:begin pong -->")
    assert "**18.13 +/- 2.78**" in text[begin:]
    readme.write_text(text[:begin] + text[begin:].replace("**18.13 +/- 2.78**", "**18.31 +/- 2.78**", 1))

    assert published.main(["--check", "--root", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "README.md: block pong is out of date" in out
    assert "-" in out and "18.31" in out and "18.13" in out

    assert published.main(["--root", str(copy)]) == 0  # rendering writes the file's number back
    assert readme.read_text() == text
    assert published.main(["--check", "--root", str(copy)]) == 0


def test_a_number_changed_outside_every_block_is_not_the_checks_business(published, copy):
    results = copy / "docs" / "results.md"
    results.write_text(results.read_text().replace("# Results", "# Results 1", 1))
    assert published.check(copy) == []


def test_a_block_without_a_function_is_an_error(published, copy):
    readme = copy / "README.md"
    readme.write_text(readme.read_text() + "\n<!-- results:begin nothing -->\n<!-- results:end nothing -->\n")
    with pytest.raises(KeyError, match="nothing"):
        published.check(copy)


def rainbow_suite(root: Path, folder: str, returns: dict[str, float], seeds=None) -> None:
    """A compiled rainbow-minatar suite's results.json under root, with a row per game."""
    rows = [{"game": f"MinAtar/{game}-v0", "ours_training_return": value} for game, value in returns.items()]
    if seeds is not None:
        rows = [{**row, "seeds": seeds} for row in rows]
    path = root / "benchmarks/baselines/rainbow" / folder / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rows": rows}))


@pytest.fixture
def rainbow_root(tmp_path):
    """A root holding the repository's minatar (DQN) table and no Rainbow suite yet."""
    dqn = tmp_path / "benchmarks/baselines/minatar/dqn-500k-b256-seeds01"
    dqn.mkdir(parents=True)
    shutil.copy(ROOT / "benchmarks/baselines/minatar/dqn-500k-b256-seeds01/results.json", dqn)
    return tmp_path


def test_rainbow_is_judged_against_dqn_only_on_games_where_both_seeds_ran(benchmark, rainbow_root):
    minatar = benchmark("published_minatar")
    rainbow_suite(rainbow_root, "minatar-500k-seed0-partial", {"Asterix": 8.0, "Breakout": 2.0})
    rainbow_suite(rainbow_root, "minatar-500k-seed1", {"Asterix": 10.0, "Breakout": 4.0}, seeds=[1])
    rainbow_suite(rainbow_root, "minatar-500k-seed0-other-three", {"Freeway": 50.0})

    text = minatar.rainbow_minatar(rainbow_root)

    assert "at or above it on 1 of the 2 games where both seeds ran" in text  # Breakout's 3.00 < 8.45
    assert (
        "seed by seed, 2 of those 4 runs at or above the DQN preset's mean (below: Breakout seed 0, Breakout seed 1)"
        in text
    )
    assert "| Asterix | 9.00 (8.00, 10.00) |" in text
    assert "| Freeway | 50.00, to run |" in text
    assert "| Seaquest | to run, to run |" in text


def test_a_rainbow_suite_of_another_seed_than_its_folder_says_is_refused(benchmark, rainbow_root):
    minatar = benchmark("published_minatar")
    rainbow_suite(rainbow_root, "minatar-500k-seed1", {"Asterix": 10.0}, seeds=[0])
    with pytest.raises(ValueError, match="not seed 1"):
        minatar.rainbow_minatar(rainbow_root)


def test_a_pong_row_names_its_resumes_where_its_file_records_them(benchmark):
    atari = benchmark("published_atari")
    restored = {"frames": 2_000_000, "wall_s": 3_000.0, "replay": "replay: 500,000 transitions restored from x"}
    empty = {"frames": 4_500_000, "wall_s": 6_000.0, "replay": "replay: empty (this run saves none: ...)"}
    assert atari.resumed({"resumes": [restored, empty]}) == (
        ", resumed at 2.00M (replay restored), 4.50M (replay empty)"
    )
    said = {
        "frames": 6_000_000,
        "wall_s": 9_000.0,
        "replay": "replay: 9 transitions restored",
        "replay_restored": False,
    }
    assert atari.resumed({"resumes": [said]}) == ", resumed at 6.00M (replay empty)"  # the record, not the words
    assert atari.resumed({"resumes": []}) == ", not resumed"
    budget = {"total_frames": 10_000_000}
    short = {"frames": 6_495_188, "config": budget, "protocol_first_reached": {"+18": None}}
    assert atari.stopped(short) == ", stopped before 18"
    solved = dict(short, protocol_first_reached={"+18": {"frames": 6_000_000, "wall_s": 8_000.0}})
    assert atari.stopped(solved) == atari.stopped(dict(short, frames=10_000_196)) == ""
    assert atari.stopped({"frames": 7_522_848, "config": budget}) == ""  # compiled before the marks: nothing claimed
    assert atari.resumed({}) == ""  # compiled before gorila recorded its resumes: nothing claimed
