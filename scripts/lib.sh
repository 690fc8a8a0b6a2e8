# Sourced by the scripts: what they all need around a private broker. Not run on its own.
#
#   . "$(dirname "$0")/lib.sh"
#   port=$(free_port)
#   start_mosquitto "$dir" "$port" [extra mosquitto.conf lines...]   # sets $broker, waits until it listens

# A loopback port that was free a moment ago (the kernel's choice for port 0).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Installs those of the Debian packages named that are missing (apt-get, as root); as another
# user, names them and exits 1.
install_missing() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "$(basename "$0"): missing Debian packages: ${missing[*]} (apt-get install them as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
}

# Writes $1/mosquitto.conf for port $2 (anonymous, loopback only, plus any further lines given),
# starts /usr/sbin/mosquitto with its log appended to $1/broker.log, sets $broker to its pid, and
# returns once it listens on every listener; exits 1 naming the log if it does not within 5 s.
# Called again with the same folder, it restarts on the same port with the same configuration.
start_mosquitto() {
  local dir=$1 port=$2 before
  shift 2
  if [ ! -f "$dir/mosquitto.conf" ]; then
    { printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port"; printf '%s\n' "$@"; } > "$dir/mosquitto.conf"
    # As root, mosquitto would switch to user "mosquitto", who may not read $dir.
    [ "$(id -u)" = 0 ] && echo "user root" >> "$dir/mosquitto.conf"
  fi
  # mosquitto says "running" once every listener listens: the first port accepting says nothing
  # of another `listener` line's (a WebSocket one).
  before=$(grep -c ' running$' "$dir/broker.log" 2>/dev/null || true)
  /usr/sbin/mosquitto -c "$dir/mosquitto.conf" >> "$dir/broker.log" 2>&1 &
  broker=$!
  for _ in $(seq 100); do
    [ "$(grep -c ' running$' "$dir/broker.log" 2>/dev/null || true)" -gt "${before:-0}" ] && return 0
    kill -0 "$broker" 2>/dev/null || break
    sleep 0.05
  done
  echo "$(basename "$0"): mosquitto did not start on port $port (see $dir/broker.log)" >&2
  exit 1
}

# The release devsim of this tree, built if need be.
release_devsim() {
  swift build -c release --static-swift-stdlib --product devsim >/dev/null
  echo "$(swift build -c release --static-swift-stdlib --show-bin-path)/devsim"
}

# CPU seconds (user + system), wall seconds and maximum RSS (KB) from /usr/bin/time -v output.
cpu() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.3f", u+s}' "$1"; }
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); t=0; for(i=1;i<=n;i++) t=t*60+p[i]; printf "%.3f", t}' "$1"; }
rss() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }
