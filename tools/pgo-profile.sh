#!/usr/bin/env bash
# Profile for a profile-guided (PGO) build of the simulator: build `run_scenario` instrumented,
# run it on the bench workloads (shortened) and two scenarios off their paths, merge what it
# counted into the LLVM profile PROFILE (default target/pgo/merged.profdata).
#
#   tools/pgo-profile.sh [PROFILE]
#
# Then build with RUSTFLAGS="-Cprofile-use=PROFILE" (the Makefile's setup does, for the
# extension module; `mptlab bench --compare` does for every revision that has this script).
#
# Why: measured on this project's machine kind (2026-11-28, interleaved runs of the extension
# module built both ways from one commit) the profile-guided build runs W1 11 %, W3 20 % and W6
# 15-20 % faster: the simulator's per-packet path is long and branchy, and the profile tells
# LLVM which branches and calls are hot. Results do not change (the same code, laid out and
# inlined differently; the golden summaries are compared in `make test`). Code the training
# runs never reach is treated as cold (optimised for size) and may run somewhat slower than in
# a plain build (see the training set below).
#
# Needs `llvm-profdata` from rustup's llvm-tools component (added here when missing). Exits
# non-zero with one line on stderr when it cannot make the profile; the caller then builds
# without it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
profile=${1:-$root/target/pgo/merged.profdata}
work=$root/target/pgo
raw=$work/raw
export PATH=$HOME/.cargo/bin:$PATH

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  rustup component add llvm-tools-preview >/dev/null 2>&1 || rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
  echo "pgo: no llvm-profdata in $sysroot (rustup component add llvm-tools-preview failed)" >&2
  exit 1
fi

rm -rf "$raw"
mkdir -p "$raw" "$(dirname "$profile")"
# Built as a plain `cargo build` of the workspace builds it (no `-p`): the features it resolves,
# hence the crates' symbol hashes, must be those of the extension module's build, or the profile
# matches none of its functions (seen with `-p mptlab-sim`: a profile no better than none).
echo "pgo: building the instrumented simulator (target/pgo/gen)"
RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR=$work/gen \
  cargo build --release --quiet --example run_scenario
run=$work/gen/release/examples/run_scenario

# The bench workloads (README -> Performance) at the shape `mptlab bench` runs them, shortened,
# plus the tunnel and CoDel scenarios briefly: their code is off the workloads' paths and, left
# out, ran 10 % (tunnel) and 5 % (CoDel) slower than a plain build. A training set of every
# shipped scenario for 3 s made a profile no better than none for W1-W4 (their paths weighed
# too little in it), so the set stays small. Outputs are discarded: only the counts matter.
train() {
  "$run" "$@" >/dev/null 2>&1 || { echo "pgo: training run failed: $*" >&2; exit 1; }
}
echo "pgo: training on the bench workloads"
for w in w1 w2 w3 w4 w6; do
  train "scenarios/bench/$w.toml" run.duration=3s
done
train scenarios/bench/w5.toml run.duration=1s
train scenarios/bench/w7.toml
train scenarios/tunnel.toml run.duration=2s
train scenarios/codel.toml run.duration=5s

"$profdata" merge -o "$profile" "$raw"
echo "pgo: profile written to $profile"
