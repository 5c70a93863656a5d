"""The config's sections: every field in exactly one typed section, Config their union in the schema's
order, and a section handed to a component as an instance of its own type."""

from dataclasses import fields

import pytest

from gorila.config import Config, ConfigError, validate
from gorila.config.parsing import field_docs, field_sections, field_types
from gorila.config.sections import SECTIONS, DQNConfig, ExplorationConfig


def test_every_field_is_in_exactly_one_section_and_config_keeps_the_sections_order():
    names = [item.name for section in SECTIONS for item in fields(section)]
    assert len(names) == len(set(names))
    assert names == [item.name for item in fields(Config)] == list(field_types())
    assert all(issubclass(Config, section) for section in SECTIONS)
    assert list(field_sections())[:3] == ["experiment", "Atari emulator", "runtime and topology"]
    assert [name for group in field_sections().values() for name in group] == names


def test_every_field_has_a_docstring_and_every_section_a_title_and_a_docstring():
    assert set(field_docs()) == set(field_types())
    assert all(section.TITLE and section.__doc__ for section in SECTIONS)
    assert len({section.TITLE for section in SECTIONS}) == len(SECTIONS)


def test_a_section_of_a_config_holds_that_configs_values_and_nothing_else():
    config = Config(env="Pong", batch_size=64, epsilon_end=0.02)
    dqn = config.section(DQNConfig)
    assert type(dqn) is DQNConfig and dqn.batch_size == 64 and dqn.gamma == config.gamma
    assert not hasattr(dqn, "epsilon_end") and config.section(ExplorationConfig).epsilon_end == 0.02


def test_a_rule_written_in_a_section_is_applied_to_the_config():
    with pytest.raises(ConfigError, match="batch_size must be >= 1, got 0"):
        validate(Config(batch_size=0))
