"""Emulation: scenarios on real Linux MPTCP in network namespaces, and the sim-vs-real comparison."""
