#!/usr/bin/env bash
# The toolchain's swift-format over every Swift file, with the project's .swift-format: exits 1 on
# any finding. `scripts/lint.sh --fix` formats the files in place first (what to run before a
# commit), then lints what formatting cannot fix (a comment or a string past the line length).
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Benchmarks Fuzz)
if [ "${1:-}" = "--fix" ]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
fi
if ! swift format lint --strict --recursive --parallel "${paths[@]}"; then
  echo "lint: the findings above; scripts/lint.sh --fix formats the files in place" >&2
  exit 1
fi
echo "lint: no finding"
