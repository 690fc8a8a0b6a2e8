#!/usr/bin/env bash
# Installs amqtt, the second broker the integration tests run devsim against (AmqttBroker), into a
# virtual environment inside the repository, .venv-amqtt/ (git-ignored): the tests find it there
# without a system-wide pip install, and removing the folder removes it. Does nothing, quickly,
# when that version is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.12.1
venv=.venv-amqtt

installed() {
  "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('amqtt') != '$version')" 2>/dev/null \
    && [ -x "$venv/bin/amqtt" ]
}
installed && exit 0

# Debian's python3 (python3-venv, which `-m venv` needs there, comes from install-deps.sh
# --tests), so the venv does not depend on whichever python3 a developer has first on PATH
# (pyenv); that one when there is no Debian python. DEVSIM_PYTHON chooses another.
python=${DEVSIM_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=$(command -v python3) || { echo "install-amqtt: no python3 (install-deps.sh installs it)" >&2; exit 1; }
echo "install-amqtt: amqtt $version into $venv with $python"
# --clear: a venv left half-made, or made by a python that is gone, is made again.
"$python" -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "amqtt==$version"
installed || { echo "install-amqtt: amqtt $version is not in $venv after pip install" >&2; exit 1; }
