"""Names a package exports, imported on first use (`gorila.lazy.lazy_attributes`): `import gorila`
loads neither torch nor Ray; a name is imported from its module when first asked for and kept in the
package's namespace; a name the package does not export is an AttributeError naming it."""

import subprocess
import sys

import pytest

from gorila.lazy import lazy_attributes

HEAVY = ("torch", "ray", "gymnasium")


def test_import_gorila_loads_no_heavy_package_until_a_name_that_needs_it_is_used():
    code = (
        "import sys, gorila\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "gorila.load_q_network\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert lines[0] == "[]"
    assert "'torch'" in lines[1]  # gorila.api's load_q_network needs torch: imported then, not before


def test_a_name_is_imported_from_its_home_once_and_kept_in_the_namespace():
    from gorila.config import schema

    namespace = {}
    getattr_ = lazy_attributes("gorila.config", {"ConfigError": "schema"}, namespace)
    assert getattr_("ConfigError") is schema.ConfigError
    assert namespace == {"ConfigError": schema.ConfigError}  # the next lookup is a plain one
    with pytest.raises(AttributeError, match="module 'gorila.config' has no attribute 'Missing'"):
        getattr_("Missing")
