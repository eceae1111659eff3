"""`python -m mptlab ...` is the same as the `mptlab` command."""

from mptlab.cli import main

main()
