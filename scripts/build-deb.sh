#!/usr/bin/env bash
# Builds the release binary and the Debian package target/debian/dgt-arbiter_VERSION_ARCH.deb.
#
#   scripts/build-deb.sh            # then: sudo apt-get install ./target/debian/*.deb
#
# The package is written with dpkg-deb from a staged tree rather than with cargo-deb: it
# needs only dpkg-dev (on every Debian CI machine), not a cargo-deb build from crates.io
# (minutes of CI on 2 cores), and every file's path, mode and owner is in this one script.
# Set DGT_DEB_NO_BUILD=1 to package an existing target/release/dgt-arbiter.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

PACKAGE=dgt-arbiter
# The Debian revision of this packaging: bump it when only the packaging changes.
REVISION=1
OUT=target/debian
BIN=target/release/dgt-arbiter
DEB_SRC=scripts/deb

for tool in dpkg-deb dpkg-shlibdeps gzip strip; do
  command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (apt-get install dpkg-dev binutils)" >&2; exit 1; }
done

if [ "${DGT_DEB_NO_BUILD:-0}" != 1 ]; then
  cargo build --release --locked --bin dgt-arbiter
fi

UPSTREAM=$("$BIN" --version | awk '{print $2}')
VERSION="$UPSTREAM-$REVISION"
ARCH=$(dpkg --print-architecture)
# Reproducible dates: the last commit's, not the build's.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

STAGE="$OUT/stage/${PACKAGE}_${VERSION}_${ARCH}"
rm -rf "$STAGE" "$OUT"/*.deb
mkdir -p "$STAGE/DEBIAN"

# dir MODE SRC DEST: install one file.
put() {
  install -D -m "$1" "$2" "$STAGE/$3"
}
DOC=usr/share/doc/$PACKAGE

# The binary, without its line tables (a package ships stripped binaries).
put 0755 "$BIN" usr/bin/dgt-arbiter
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$STAGE/usr/bin/dgt-arbiter"

# The service, the device rules, the starting config (a conffile).
put 0644 config/dgt-arbiter@.service lib/systemd/system/dgt-arbiter@.service
put 0644 udev/70-dgt-boards.rules lib/udev/rules.d/70-dgt-boards.rules
put 0644 config/hall.toml etc/dgt-arbiter/hall.toml

# Man pages and completions, made by the binary from its command-line definitions.
GEN="$OUT/generated"
rm -rf "$GEN"
"$BIN" generate "$GEN"
for page in "$GEN"/man/*.1; do
  put 0644 "$page" "usr/share/man/man1/$(basename "$page")"
  gzip -9n "$STAGE/usr/share/man/man1/$(basename "$page")"
done
put 0644 "$GEN/completions/dgt-arbiter.bash" usr/share/bash-completion/completions/dgt-arbiter
put 0644 "$GEN/completions/_dgt-arbiter" usr/share/zsh/vendor-completions/_dgt-arbiter
put 0644 "$GEN/completions/dgt-arbiter.fish" usr/share/fish/vendor_completions.d/dgt-arbiter.fish

# Docs and examples.
put 0644 "$DEB_SRC/copyright" "$DOC/copyright"
for doc in deployment udev dashboard formats; do
  put 0644 "docs/$doc.md" "$DOC/$doc.md"
  gzip -9n "$STAGE/$DOC/$doc.md"
done
put 0644 README.md "$DOC/README.md"
for example in config/*.toml udev/69-dgt-ftdi-local.rules.example; do
  put 0644 "$example" "$DOC/examples/$(basename "$example")"
done
# changelog.Debian, as Debian wants it: the packaging's history, dated by the commit.
CHANGELOG_DATE=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
mkdir -p "$STAGE/$DOC"
cat >"$STAGE/$DOC/changelog.Debian" <<CHANGELOG
$PACKAGE ($VERSION) unstable; urgency=medium

  * Package of dgt-arbiter $UPSTREAM, built by scripts/build-deb.sh from the
    source tree: the daemon, its systemd template unit, the udev rules of the
    DGT boards, a starting config, man pages and shell completions.

 -- dgt-arbiter developers <dgt-arbiter@users.noreply.github.com>  $CHANGELOG_DATE
CHANGELOG
gzip -9n "$STAGE/$DOC/changelog.Debian"

# Maintainer scripts and the control file.
for script in postinst prerm postrm; do
  put 0755 "$DEB_SRC/$script" "DEBIAN/$script"
done
echo /etc/dgt-arbiter/hall.toml >"$STAGE/DEBIAN/conffiles"

# Library dependencies as dpkg-shlibdeps finds them (it wants a debian/control beside it).
SHLIBS="$OUT/shlibs"
rm -rf "$SHLIBS"
mkdir -p "$SHLIBS/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" "$PACKAGE" >"$SHLIBS/debian/control"
SHLIB_DEPENDS=$(cd "$SHLIBS" && dpkg-shlibdeps -O "$OLDPWD/$STAGE/usr/bin/dgt-arbiter" | sed -n 's/^shlibs:Depends=//p')
INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)

cat >"$STAGE/DEBIAN/control" <<CONTROL
Package: $PACKAGE
Version: $VERSION
Architecture: $ARCH
Maintainer: dgt-arbiter developers <dgt-arbiter@users.noreply.github.com>
Installed-Size: $INSTALLED_SIZE
Depends: $SHLIB_DEPENDS, adduser
Recommends: udev, systemd
Section: misc
Priority: optional
Homepage: https://github.com/dgt-arbiter/dgt-arbiter
Description: FIDE arbiter daemon for DGT electronic chess boards and clocks
 dgt-arbiter reads every DGT e-board and clock of a tournament hall, rules on
 illegal moves, clock presses and other irregularities by the FIDE Laws of
 Chess, asks the arbiter whenever it is not sure, and writes every game to a
 journal, PGN and a LiveChess folder, with a dashboard for the arbiters'
 phones.
 .
 This package installs the daemon, a systemd template unit
 (dgt-arbiter@NAME reads /etc/dgt-arbiter/NAME.toml), udev rules giving the
 boards stable names under /dev/dgt/, and a starting config; "dgt-arbiter init"
 writes a config for the boards plugged in.
CONTROL

(cd "$STAGE" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/conffiles" "$STAGE/DEBIAN/md5sums"
# Every file and folder owned by root and no more than readable by others.
find "$STAGE" -type d -exec chmod 0755 {} +
find "$STAGE" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

DEB="$OUT/${PACKAGE}_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB"
echo "$DEB"
