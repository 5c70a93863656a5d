"""MkDocs hooks (mkdocs.yml `hooks:`) that generate the site's reference pages from the code at build time.

- `reference/config.md`: every field of `gorila.config.schema.Config` in its sections (`gorila.config.sections`), with its
  flag, type, default, range rule and docstring, and each preset's value (`gorila/algorithms/*_presets.py`);
- `reference/cli.md`: the `--help` of `gorila` and of each subcommand, from the argparse parsers of
  `gorila/cli/` (formatted 80 columns wide);
- `figures/...`: the PNG figures under `benchmarks/`, served from where they lie in the repository; a page
  links each where it lies (`../benchmarks/...` from docs/), and the link is turned to its figures/ path.

Nothing here is copied by hand: change a docstring, a preset or a flag and the next build shows it.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
FIGURES = "benchmarks"  # PNGs under it are served as figures/<path below it>
HELP_COLUMNS = "80"


def on_config(config):
    """Rebuild on `mkdocs serve` when the schema, presets, CLI or figures change."""
    for path in ("gorila/config", "gorila/cli", FIGURES):
        if str(ROOT / path) not in config.watch:
            config.watch.append(str(ROOT / path))
    return config


def on_files(files, config):
    files.append(File.generated(config, "reference/config.md", content=config_reference()))
    files.append(File.generated(config, "reference/cli.md", content=cli_reference()))
    for png in sorted((ROOT / FIGURES).rglob("*.png")):
        files.append(
            File.generated(config, "figures/" + png.relative_to(ROOT / FIGURES).as_posix(), abs_src_path=str(png))
        )
    return files


def on_page_markdown(markdown, page, **kwargs):
    """A page links a figure where it lies in the repository (`../benchmarks/x.png` from docs/), so that
    the link works when the page is read there; the site serves it as figures/x.png."""
    up = "../" * page.file.src_uri.count("/")
    return re.sub(rf"\]\({re.escape(up)}\.\./{FIGURES}/([^)\s]+\.png)\)", rf"]({up}figures/\1)", markdown)


# --- config reference -------------------------------------------------------------------------------


def config_reference() -> str:
    from gorila.cli.flags import shown
    from gorila.config.parsing import describe_type, field_docs, field_sections, field_types
    from gorila.config.presets import PRESETS
    from gorila.config.schema import Config
    from gorila.config.sections import SECTIONS

    fields = {item.name: item for item in dataclasses.fields(Config)}
    docs, types, sections = field_docs(), field_types(), field_sections()
    defaults = {name: default_of(item) for name, item in fields.items()}
    presets = list(PRESETS)

    def value(preset: str, name: str) -> str:
        return shown(PRESETS[preset].get(name, defaults[name]))

    lines = [
        "# Config reference",
        "",
        "<!-- Generated at build time by scripts/docs_hooks.py from gorila/config/schema.py and "
        "gorila/algorithms/*_presets.py: edit those, not this page. -->",
        "",
        "Every field of `gorila.config.schema.Config`, by its sections (`gorila.config.sections`, one typed "
        "dataclass each; `config.section(DQNConfig)` is one section's values). Each is a flag of "
        "`gorila train` (`--total-frames N`, `--[no-]bundled` for a switch), a key of a YAML `--config` file, "
        "`--set KEY=VALUE`, and a keyword of `gorila.make_config`. Layers, last wins: a preset, a YAML file, "
        "then flags and `--set` ([Configuration and presets](../guides/configuration.md)). The default is "
        "`Config()`'s; an Atari or MinAtar `env` named without a preset starts from the `atari` or "
        "`minatar` preset instead. `gorila train --help-field NAME` prints the same for one field.",
        "",
        f"{len(fields)} fields; presets: " + ", ".join(f"`{name}`" for name in presets) + ".",
        "",
        "## Presets at a glance",
        "",
        "Each preset's value of every field (`gorila/algorithms/*_presets.py`); **bold**: the preset sets it, "
        "otherwise it keeps the default. `--scale F` changes a preset's counts of actors, learners and "
        "shards, its budget and theta-'s period ([Atari](../guides/atari.md#gorila-paper)).",
        "",
        '<div class="preset-matrix" markdown>',
        "",
        "| field | default | " + " | ".join(f"`{name}`" for name in presets) + " |",
        "|---|---|" + "---|" * len(presets),
    ]
    for names in sections.values():
        for name in names:
            cells = [cell(shown(defaults[name]))]
            cells += [f"**{cell(value(p, name))}**" if name in PRESETS[p] else cell(value(p, name)) for p in presets]
            lines.append(f"| [`{name}`](#{name}) | " + " | ".join(cells) + " |")
    lines += ["", "</div>"]
    for section in SECTIONS:
        title = section.TITLE
        lines += ["", f"## {title[:1].upper()}{title[1:]}", "", f"`{section.__name__}`: {prose(section.__doc__)}", ""]
        for name in sections[title]:
            item = fields[name]
            rule = item.metadata.get("rule")
            flag = "--" + name.replace("_", "-")
            flag = f"--[no-]{flag[2:]}" if types[name] is bool else flag
            set_by = [f"{p}: {code(value(p, name))}" for p in presets if name in PRESETS[p]]
            lines += [
                f"### `{name}` {{#{name}}}",
                "",
                prose(docs.get(name, "")),
                "",
                f"- **type**: `{item.type}` ({describe_type(types[name])})",
                f"- **default**: {code(shown(defaults[name]))}",
                f"- **rule**: must {prose(rule[1])}" if rule else "- **rule**: none beyond its type",
                f"- **flag**: `{flag}`",
                "- **presets**: " + ("; ".join(set_by) if set_by else "none sets it"),
                "",
            ]
    return "\n".join(lines) + "\n"


def default_of(item: dataclasses.Field):
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return item.default


def code(text: str) -> str:
    """`text` as inline code, fenced with enough backticks for what it holds."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def cell(text: str) -> str:
    return code(text).replace("|", "\\|")


def prose(text: str) -> str:
    """A docstring as Markdown: its `code` spans kept, and outside them the characters that Markdown
    would read as emphasis or HTML escaped (`2 * N * k`, `0.4 ** (1 + ...)`, `<env>`)."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(
        part
        if part.startswith("`")
        else part.replace("\\", "\\\\")
        .replace("*", "\\*")
        .replace("_", "\\_")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("[", "\\[")
        for part in parts
    )


# --- CLI reference ----------------------------------------------------------------------------------


def cli_reference() -> str:
    from gorila.cli.main import COMMANDS, build_parser

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS  # argparse and `--help-field` wrap to the terminal
    try:
        parser = build_parser([])
        helps = {"gorila": parser.format_help()}
        helps.update({f"gorila {name}": parser.commands.choices[name].format_help() for name in COMMANDS})
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    lines = [
        "# CLI reference",
        "",
        "<!-- Generated at build time by scripts/docs_hooks.py from the argparse parsers of gorila/cli/. -->",
        "",
        "The `--help` of the `gorila` command and of each subcommand (`python -m gorila` is the same "
        "command). The defaults `gorila train --help` shows are `Config()`'s; `gorila train --preset NAME "
        "--help` shows a preset's, and `--help-field NAME` a field's whole docstring "
        "([config reference](config.md)). An error a user can fix ends in one line with exit code 2.",
        "",
        "Subcommands: " + ", ".join(f"[`{name}`](#gorila-{name})" for name in COMMANDS) + ".",
    ]
    for title, text in helps.items():
        anchor = title.replace(" ", "-")
        lines += ["", f"## `{title}` {{#{anchor}}}", "", "```text", text.rstrip(), "```"]
    return "\n".join(lines) + "\n"
