#!/usr/bin/env bash
# A test CA, a server certificate for the broker's host and one client certificate per device id,
# for rehearsing a certificate-per-device fleet (AWS IoT Core's way) against a local mosquitto:
#
#   scripts/make-device-certs.sh --out certs --prefix thing- --count 1000 --host localhost
#   scripts/make-device-certs.sh --out certs --ids ids.txt --host 127.0.0.1
#
# Writes DIR/ca.pem and DIR/ca.key (kept, and reused, when DIR has them), DIR/server.pem and
# DIR/server.key (SAN IP: for an address, DNS: for a name), and DIR/<id>.pem, DIR/<id>.key with
# CN=<id> for each id. EC P-256, each device in one `openssl req -x509 -CA` call (~44 ms with req +
# x509, ~240 ms with RSA-2048): 7-9 ms of CPU a device, most of it openssl starting, run on every
# core at once. 1,000 devices are 8.5 CPU s: 11-16 s on this 2-core VM while other builds keep it
# busy (load 9-10, no core free), so about 4-5 s on two idle cores.
set -euo pipefail

usage() {
  cat >&2 <<'USAGE'
usage: make-device-certs.sh --out DIR (--prefix PREFIX --count N | --ids FILE) [--days N] [--host HOST]
  --out DIR        where the files go (made if missing); a ca.pem and ca.key there are reused
  --prefix PREFIX  ids PREFIX1 … PREFIXN (with --count N)
  --count N        how many devices (with --prefix; the prefix may be empty: --prefix '')
  --ids FILE       one device id per line (blank lines skipped)
  --days N         validity of the certificates made (default 30)
  --host HOST      the broker's host name or address for server.pem (default localhost)
USAGE
}

fail() {
  echo "make-device-certs.sh: $*" >&2
  usage
  exit 2
}

out="" prefix="" has_prefix=0 count="" ids_file="" days=30 host=localhost
while [ $# -gt 0 ]; do
  case "$1" in
    --out | --prefix | --count | --ids | --days | --host)
      [ $# -ge 2 ] || fail "$1 needs a value"
      case "$1" in
        --out) out=$2 ;;
        --prefix) prefix=$2 has_prefix=1 ;;
        --count) count=$2 ;;
        --ids) ids_file=$2 ;;
        --days) days=$2 ;;
        --host) host=$2 ;;
      esac
      shift 2
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) fail "unknown option '$1'" ;;
  esac
done

[ -n "$out" ] || fail "--out DIR is required"
[[ "$days" =~ ^[1-9][0-9]*$ ]] || fail "--days expects a whole number of days from 1, found '$days'"
[ -n "$host" ] || fail "--host expects a name or an address"
ids=()
if [ -n "$ids_file" ]; then
  { [ "$has_prefix" = 0 ] && [ -z "$count" ]; } || fail "give --ids FILE, or --prefix and --count, not both"
  [ -r "$ids_file" ] || fail "cannot read the ids file '$ids_file'"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    [ -n "$line" ] && ids+=("$line")
  done <"$ids_file"
  [ "${#ids[@]}" -gt 0 ] || fail "the ids file '$ids_file' has no id"
else
  [ -n "$count" ] || fail "give --ids FILE, or --prefix PREFIX --count N"
  [ "$has_prefix" = 1 ] || fail "--count needs --prefix (--prefix '' for bare numbers)"
  [[ "$count" =~ ^[1-9][0-9]*$ ]] || fail "--count expects a whole number from 1, found '$count'"
  for ((index = 1; index <= count; index++)); do ids+=("$prefix$index"); done
fi
for id in "${ids[@]}"; do
  # The id becomes a file name and a CN: nothing that would leave DIR or break the subject.
  [[ "$id" =~ ^[A-Za-z0-9._:@-]+$ ]] || fail "device id '$id' has characters other than letters, digits and . _ : @ -"
  case "$id" in ca | server) fail "device id '$id' would overwrite $id.pem" ;; esac
done

mkdir -p "$out"
cd "$out"
if [ -f ca.pem ] && [ -f ca.key ]; then
  echo "using the CA in $out/ca.pem"
elif [ -f ca.pem ] || [ -f ca.key ]; then
  fail "$out has only one of ca.pem and ca.key: give both, or neither to make a new CA"
else
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
    -subj "/CN=devsim test CA" -keyout ca.key -out ca.pem 2>/dev/null
  echo "made a CA: $out/ca.pem"
fi

# Without an extensions section, req -x509 marks a leaf CA:TRUE (its default v3_ca section).
printf '%s\n' '[req]' 'distinguished_name=dn' 'prompt=no' '[dn]' \
  '[device]' 'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature' \
  'extendedKeyUsage=clientAuth' 'subjectKeyIdentifier=hash' 'authorityKeyIdentifier=keyid' \
  '[server]' 'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature' \
  'extendedKeyUsage=serverAuth' 'subjectKeyIdentifier=hash' 'authorityKeyIdentifier=keyid' \
  "subjectAltName=@alt" '[alt]' >device.cnf
if [[ "$host" =~ ^[0-9.]+$ || "$host" == *:* ]]; then
  echo "IP.1=$host" >>device.cnf
else
  echo "DNS.1=$host" >>device.cnf
fi

sign() { # name, subject CN, extensions section
  openssl req -x509 -config device.cnf -extensions "$3" -CA ca.pem -CAkey ca.key \
    -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
    -subj "/CN=$2" -keyout "$1.key" -out "$1.pem" 2>/dev/null
}
sign server "$host" server
# One openssl a device, as many at once as there are cores: each is a few ms of start-up and a
# key, so a thousand one after the other wait on each other for nothing.
jobs=$(nproc 2>/dev/null || echo 2) running=0 failed=0
for id in "${ids[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  fi
  sign "$id" "$id" device &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=$((failed + 1))
  running=$((running - 1))
done
[ "$failed" = 0 ] || { echo "make-device-certs.sh: openssl failed for $failed device(s)" >&2; exit 1; }
chmod 600 ./*.key
rm -f device.cnf
echo "made server.pem for $host and ${#ids[@]} device certificates in $out"
