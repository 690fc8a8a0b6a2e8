#!/usr/bin/env bash
# The toolchain's swift-format over every Swift file, with the project's .swift-format, and the
# house limit of 500 lines a file in Sources (a file past it holds more than one idea: split it by
# idea, not in the middle). Exits 1 on any finding of either. `scripts/lint.sh --fix` formats the
# files in place first (what to run before a commit), then lints what formatting cannot fix (a
# comment or a string past the line length, a file too long).
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Benchmarks Fuzz)
limit=500
if [ "${1:-}" = "--fix" ]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
fi
failed=0
if ! swift format lint --strict --recursive --parallel "${paths[@]}"; then
  echo "lint: the findings above; scripts/lint.sh --fix formats the files in place" >&2
  failed=1
fi
while IFS= read -r -d '' file; do
  lines=$(wc -l < "$file")
  if [ "$lines" -gt "$limit" ]; then
    echo "$file: $lines lines, over the limit of $limit: split it by idea (Type+Concern.swift)" >&2
    failed=1
  fi
done < <(find Sources -name '*.swift' -print0 | sort -z)
[ "$failed" -eq 0 ] || exit 1
echo "lint: no finding"
