#!/usr/bin/env bash
# Builds what a release attaches, from this tree, into OUT (default dist/):
#
#   devsim-VERSION-linux-ARCH.tar.gz   bin/devsim, share/devsim/scenarios/ (and their scripts/),
#                                      share/man/man1/devsim.1, README.md, docs/ and copyright
#   devsim_VERSION_DEBARCH.deb         /usr/bin/devsim, /usr/share/devsim/scenarios/ (and their
#                                      scripts/), the man page, /usr/share/doc/devsim/ (README,
#                                      docs/, copyright)
#
# The copyright file, deploy/debian/copyright, is in Debian's machine-readable format.
#
# The binary is the release build with --static-swift-stdlib (as in the Dockerfile): the Swift
# runtime is linked in, so it needs only the C libraries it links (libmosquitto, libyaml,
# liblua5.4, …), libstdc++ and glibc, which the .deb names as dependencies (dpkg-shlibdeps).
# VERSION is the one `devsim --version` prints.
#
#   scripts/package.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)

bin=$(release_devsim)
version=$("$bin" --version | awk '{print $2}')
[ -n "$version" ] || { echo "package: '$bin --version' printed no version" >&2; exit 1; }
arch=$(uname -m)
debarch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The man page: the help texts, which are made from the option table, so it cannot drift.
man="$work/devsim.1"
{
  printf '.TH DEVSIM 1 "" "devsim %s" "User Commands"\n' "$version"
  printf '.SH NAME\ndevsim \\- simulated devices publishing telemetry to an MQTT broker\n'
  for topic in "" run validate sample report; do
    if [ -z "$topic" ]; then printf '.SH DESCRIPTION\n'; else printf '.SH DEVSIM %s\n' "$(echo "$topic" | tr a-z A-Z)"; fi
    printf '.nf\n'
    # Roff reads a leading "." or "'" as a request and "\" as an escape.
    if [ -z "$topic" ]; then "$bin" --help; else "$bin" "$topic" --help; fi | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    printf '.fi\n'
  done
  printf '.SH FILES\n.TP\n.I /usr/share/devsim/scenarios/\nthe ready-made scenarios\n'
  printf '.TP\n.I /usr/share/doc/devsim/docs/\nthe scenario reference and the dashboards guide\n'
} > "$man"

# The tarball: a folder of the binary, its scenarios and its man page.
tree="$work/devsim-$version"
install -D -m 0755 "$bin" "$tree/bin/devsim"
strip "$tree/bin/devsim"
install -d "$tree/share/devsim/scenarios/scripts" "$tree/share/man/man1"
install -m 0644 scenarios/*.yaml "$tree/share/devsim/scenarios/"
# The scripts the scenarios name (script: scripts/NAME.lua, relative to the scenario).
install -m 0644 scenarios/scripts/*.lua "$tree/share/devsim/scenarios/scripts/"
install -m 0644 "$man" "$tree/share/man/man1/devsim.1"
install -m 0644 README.md "$tree/README.md"
# The docs beside the README, where its links point; the copyright file as Debian writes it.
(cd docs && find . -type f) | while read -r file; do install -D -m 0644 "docs/$file" "$tree/docs/$file"; done
install -m 0644 deploy/debian/copyright "$tree/copyright"
tarball="$out/devsim-$version-linux-$arch.tar.gz"
tar -C "$work" --owner=0 --group=0 -czf "$tarball" "devsim-$version"

# The Debian package.
root="$work/deb"
install -D -m 0755 "$tree/bin/devsim" "$root/usr/bin/devsim"
install -d "$root/usr/share/devsim/scenarios/scripts" "$root/usr/share/man/man1" "$root/usr/share/doc/devsim" "$root/DEBIAN"
install -m 0644 scenarios/*.yaml "$root/usr/share/devsim/scenarios/"
install -m 0644 scenarios/scripts/*.lua "$root/usr/share/devsim/scenarios/scripts/"
gzip -9n -c "$man" > "$root/usr/share/man/man1/devsim.1.gz"
gzip -9n -c README.md > "$root/usr/share/doc/devsim/README.md.gz"
# Debian compresses documentation but the copyright file, which must be readable as it is.
(cd docs && find . -type f) | while read -r file; do
  install -d "$root/usr/share/doc/devsim/docs/$(dirname "$file")"
  case "$file" in
    *.md) gzip -9n -c "docs/$file" > "$root/usr/share/doc/devsim/docs/$file.gz" ;;
    *) install -m 0644 "docs/$file" "$root/usr/share/doc/devsim/docs/$file" ;;
  esac
done
install -m 0644 deploy/debian/copyright "$root/usr/share/doc/devsim/copyright"
install -D -m 0644 deploy/systemd/devsim.service "$root/lib/systemd/system/devsim.service"
# The Swift runtime must be inside the binary, not beside it.
if objdump -p "$root/usr/bin/devsim" | awk '/NEEDED/ {print $2}' | grep -q -i -e swift -e dispatch -e Foundation; then
  echo "package: the binary links the Swift runtime dynamically; it was not built with --static-swift-stdlib" >&2
  exit 1
fi
# The packages of the libraries it links, with the versions their symbols need (dpkg-shlibdeps,
# which reads a debian/control of the source it packages: a minimal one here).
mkdir -p "$work/debian"
printf 'Source: devsim\n\nPackage: devsim\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O --warnings=0 deb/usr/bin/devsim | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package: dpkg-shlibdeps found no dependencies of the binary" >&2; exit 1; }
cat > "$root/DEBIAN/control" <<CONTROL
Package: devsim
Version: $version
Architecture: $debarch
Maintainer: devsim developers <devsim@localhost>
Installed-Size: $(du -sk "$root/usr" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: simulated devices publishing telemetry to an MQTT broker
 devsim loads scenario files describing simulated devices and publishes their
 telemetry as JSON to an MQTT broker at the rates the scenarios set: to
 load-test a broker, to feed dashboards demo data, or as a step in CI.
 Ready-made scenarios are in /usr/share/devsim/scenarios.
CONTROL
deb="$out/devsim_${version}_$debarch.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" > /dev/null

echo "$tarball"
echo "$deb"
