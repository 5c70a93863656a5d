"""`python -m gorila`: the same command as `gorila`."""

import sys

from gorila.cli import main

sys.exit(main())
