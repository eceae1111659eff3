"""`python -m mptlab ...` is the same as the `mptlab` command."""

from mptlab.launcher import main

# Guarded: worker processes started with `spawn` (Dask's nanny) re-import the main module.
if __name__ == "__main__":
    main()
