"""The one source of truth for an experiment: the typed schema, presets, and parsing into a `Config`.

- `schema`: `Config`, a docstring and a range rule per field, and `validate`;
- `presets`: ready sets of values with the reasons for them; `scaling`: a preset for a cluster's size;
- `parsing`: text and YAML to typed values, layered preset -> file -> overrides (`build_config`);
- `migration`: configs saved by older versions, read as they were meant.
"""

from gorila.config.parsing import apply_overrides, build_config, coerce, field_docs, field_types, load_yaml, save_yaml
from gorila.config.presets import PRESETS, preset_for_env
from gorila.config.scaling import scaled_preset
from gorila.config.schema import MAX_SEED, Config, ConfigError, validate

__all__ = [
    "Config",
    "ConfigError",
    "MAX_SEED",
    "PRESETS",
    "apply_overrides",
    "build_config",
    "coerce",
    "field_docs",
    "field_types",
    "load_yaml",
    "preset_for_env",
    "save_yaml",
    "scaled_preset",
    "validate",
]
