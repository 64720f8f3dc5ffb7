#!/bin/sh
# run-digits.sh LAUNCHER DIR: the Digits app (examples/gnome) driven by its
# self-test under Xvfb, leaving its screenshot and checkpoint in DIR.
# Skipped (77) without xvfb-run; a private D-Bus session where
# dbus-run-session exists, so that the app neither finds nor starts one
# of the machine's.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu
launcher=$1
dir=$2

if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run not found (Debian: apt install xvfb xauth)"
  exit 77
fi
set -- "$launcher" --self-test="$dir"
# the sanitizer runtimes (EP_DIGITS_PRELOAD) go to the app only, not to
# Xvfb or D-Bus
if [ -n "${EP_DIGITS_PRELOAD:-}" ]; then
  set -- env LD_PRELOAD="$EP_DIGITS_PRELOAD" "$@"
fi
if command -v dbus-run-session >/dev/null 2>&1; then
  set -- dbus-run-session -- "$@"
fi
echo "# screenshot and checkpoint go to $dir"
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
