#!/usr/bin/env sh
# Builds the fugitive-core fuzz target `actions` (installing cargo-fuzz if it is missing), and
# with `--run SECONDS` also fuzzes it for that long.
#
#   scripts/fuzz-build.sh             # build only (what CI runs): the dev profile
#   scripts/fuzz-build.sh --run 30    # the optimised build, then fuzz for 30 seconds
#
# cargo-fuzz needs a nightly compiler; RUSTC_BOOTSTRAP=1 lets the stable one stand in.
# No sanitizer: fugitive-core has no unsafe code, and AddressSanitizer made fuzzing 4x slower.
# Overflow checks and debug assertions stay on. Crashes land in fuzz/artifacts/actions/.
# CI only checks that the target compiles and links with the fuzzer's instrumentation: the dev
# profile (`--dev`) does that without optimising, in a fraction of the time (BENCHMARKS.md,
# stop 34). Fuzzing itself wants the optimised build, so `--run` builds that.
set -eu

cd "$(dirname "$0")/../crates/fugitive-core"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

export RUSTC_BOOTSTRAP=1
if [ "${1:-}" = "--run" ]; then
    cargo fuzz build --sanitizer none actions
    cargo fuzz run --sanitizer none actions -- -max_total_time="${2:-30}"
else
    cargo fuzz build --dev --sanitizer none actions
fi
