"""`python -m redraft ...`: the same as the `redraft` console script."""
import sys

from redraft.main import main

sys.exit(main())
