#!/usr/bin/env bash
# Installs the independent Sparkplug B implementation the tests check devsim's payloads against:
# Google's protobuf for Python, with scripts/sparkplug/sparkplug_b.proto (the schema written from
# the specification) compiled by grpcio-tools' protoc, whose version matches that protobuf (Debian's
# protoc 3.21 makes code that protobuf 7 may refuse). Into a virtual environment inside the
# repository, .venv-sparkplug/ (git-ignored), as install-amqtt.sh does for amqtt. With paho-mqtt,
# the MQTT client host.py's live mode subscribes and sends its rebirth NCMDs with, as a SCADA host
# would. Does nothing, quickly, when those versions are installed and the schema is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
protobuf=7.36.2
tools=1.85.1
paho=2.1.0
venv=.venv-sparkplug
schema=scripts/sparkplug/sparkplug_b.proto
compiled=$venv/gen/sparkplug_b_pb2.py

installed() {
  # Every pinned package, so a venv made before one was added (paho-mqtt) is made again.
  "$venv/bin/python" - "$protobuf" "$tools" "$paho" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(m.version("protobuf") != sys.argv[1] or m.version("grpcio-tools") != sys.argv[2]
         or m.version("paho-mqtt") != sys.argv[3])
PY
}

if ! installed; then
  # Debian's python3 and python3-venv (install-deps.sh), as in install-amqtt.sh.
  python=${DEVSIM_PYTHON:-/usr/bin/python3}
  [ -x "$python" ] || python=$(command -v python3) || { echo "install-sparkplug: no python3 (install-deps.sh installs it)" >&2; exit 1; }
  echo "install-sparkplug: protobuf $protobuf, grpcio-tools $tools and paho-mqtt $paho into $venv with $python"
  "$python" -m venv --clear "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "protobuf==$protobuf" "grpcio-tools==$tools" "paho-mqtt==$paho"
  installed || { echo "install-sparkplug: protobuf $protobuf, grpcio-tools $tools or paho-mqtt $paho is not in $venv after pip install" >&2; exit 1; }
fi

if [ ! -f "$compiled" ] || [ "$schema" -nt "$compiled" ]; then
  mkdir -p "$venv/gen"
  "$venv/bin/python" -m grpc_tools.protoc -Iscripts/sparkplug --python_out="$venv/gen" "$schema"
fi
