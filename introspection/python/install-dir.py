#!/usr/bin/python3
# install-dir.py: where Python finds modules installed under PREFIX
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: install-dir.py PREFIX. Prints the module directory (site- or
# dist-packages) that this Python reads under PREFIX, so that the override
# lands in a gi/overrides directory PyGObject scans (it extends
# gi.overrides over every gi/overrides on sys.path): for PREFIX=/usr that
# is PyGObject's own (gi._overridesdir), for /usr/local Debian's
# /usr/local/lib/python3.X/dist-packages. A prefix this Python does not
# read gets the layout of PyGObject's own directory below it
# (PREFIX/lib/python3/dist-packages); put that on PYTHONPATH.
import os
import sys

import gi

prefix = os.path.realpath(sys.argv[1])
overrides = os.path.realpath(gi._overridesdir)
site = os.path.dirname(os.path.dirname(overrides))

if os.path.commonpath([prefix, site]) == prefix and os.path.realpath(sys.prefix) == prefix:
    print(site)
    sys.exit(0)

for entry in sys.path:
    entry = os.path.realpath(entry) if entry else ""
    if entry.endswith(("site-packages", "dist-packages")) and os.path.commonpath([prefix, entry]) == prefix:
        print(entry)
        sys.exit(0)

print(os.path.join(prefix, os.path.relpath(site, os.path.realpath(sys.prefix))))
