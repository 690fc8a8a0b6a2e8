#!/usr/bin/env bash
# Runs the steps of examples/github-actions-tarball.yml as a GitHub runner would, here, against the
# tarball TARBALL (part of scripts/package-test.sh): the workflow's environment, then each `run:`
# step in order, in bash with -e, `sudo` as this root user, $RUNNER_TEMP and $GITHUB_PATH as on a
# runner; the tarball from a file:// URL, a free port, a 3 s run of 20 devices. Steps that `uses:`
# an action (the upload) are GitHub's, and left out. Fails naming the step that failed.
#
#   scripts/example-test.sh TARBALL
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
tarball=$(realpath "$1")
example=examples/github-actions-tarball.yml
runner=$(mktemp -d)
cleanup() {
  [ -f "$runner/temp/mosquitto.pid" ] && kill "$(cat "$runner/temp/mosquitto.pid")" 2>/dev/null
  rm -rf "$runner"
}
trap cleanup EXIT
mkdir -p "$runner/temp" "$runner/work" "$runner/steps"
: > "$runner/path"
version=$(basename "$tarball" | sed -E 's/^devsim-(.*)-linux-[^-]+\.tar\.gz$/\1/')
# The workflow's steps as files, and its environment with what a test run changes.
python3 - "$example" "$runner" "$tarball" "$version" "$(free_port)" <<'PYTHON'
import shlex, sys, yaml
example, runner, tarball, version, port = sys.argv[1:]
workflow = yaml.safe_load(open(example))
env = dict(workflow.get("env", {}))
env.update({"DEVSIM_TARBALL_URL": "file://" + tarball, "DEVSIM_VERSION": version, "BROKER_PORT": port,
            "DURATION": "3s", "DEVICES": "20"})
with open(f"{runner}/env", "w") as out:
    for key, value in env.items():
        out.write(f"export {key}={shlex.quote(str(value))}\n")
steps = [step for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
for number, step in enumerate(steps):
    with open(f"{runner}/steps/{number:02d}", "w") as out:
        out.write(f"# {step['name']}\n{step['run']}")
PYTHON
for step in "$runner"/steps/*; do
  name=$(head -1 "$step" | cut -c3-)
  # What earlier steps added to $GITHUB_PATH is on PATH, as on a runner.
  extra=$(tr '\n' ':' < "$runner/path")
  (cd "$runner/work" && env PATH="$extra$PATH" RUNNER_TEMP="$runner/temp" GITHUB_PATH="$runner/path" bash -ec "
    sudo() { \"\$@\"; }
    . '$runner/env'
    . '$step'") > "$runner/step.log" 2>&1 || { cat "$runner/step.log" >&2; echo "example test: the step '$name' of $example failed" >&2; exit 1; }
done
grep -q '<testsuite' "$runner/work/reports/devsim.xml" || { echo "example test: no JUnit report" >&2; exit 1; }
echo "example test: passed ($example, $(basename "$tarball"))"
