#!/usr/bin/env bash
# Fuzzes the scenario loader with libFuzzer for SECONDS (default 600), starting from the seed
# corpus in Fuzz/corpus (and any regression inputs in Fuzz/crashes), as root on Debian:
#
#   scripts/fuzz.sh [SECONDS] [LIBFUZZER FLAG...]      e.g. scripts/fuzz.sh 60 -max_len=16384
#
# Builds Fuzz/ScenarioFuzzer with -sanitize=fuzzer,address, in release, into its own scratch
# path (FUZZ_SCRATCH, default .build/fuzz); the Swift toolchain carries the libFuzzer and
# AddressSanitizer runtimes, so nothing beyond the project's own packages is installed. Runs one
# fuzzing process, with 10 s per input at most (longer is a hang) and 2 GB of memory. New corpus
# entries go to a temporary folder, never to Fuzz/corpus; crash, timeout and out-of-memory inputs
# go to FUZZ_ARTIFACTS (default a fresh folder under /tmp), which is printed. Exits 1 if anything
# was found, and prints the run's figures either way.
#
# A finding: minimize it ("$bin" -minimize_crash=1 -runs=10000 FILE, $bin as printed), replay it
# in a plain build (swift build --product ScenarioFuzzer; ScenarioFuzzer FILE) to debug, fix the
# loader, and add it as a test in Tests/ScenarioTests/BadScenarioFileTests.swift, or as a file in
# Fuzz/crashes, which FuzzCorpusTests replays and later runs start from.
set -euo pipefail
# One block, read whole before it runs: bash would otherwise read the rest of a long run from
# the file as it is then, edits included.
{
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true

bash scripts/install-deps.sh

scratch=${FUZZ_SCRATCH:-.build/fuzz}
work=$(mktemp -d "${TMPDIR:-/tmp}/devsim-fuzz.XXXXXX")
# --sanitize=fuzzer tells SwiftPM that libFuzzer brings main(), and FUZZING leaves ours out.
# The sanitizers then go again as one flag: given two (--sanitize=address as well), the driver
# hands only the last to the compiler, and without fuzzer there is no coverage to steer by.
build=(swift build -c release --scratch-path "$scratch" --product ScenarioFuzzer
       --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING)
echo "building: ${build[*]}"
if ! "${build[@]}" >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  exit 1
fi
bin="$("${build[@]}" --show-bin-path)/ScenarioFuzzer"
echo "fuzzer: $bin"

artifacts=${FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$work/corpus" "$artifacts"
seeds=(Fuzz/corpus)
[ -d Fuzz/crashes ] && seeds+=(Fuzz/crashes)
log="$work/fuzz.log"
echo "fuzzing for ${seconds}s; log $log, findings in $artifacts"

status=0
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict=Fuzz/scenario.dict -artifact_prefix="$artifacts/" "$@" \
  "$work/corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?

# The last status line, e.g. "#312345 DONE cov: 2104 ft: 6020 corp: 812/610Kb exec/s: 520 rss: 300Mb".
last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
echo "last status: ${last:-none}"
grep -E '^stat::' "$log" || true
echo "new corpus entries: $(find "$work/corpus" -type f | wc -l)"

# Uninstrumented, libFuzzer still runs, blindly; that is a broken build, not a pass.
if ! grep -qE '^INFO: Loaded [0-9]+ modules' "$log"; then
  echo "FAIL: the fuzzer has no coverage instrumentation (see $log)"
  exit 1
fi
findings=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' -o -name 'slow-unit-*' \) | sort)
if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
  # The report: the sanitizer's or Swift's message and the stack, ahead of the summary.
  grep -E -A 40 'ERROR: libFuzzer|ERROR: AddressSanitizer|Fatal error|==[0-9]+==' "$log" | head -n 80 || true
  echo "FAIL: libFuzzer exited $status; findings:"
  echo "${findings:-none written}"
  exit 1
fi
echo "PASS: no crash, hang or out-of-memory in ${seconds}s"
exit
}
