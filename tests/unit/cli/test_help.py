"""`gorila --help`, every subcommand's `--help` and `gorila --version` answer without importing torch or
Ray; `python -m gorila` with nothing to do is a one-line usage error. The help a person reads: train's
config fields in the schema's sections with the chosen preset's defaults, each field's first clause
(`--help-field` prints the whole), examples that parse, only the flags a command accepts, 80 columns."""

import os
import re
import shlex
import subprocess
import sys
from importlib.metadata import version

import pytest

from gorila.cli import bench, evaluate, record_starts, report, suite, train
from gorila.cli.flags import short_help
from gorila.cli.main import build_parser
from gorila.config import PRESETS, field_docs
from gorila.config.parsing import field_sections
from tests.helpers import slowdown

SUBCOMMANDS = ["train", "evaluate", "record-starts", "suite", "report", "bench"]
HEAVY = re.compile(r"\|\s+(torch|ray)(\.\S*)?$")  # an `-X importtime` line of torch, Ray or a submodule


def gorila(*argv: str, python_flags: tuple[str, ...] = (), columns: int = 400) -> subprocess.CompletedProcess:
    """`python [FLAGS] -m gorila ARGV` in a fresh interpreter, on this checkout, help unwrapped."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, *python_flags, "-m", "gorila", *argv],
        capture_output=True,
        text=True,
        timeout=120 * slowdown(),
        env=env,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        *[[command, "--help"] for command in SUBCOMMANDS],
        ["--version"],
        ["train", "--preset", "atari", "--scale", "0.5", "--help"],
        ["train", "--help-field", "learning_rate"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_help_imports_neither_torch_nor_ray(argv):
    process = gorila(*argv, python_flags=("-X", "importtime"))
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip()
    heavy = [line for line in process.stderr.splitlines() if HEAVY.search(line)]
    assert heavy == [], heavy


def test_version_prints_the_installed_version():
    process = gorila("--version")
    assert process.returncode == 0, process.stderr
    assert process.stdout == f"gorila {version('gorila')}\n"


def test_no_command_is_a_one_line_usage_error():
    process = gorila()
    lines = [line for line in process.stderr.splitlines() if line.strip()]
    assert process.returncode == 2
    assert len(lines) == 1 and lines[0].startswith("gorila: error: ") and "command" in lines[0], lines
    assert process.stdout == ""


def test_train_help_names_every_preset():
    process = gorila("train", "--help")
    assert f"start from a preset ({', '.join(PRESETS)})" in process.stdout


def flag_line(help_text: str, flag: str) -> str:
    """The line of an unwrapped help that describes `flag`."""
    return next(line for line in help_text.splitlines() if line.strip().startswith(flag + " "))


def test_train_help_groups_the_fields_by_section_in_the_schemas_order():
    text = gorila("train", "--help").stdout
    headings = [line.removesuffix(":") for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert [h for h in headings if h in field_sections()] == list(field_sections())
    for title, names in field_sections().items():
        body = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 2)[1]  # after the section's docstring
        shown = re.findall(r"^  --(?:\[no-\])?([a-z0-9-]+)", body, flags=re.M)
        assert shown == [name.replace("_", "-") for name in names], title


def test_train_help_shows_the_chosen_presets_defaults():
    base = gorila("train", "--help").stdout
    assert "[default: 0.0005]" in flag_line(base, "--learning-rate X")
    assert "defaults shown are Config()'s" in base
    atari = gorila("train", "--preset", "atari", "--help").stdout
    assert "[default: 0.00025]" in flag_line(atari, "--learning-rate X")
    assert "[default: 1_000_000]" in flag_line(atari, "--replay-capacity N")
    assert "[default: true]" in flag_line(atari, "--[no-]clip-rewards")
    assert "defaults shown are the atari preset's" in atari
    implied = gorila("train", "--env", "Pong", "--help").stdout
    assert "[default: 0.00025]" in flag_line(implied, "--learning-rate X")
    assert "the atari preset's, which --env Pong starts from" in implied
    scaled = gorila("train", "--preset=gorila-paper", "--scale", "0.02", "--help").stdout
    assert "[default: 2]" in flag_line(scaled, "--actors N") and "scaled by 0.02" in scaled


def test_a_fields_help_is_its_first_clause_and_help_field_prints_all_of_it():
    assert short_help("Discount factor.") == "Discount factor."
    assert (
        short_help("Dueling head (Wang et al. 2016): two streams. More.")
        == "Dueling head (Wang et al. 2016): two streams..."
    )
    assert (
        short_help("Atari: a lost life is terminal (DQN; Machado et al.: no); evaluation never.")
        == "Atari: a lost life is terminal (DQN; Machado et al.: no)..."
    )
    assert (
        short_help("How a minibatch's losses combine into the loss: `sum` or `mean`.")
        == "How a minibatch's losses combine into the loss..."
    )
    assert all(len(short_help(doc)) <= 200 for doc in field_docs().values())
    doc = field_docs()["max_staleness"]
    assert flag_line(gorila("train", "--help").stdout, "--max-staleness N").endswith(
        f"  {short_help(doc)} [default: 0]"
    )
    assert short_help(doc) != doc
    process = gorila("train", "--preset", "atari", "--help-field", "max-staleness", "learning_rate")
    assert process.returncode == 0, process.stderr
    assert " ".join(doc.split()) in " ".join(process.stdout.split())
    assert "must be >= 1, 0 (auto) or -1" in process.stdout
    assert "default: 0.00025 (the atari preset's)" in process.stdout


COMMAND_MODULES = {
    "train": train,
    "evaluate": evaluate,
    "record-starts": record_starts,
    "suite": suite,
    "report": report,
    "bench": bench,
}


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_each_commands_help_ends_with_examples_that_parse(command):
    text = gorila(command, "--help").stdout
    assert "\nexamples:\n" in text and text.rstrip().endswith(COMMAND_MODULES[command].EXAMPLES.splitlines()[-1])
    examples = COMMAND_MODULES[command].EXAMPLES.replace("\\\n", " ").splitlines()[1:]
    assert 2 <= len(examples) <= 4
    for example in examples:
        argv = shlex.split(example, comments=True)
        assert argv[:2] == ["gorila", command]
        build_parser(argv[1:]).parse_args(argv[1:])  # a mistyped flag would raise UserError


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_each_commands_help_fits_80_columns(command):
    text = gorila(command, "--help", columns=80).stdout
    assert [line for line in text.splitlines() if len(line) > 80] == []


def test_suite_help_lists_no_config_flag_that_suite_refuses():
    text = gorila("suite", "--help").stdout
    for field in suite.REFUSED:
        assert not re.search(rf"--{field.replace('_', '-')}\b(?!-)", text), field
    assert "--learning-rate X" in text and "defaults shown are the atari preset's" in text


def test_bench_help_lists_every_section_once_and_says_which_run_by_default():
    from gorila.experiments.bench import EXTRA_SECTIONS, SECTIONS

    text = " ".join(gorila("bench", "--help").stdout.split())
    assert (
        f"--sections NAME [NAME ...] sections to measure, any of: {', '.join(SECTIONS + EXTRA_SECTIONS)} "
        f"(default: all but {' and '.join(EXTRA_SECTIONS)}," in text
    )
