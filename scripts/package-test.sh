#!/usr/bin/env bash
# The release packages as a user meets them (as root; part of scripts/test.sh): builds them with
# scripts/package.sh, installs the .deb on this machine, runs the installed devsim (--version, the
# man page, every shipped scenario validated, a dry run, a short run against a private
# mosquitto, and the same for a scenario with a Lua script), removes the package and checks that
# nothing is left; then unpacks the tarball and runs the devsim in it; both carry the docs and a
# copyright file in Debian's machine-readable format. Refuses to touch a devsim that was installed before it ran.
#
#   scripts/package-test.sh [DIST]   keeps the packages in DIST (the release workflow's files)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
fail() { echo "package test: $*" >&2; exit 1; }
if dpkg-query -W -f='${Status}' devsim 2>/dev/null | grep -q "install ok installed"; then
  fail "a devsim package is already installed here; remove it first (dpkg -r devsim)"
fi

# A copyright file as Debian's format 1.0 has it: the Format line first, a Files paragraph for
# every file (Files: *) with its Copyright and License, and the text of every licence named.
check_copyright() {
  python3 - "$1" <<'PYTHON' || fail "$1 is not a copyright file in Debian's machine-readable format"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
paragraphs = []
for block in re.split(r"\n[ \t]*\n", text.strip()):
    fields, name = {}, None
    for line in block.split("\n"):
        if line[:1] in (" ", "\t") and name:
            fields[name] += "\n" + line.strip()
        else:
            name, _, value = line.partition(":")
            assert value != "" or line.endswith(":"), f"not a field: {line!r}"
            fields[name] = value.strip()
    paragraphs.append(fields)
header, rest = paragraphs[0], paragraphs[1:]
assert header.get("Format") == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/", "no Format line first"
files = [p for p in rest if "Files" in p]
assert any(p["Files"].split() == ["*"] for p in files), "no Files: * paragraph"
texts = {p["License"].split("\n")[0] for p in rest if "Files" not in p and "\n" in p.get("License", "")}
for p in files:
    assert p.get("Copyright") and p.get("License"), f"Files: {p['Files']} lacks Copyright or License"
    name, _, body = p["License"].partition("\n")
    assert body or name in texts, f"licence '{name}' has no text"
PYTHON
}

dir=$(mktemp -d)
broker=
subscriber=
installed=
cleanup() {
  [ -n "$broker" ] && kill "$broker" 2>/dev/null
  [ -n "$subscriber" ] && kill "$subscriber" 2>/dev/null
  [ -n "$installed" ] && dpkg -r devsim > /dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
mapfile -t files < <(bash scripts/package.sh "${1:-$dir/dist}")
[ ${#files[@]} -eq 2 ] || fail "scripts/package.sh did not make a tarball and a .deb"
tarball=${files[0]} deb=${files[1]}
version=$(dpkg-deb -f "$deb" Version)

installed=yes
dpkg -i "$deb" > "$dir/dpkg.log" 2>&1 || { cat "$dir/dpkg.log" >&2; fail "dpkg -i $(basename "$deb") failed"; }
[ "$(command -v devsim)" = /usr/bin/devsim ] || fail "devsim is not /usr/bin/devsim on PATH after the install"
[ "$(devsim --version)" = "devsim $version" ] || fail "'devsim --version' printed '$(devsim --version)', not 'devsim $version'"
ldd /usr/bin/devsim | grep -q "not found" && fail "the installed binary lacks a library: $(ldd /usr/bin/devsim | grep 'not found')"
# Device scripts run in Debian's Lua, which the package must name for apt to install it.
dpkg-deb -f "$deb" Depends | grep -q 'liblua5\.4-0' || fail "the package does not depend on liblua5.4-0: $(dpkg-deb -f "$deb" Depends)"
# Rendered by man where it is installed (the Swift image has none), else read as it is.
# Written to a file before grep reads it: under pipefail, grep -q leaving at its first match makes
# the writer die of SIGPIPE and fails the pipeline (CI failed so on docs/scenarios.md, 43 KB).
if command -v man > /dev/null; then MANPAGER=cat man -l /usr/share/man/man1/devsim.1.gz 2> /dev/null; else zcat /usr/share/man/man1/devsim.1.gz; fi \
  > "$dir/devsim.1"
grep -q -- "--ack-timeout" "$dir/devsim.1" || fail "the man page does not give the run options"
[ -f /lib/systemd/system/devsim.service ] || fail "the package has no systemd unit"
check_copyright /usr/share/doc/devsim/copyright
for doc in scenarios dashboards; do
  zcat "/usr/share/doc/devsim/docs/$doc.md.gz" > "$dir/$doc.md" 2> /dev/null && grep -q "^# " "$dir/$doc.md" \
    || fail "the package has no docs/$doc.md"
done
[ -f /usr/share/doc/devsim/docs/examples/rooms.yaml ] || fail "the package lacks the files the docs refer to (docs/examples)"
# aws-iot-core.yaml's things each have their own certificate, made as its comments say.
bash scripts/make-device-certs.sh --out "$dir/certs" --prefix thing- --count 10 > /dev/null
bash scripts/make-device-certs.sh --out "$dir/certs" --prefix sensor- --count 5 > /dev/null
AWS_IOT_CERTS="$dir/certs" devsim validate /usr/share/devsim/scenarios/*.yaml > /dev/null
devsim run /usr/share/devsim/scenarios/sensor-room.yaml --dry-run --messages 5 --seed 1 > "$dir/dry.jsonl"
[ "$(wc -l < "$dir/dry.jsonl")" -eq 5 ] || fail "the dry run printed $(wc -l < "$dir/dry.jsonl") lines, not 5"
python3 -c 'import json, sys; [json.loads(line)["payload"] for line in open(sys.argv[1])]' "$dir/dry.jsonl" \
  || fail "the dry run's lines are not JSON objects with a payload"
port=$(free_port)
start_mosquitto "$dir" "$port"
(cd "$dir" && devsim run /usr/share/devsim/scenarios/sensor-room.yaml --host 127.0.0.1 --port "$port" \
  --duration 1s --quiet --expect 'published>=1' --report report.json) || fail "a run of the installed devsim failed"
# A scripted scenario, the shipped thermostat (its script in scenarios/scripts/): the script, not
# the scenario's constants, makes the temperature, and its parameters are not sent.
thermostat=/usr/share/devsim/scenarios/thermostat.yaml
check_thermostats() {
  python3 - "$1" "$2" <<'PYTHON' || fail "$3"
import json, sys
states = [json.loads(line.split(" ", 1)[1] if sys.argv[2] == "sub" else json.loads(line)["payload"]) for line in open(sys.argv[1])]
assert len(states) >= 4, states
assert all(s["temperature"] != 0 and "setpoint" in s and "heatRate" not in s for s in states), states
PYTHON
}
devsim run "$thermostat" --dry-run --messages 8 --seed 1 > "$dir/thermostat.jsonl" || fail "the dry run of $thermostat failed"
check_thermostats "$dir/thermostat.jsonl" dry "the dry run of $thermostat does not show its script's work"
mosquitto_sub -h 127.0.0.1 -p "$port" -t 'home/+/climate' -v -C 4 -W 30 > "$dir/climate" &
subscriber=$!
sleep 0.3
devsim run "$thermostat" --host 127.0.0.1 --port "$port" --messages 4 --quiet --expect 'scriptErrors==0' \
  || fail "a run of the installed devsim on $thermostat failed"
wait "$subscriber" || fail "the thermostats' messages did not arrive: $(cat "$dir/climate")"
subscriber=
check_thermostats "$dir/climate" sub "the thermostats' messages do not show their script's work"

dpkg -r devsim > /dev/null
installed=
[ ! -e /usr/bin/devsim ] && [ ! -e /usr/share/devsim ] && [ ! -e /usr/share/man/man1/devsim.1.gz ] && [ ! -e /lib/systemd/system/devsim.service ] \
  && [ ! -e /usr/share/doc/devsim ] \
  || fail "dpkg -r devsim left files behind"

mkdir "$dir/unpacked"
tar -C "$dir/unpacked" -xzf "$tarball"
unpacked="$dir/unpacked/devsim-$version"
[ "$("$unpacked/bin/devsim" --version)" = "devsim $version" ] || fail "the tarball's devsim does not print its version"
check_copyright "$unpacked/copyright"
for doc in scenarios.md dashboards.md examples/rooms.yaml; do
  [ -f "$unpacked/docs/$doc" ] || fail "the tarball has no docs/$doc beside its README"
done
"$unpacked/bin/devsim" run "$unpacked/share/devsim/scenarios/milkcocoa-accelerometer.yaml" --dry-run --messages 3 > /dev/null 2>&1 \
  || fail "the tarball's devsim cannot dry-run its own scenario"
"$unpacked/bin/devsim" run "$unpacked/share/devsim/scenarios/thermostat.yaml" --dry-run --messages 8 --seed 1 > "$dir/thermostat.jsonl" \
  || fail "the tarball's devsim cannot dry-run its scripted scenario"
check_thermostats "$dir/thermostat.jsonl" dry "the tarball's thermostat dry run does not show its script's work"
# The CI example that installs the tarball, as a runner without Docker would.
bash scripts/example-test.sh "$tarball"
echo "package test: passed ($(basename "$deb"), $(basename "$tarball"))"
