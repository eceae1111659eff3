"""The `mptlab` command's entry point: before importing the CLI, a command that simulates
re-executes itself once with glibc's transparent-huge-page tunable (`mptlab.hugepages`),
which glibc reads only at process start."""

import sys

from mptlab.hugepages import reexec_with_hugepages


def main() -> None:
    reexec_with_hugepages(sys.argv)
    from mptlab.cli import main as cli_main

    cli_main()
