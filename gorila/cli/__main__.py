"""`python -m gorila.cli`: the same command as `gorila` (and `python -m gorila`)."""
import sys

from gorila.cli import main

sys.exit(main())
