#!/bin/sh
# test-uninstalled.sh BUILDDIR SRCDIR: builds a Vala and a C program
# against the build tree with exactly the commands of docs/vala.md
# ("Building against the build tree") and runs them: valac finds the vapi
# and pkg-config the uninstalled .pc through `meson devenv`, and
# <eager-glib/eager-glib.h> resolves as for an installed library.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/examples/vala/norm.vala" "$src/tests/install/program.c" "$work"
cd "$work"
# the runner's own variables must not help: only what devenv sets
unset GI_TYPELIB_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH XDG_DATA_DIRS

echo "1..2"
if meson devenv -C "$build" -w . valac --pkg eager-glib-1.0 norm.vala >log 2>&1 \
   && meson devenv -C "$build" -w . ./norm >out 2>&1 && grep -q '^3.7416575$' out; then
  echo "ok 1 - valac --pkg eager-glib-1.0 in meson devenv"
else
  echo "not ok 1 - valac --pkg eager-glib-1.0 in meson devenv"
  sed 's/^/# /' log out 2>/dev/null || true
fi
# shellcheck disable=SC2016
if meson devenv -C "$build" -w . sh -c 'cc -o program program.c $(pkg-config --cflags --libs eager-glib-1.0)' >log 2>&1 \
   && meson devenv -C "$build" -w . ./program >out 2>&1; then
  echo "ok 2 - cc with pkg-config in meson devenv, <eager-glib/eager-glib.h>"
else
  echo "not ok 2 - cc with pkg-config in meson devenv, <eager-glib/eager-glib.h>"
  sed 's/^/# /' log out 2>/dev/null || true
fi
