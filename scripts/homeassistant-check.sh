#!/usr/bin/env bash
# Run a real, headless Home Assistant against an MQTT broker and report, as JSON on
# stdout, what it made of the MQTT discovery messages that arrive while it waits.
#
#   scripts/homeassistant-check.sh BROKER_PORT [SECONDS]
#
# BROKER_PORT  an anonymous MQTT broker on 127.0.0.1:BROKER_PORT
# SECONDS      how long to wait for discovery messages once MQTT is loaded (default 20)
#
# The caller publishes its discovery configs (retained ones before the run work too)
# during that wait; the file named by $HA_CHECK_READY_FILE, if set, is written the
# moment Home Assistant's MQTT entry is loaded, so a caller can publish only then.
#
# Output (stdout, one JSON document): homeassistant_version, onboarding_steps,
# mqtt_config_flow, mqtt_entry, birth_message (did HA publish `online` on
# homeassistant/status), devices (device registry, MQTT entry), entities (entity
# registry, platform mqtt), states (of those entities), states_not_in_registry
# (entities without unique_id), mqtt_debug_info, log (ERROR/WARNING records of
# home-assistant.log mentioning mqtt or discovery), log_other (the other ERROR/WARNING
# records, e.g. template warnings), timings. Progress goes to stderr.
#
# Environment:
#   HA_VERSION           Home Assistant release to install (default 2024.3.3)
#   HA_VENV              virtual environment (default /opt/ha-venv), made once and reused
#   HA_CHECK_KEEP=1      keep the scratch dir (config, home-assistant.log) for inspection
#   HA_STARTUP_TIMEOUT   seconds to wait for HA's API (default 180)
#   HA_CHECK_READY_FILE  written once the MQTT entry is loaded
#   HA_CHECK_DEBUG_INFO=0  leave out mqtt_debug_info (HA's per-device discovery
#                        payloads and last received messages)
#
# Exit codes: 0 report printed, 1 usage/install problem, 2 HA run failed.
set -euo pipefail

HA_VERSION="${HA_VERSION:-2024.3.3}"
HA_VENV="${HA_VENV:-/opt/ha-venv}"
HA_STARTUP_TIMEOUT="${HA_STARTUP_TIMEOUT:-180}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HELPER="$HERE/homeassistant-check.py"

say() { printf '[ha-check %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "ERROR: $*"; exit "${2:-1}"; }

usage() { sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 1; }

[[ $# -ge 1 && $# -le 2 ]] || usage
BROKER_PORT="$1"
SECONDS_WAIT="${2:-20}"
[[ "$BROKER_PORT" =~ ^[0-9]+$ && "$BROKER_PORT" -ge 1 && "$BROKER_PORT" -le 65535 ]] \
  || die "BROKER_PORT must be a TCP port number, got '$BROKER_PORT'"
[[ "$SECONDS_WAIT" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "SECONDS must be a number, got '$SECONDS_WAIT'"
[[ -f "$HELPER" ]] || die "helper $HELPER is missing"
command -v mosquitto_sub >/dev/null || die "mosquitto_sub not found (apt-get install mosquitto-clients)"

# ------------------------------------------------------------------ install (once)
MARKER="$HA_VENV/.ha-check-installed-$HA_VERSION"

install_ha() {
  local t0=$SECONDS dl
  say "installing Home Assistant $HA_VERSION into $HA_VENV (one-off, a few minutes)"
  if [[ ! -x "$HA_VENV/bin/python" ]]; then
    python3 -m venv "$HA_VENV" || die "python3 -m venv $HA_VENV failed (apt-get install python3-venv?)"
  fi
  local pip=("$HA_VENV/bin/python" -m pip --disable-pip-version-check)
  timeout 600 "${pip[@]}" install -q --upgrade pip wheel >&2 || die "upgrading pip in $HA_VENV failed"
  dl="$(mktemp -d /tmp/ha-check-dl.XXXXXX)"
  # HA's own pins (package_constraints.txt inside the wheel) keep the dependency
  # set to what this release was tested with, as HA's install docs do with -c.
  timeout 600 "${pip[@]}" download -q --no-deps -d "$dl" "homeassistant==$HA_VERSION" >&2 \
    || { rm -rf "$dl"; die "cannot download homeassistant==$HA_VERSION (does it support $(python3 -V)? try HA_VERSION=...)"; }
  local cutoff
  cutoff="$(python3 "$HELPER" constraints "$dl"/homeassistant-*.whl "$dl/constraints.txt")" \
    || { rm -rf "$dl"; die "no package_constraints.txt in the homeassistant wheel"; }
  # Unpinned transitive dependencies are taken as they were when this release came
  # out (newer ones broke it: josepy 2 vs acme); HA_PIP_PRIOR_TO overrides the date.
  cutoff="${HA_PIP_PRIOR_TO:-$cutoff}"
  say "resolving with HA's package_constraints.txt and --uploaded-prior-to $cutoff"
  pip+=(install -q -c "$dl/constraints.txt" --uploaded-prior-to "$cutoff")
  timeout 1800 "${pip[@]}" "$dl"/homeassistant-*.whl >&2 \
    || { rm -rf "$dl"; die "pip install homeassistant==$HA_VERSION failed"; }
  # Requirements of the integrations this harness loads (mqtt -> paho-mqtt, http,
  # frontend, person/image_upload -> Pillow, ...), read from the installed manifests,
  # so HA need not pip-install anything at run time.
  "$HA_VENV/bin/python" "$HELPER" requirements > "$dl/requirements.txt" \
    || { rm -rf "$dl"; die "could not list integration requirements"; }
  timeout 1800 "${pip[@]}" -r "$dl/requirements.txt" >&2 \
    || { rm -rf "$dl"; die "installing integration requirements failed: $(tr '\n' ' ' < "$dl/requirements.txt")"; }
  rm -rf "$dl"
  touch "$MARKER"
  say "installed Home Assistant $HA_VERSION in $((SECONDS - t0))s"
}

if [[ -f "$MARKER" && -x "$HA_VENV/bin/hass" ]] \
   && "$HA_VENV/bin/python" -c "import homeassistant.const as c, paho.mqtt; assert c.__version__ == '$HA_VERSION'" 2>/dev/null; then
  say "reusing $HA_VENV (Home Assistant $HA_VERSION)"
else
  install_ha
fi
PY="$HA_VENV/bin/python"

# ------------------------------------------------------------------ broker reachable?
err="$("$PY" - "$BROKER_PORT" 2>&1 <<'PYEOF'
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
except OSError as e:
    sys.exit(str(e))
PYEOF
)" || die "no MQTT broker listening on 127.0.0.1:$BROKER_PORT ($err)"

# ------------------------------------------------------------------ scratch + cleanup
WORK="$(mktemp -d /tmp/ha-check.XXXXXX)"
CONF="$WORK/config"
mkdir -p "$CONF"
HASS_PID=""
SUB_PID=""
HELPER_PID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$HELPER_PID" ]]; then
    kill "$HELPER_PID" 2>/dev/null || true
    wait "$HELPER_PID" 2>/dev/null || true
  fi
  if [[ -n "$HASS_PID" ]] && kill -0 "$HASS_PID" 2>/dev/null; then
    say "stopping Home Assistant (pid $HASS_PID)"
    kill -TERM "$HASS_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$HASS_PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$HASS_PID" 2>/dev/null; then
      say "Home Assistant did not stop within 30s; killing it"
      kill -KILL "$HASS_PID" 2>/dev/null || true
    fi
    wait "$HASS_PID" 2>/dev/null || true
  fi
  if [[ -n "$SUB_PID" ]]; then
    kill "$SUB_PID" 2>/dev/null || true
    wait "$SUB_PID" 2>/dev/null || true
  fi
  if [[ "${HA_CHECK_KEEP:-0}" == 1 ]]; then
    say "kept scratch dir $WORK (config + home-assistant.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

HTTP_PORT="$("$PY" "$HELPER" free-port)"

cat > "$CONF/configuration.yaml" <<EOF
# Minimal headless Home Assistant for scripts/homeassistant-check.sh.
# Bootstrap always sets up its default integrations (frontend, person, zone, ...);
# these add the REST + websocket API, the config API (config entries, device and
# entity registries) and onboarding. MQTT comes as a config entry via the config flow.
homeassistant:
  name: ha-check
  unit_system: metric
  time_zone: UTC
  currency: EUR
  country: DE
  latitude: 52.52
  longitude: 13.40
  elevation: 30
http:
  server_host: 127.0.0.1
  server_port: $HTTP_PORT
api:
websocket_api:
config:
onboarding:
logger:
  default: warning
EOF

# ------------------------------------------------------------------ birth message watcher
BIRTH="$WORK/birth.txt"
mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -i "ha-check-birth-$$" -t homeassistant/status \
  -F '%I %t %p' > "$BIRTH" 2> "$WORK/mosquitto_sub.err" &
SUB_PID=$!
sleep 0.3
kill -0 "$SUB_PID" 2>/dev/null \
  || die "mosquitto_sub could not subscribe on 127.0.0.1:$BROKER_PORT: $(cat "$WORK/mosquitto_sub.err")"

# ------------------------------------------------------------------ start HA
say "starting Home Assistant $HA_VERSION on http://127.0.0.1:$HTTP_PORT (config $CONF)"
"$HA_VENV/bin/hass" -c "$CONF" --log-no-color > "$WORK/hass.out" 2>&1 &
HASS_PID=$!

# The helper runs in the background and is waited for, so that a TERM/INT to this
# script interrupts the wait at once and the trap stops everything.
rc=0
"$PY" "$HELPER" run \
  --url "http://127.0.0.1:$HTTP_PORT" \
  --broker-port "$BROKER_PORT" \
  --seconds "$SECONDS_WAIT" \
  --log "$CONF/home-assistant.log" \
  --birth-file "$BIRTH" \
  --hass-pid "$HASS_PID" \
  --startup-timeout "$HA_STARTUP_TIMEOUT" \
  ${HA_CHECK_READY_FILE:+--ready-file "$HA_CHECK_READY_FILE"} \
  $([[ "${HA_CHECK_DEBUG_INFO:-1}" == 0 ]] && echo --no-debug-info) &
HELPER_PID=$!
wait "$HELPER_PID" || rc=$?
HELPER_PID=""

if [[ $rc -ne 0 ]]; then
  say "Home Assistant run failed; last lines of its output:"
  tail -n 40 "$WORK/hass.out" >&2 || true
  exit 2
fi
