#!/usr/bin/env bash
# startup: benchmark rows for bench/run that fetch nothing, to show what the
# "100 processes" rows of the other scripts are made of: 100 processes of
# `--version` (a process's start-up and exit, no network), and the
# launcher's own cost, bench/repeat running /bin/true on both sides.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

bench_row "100 processes x --version" "bench/repeat 100 $URLGET --version" "bench/repeat 100 curl --version" "> /dev/null"
bench_row "100 x /bin/true (launcher; A = B)" "bench/repeat 100 /bin/true" "bench/repeat 100 /bin/true" "> /dev/null"
