"""The published results (benchmarks/published.py): the pages' blocks agree with their files, and a
number typed over in a block fails the check that CI runs (`bash scripts/results.sh --check`)."""

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
