# mptlab: build, run, test.
#
#   make run     set up, then simulate scenarios/quickstart.toml into runs/quickstart/
#   make test    set up, then lint (rustfmt, clippy -D warnings), the Rust tests and the Python tests
#   make bench   set up, then `mptlab bench`
#   make setup   .venv with the Python dependencies and the extension module (idempotent)
#   make clean   remove build outputs and runs (keeps .venv); `make distclean` also .venv
#
# Needs: python3 (>= 3.11), a Rust toolchain (rustup's ~/.cargo/bin is put on PATH), network
# access to PyPI and crates.io. Nothing else.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
export PATH := $(HOME)/.cargo/bin:$(PATH)

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MPTLAB := $(VENV)/bin/mptlab
DEPS_STAMP := $(VENV)/.mptlab-deps
BUILD_STAMP := $(VENV)/.mptlab-build
SYSTEM_STAMP := $(VENV)/.mptlab-system
# The emulation's user-space link emulator (docs/emulation.md), a workspace binary.
LINKEMU := target/release/mptlab-linkemu
# Rebuild the extension module whenever any of these changes.
RUST_INPUTS := Cargo.toml $(wildcard Cargo.lock) pyproject.toml \
	$(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null)

.PHONY: help setup run test test-rust test-python lint bench clean distclean

help:
	@sed -n 's/^#   //p' Makefile

setup: $(BUILD_STAMP) $(SYSTEM_STAMP) $(LINKEMU)

run: setup
	$(MPTLAB) run scenarios/quickstart.toml --out runs/quickstart

test: setup lint
	cargo test --workspace
	cargo test -p mptlab-sim --features event-profile --lib event_profile
	$(PY) -m pytest -q tests/python

# Formatting (rustfmt.toml) and clippy's warnings are errors, as in CI.
lint:
	@cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1 || rustup component add rustfmt clippy
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p mptlab-sim --all-targets --features event-profile -- -D warnings

test-rust:
	cargo test --workspace
	cargo test -p mptlab-sim --features event-profile --lib event_profile

test-python: setup
	$(PY) -m pytest -q tests/python

bench: setup
	$(MPTLAB) bench

# --- setup ---------------------------------------------------------------------------------

# Debian's python3 lacks ensurepip unless python3-venv is installed; then the venv is made
# without pip and pip is bootstrapped from its wheel on PyPI (a wheel can run itself).
define BOOTSTRAP_PIP
import json, subprocess, sys, tempfile, urllib.parse, urllib.request
resp = urllib.request.urlopen("https://pypi.org/pypi/pip/json")
info = json.load(resp)
url = next(u["url"] for u in info["urls"] if u["packagetype"] == "bdist_wheel")
url = urllib.parse.urljoin(resp.geturl(), url)
whl = tempfile.mkdtemp() + "/" + url.rsplit("/", 1)[1]
urllib.request.urlretrieve(url, whl)
subprocess.check_call([sys.executable, whl + "/pip", "install", "--quiet", whl])
endef
export BOOTSTRAP_PIP

# The build and runtime requirements, read from pyproject.toml (one source of truth).
define LIST_REQUIREMENTS
import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))
extras = p["project"]["optional-dependencies"]
print("\n".join(p["build-system"]["requires"] + p["project"]["dependencies"]
                + extras["learn"] + extras["dask"] + extras["test"]))
endef
export LIST_REQUIREMENTS

$(PY):
	$(PYTHON) -m venv $(VENV) || { \
	  echo "python3 -m venv failed (no ensurepip?); bootstrapping pip from PyPI"; \
	  rm -rf $(VENV); $(PYTHON) -m venv --without-pip $(VENV); \
	  $(PY) -c "$$BOOTSTRAP_PIP"; }

$(DEPS_STAMP): pyproject.toml | $(PY)
	$(PY) -c "$$LIST_REQUIREMENTS" > $(VENV)/requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(VENV)/requirements.txt
	touch $@

# maturin builds crates/mptlab-py in release mode and installs the package editable: the
# Python sources under python/ are used in place, the extension lands in python/mptlab/.
# Profile-guided (tools/pgo-profile.sh: about a minute more, 10-20 % faster simulations, the
# same results); MPTLAB_PGO=0 builds it plainly, and so does a machine where the profile cannot
# be made (a warning says why). Its own target folder: the profile's RUSTFLAGS would otherwise
# rebuild what `cargo test` and the link emulator share in target/.
PGO_PROFILE := $(CURDIR)/target/pgo/merged.profdata
$(BUILD_STAMP): $(DEPS_STAMP) $(RUST_INPUTS) tools/pgo-profile.sh
	@flags=""; \
	if [ "$${MPTLAB_PGO:-1}" != 0 ]; then \
	  if tools/pgo-profile.sh "$(PGO_PROFILE)"; then flags="-Cprofile-use=$(PGO_PROFILE)"; \
	  else echo "warning: building the extension module without profile-guided optimisation"; fi; \
	fi; \
	echo "maturin develop --release (RUSTFLAGS=$$flags)"; \
	VIRTUAL_ENV=$(CURDIR)/$(VENV) CARGO_TARGET_DIR=$(CURDIR)/target/ext RUSTFLAGS="$$flags" \
	  $(VENV)/bin/maturin develop --release
	$(PY) -c "import mptlab._core"
	touch $@

# Headless Chromium renders the HTML sweep report in the tests (Debian's chromium and
# chromium-driver); the emulation turns veth offloads off with ethtool. Installed with apt-get
# when missing and we are root; otherwise say so.
$(SYSTEM_STAMP): | $(PY)
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null && command -v ethtool >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium, chromium-driver and ethtool (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver ethtool >/dev/null; \
	else echo "warning: chromium/chromedriver/ethtool missing and cannot apt-get them; the report render and emulation tests will be skipped"; fi
	touch $@

$(LINKEMU): $(RUST_INPUTS)
	cargo build --release -p mptlab-linkemu

# --- cleaning ------------------------------------------------------------------------------

clean:
	rm -rf target runs .pytest_cache python/mptlab/_core*.so $(BUILD_STAMP)
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
