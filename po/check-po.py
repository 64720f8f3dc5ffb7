#!/usr/bin/python3
# check-po.py: the translations are complete.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: check-po.py SOURCE_ROOT. Fails when a source file with
# translatable messages is missing from po/POTFILES.in, when a message
# builds its format from GLib's G_G*_FORMAT macros (xgettext cuts the
# message there: use PRId64/PRIu64 from <inttypes.h> and %zu), when the
# Python or gjs layer (introspection/) raises a library error whose
# message does not go through gettext, or when a catalog in po/LINGUAS
# lacks a translation of a message or has a fuzzy one.
import glob
import os
import re
import subprocess
import sys
import tempfile

root = sys.argv[1]
os.chdir(root)
failures = []

listed = {line.strip() for line in open("po/POTFILES.in") if line.strip() and not line.startswith("#")}
TRANSLATABLE = re.compile(r'\b(N?_|_n|g_dngettext)\(\s*(GETTEXT_PACKAGE,\s*)?"')
# (not the npm tools that introspection/gjs/types installs)
bindings = sorted(path for path in glob.glob("introspection/**/*.py", recursive=True)
                  + glob.glob("introspection/**/*.js", recursive=True)
                  if "node_modules" not in path.split(os.sep))
for path in sorted(glob.glob("eager-glib/**/*.c", recursive=True)) + bindings:
    text = open(path, encoding="utf-8").read()
    if TRANSLATABLE.search(text):
        if path not in listed:
            failures.append(f"{path}: has translatable messages but is not in po/POTFILES.in")
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(r'\bN?_\(\s*"', line) and re.search(r"G_G\w*_FORMAT", line):
            failures.append(f"{path}:{number}: a translatable message uses a G_G*_FORMAT macro")
# The bindings' own library errors (GLib.Error in ep-error: _ep_error()
# in Python, GLib.Error in gjs) carry a message from gettext: _(...) or
# _n(...), formatted after the lookup (`passed_on`: a Python exception's
# own text, carried through C and raised again as it was).
for path in bindings:
    text = open(path, encoding="utf-8").read()
    for match in re.finditer(r"\b(_ep_error|new GLib\.Error)\(", text):
        arguments = text[match.end():match.end() + 400]
        message = arguments.split(",", 1)[1].lstrip() if "," in arguments else ""
        number = text.count("\n", 0, match.start()) + 1
        if match.group(1) == "_ep_error" and text[match.start() - 4:match.start()] == "def ":
            continue
        if not re.match(r"\(?(_|_n)\(|passed_on\b", message):
            failures.append(f"{path}:{number}: a library error's message does not go through gettext")

for path in sorted(listed):
    if not os.path.exists(path):
        failures.append(f"po/POTFILES.in: {path} does not exist")

with tempfile.TemporaryDirectory() as tmp:
    pot = os.path.join(tmp, "eager-glib.pot")
    subprocess.run(["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2",
                    "--keyword=g_dngettext:2,3", "--keyword=_n:1,2",
                    "--add-comments=TRANSLATORS", "-f", "po/POTFILES.in", "-o", pot],
                   check=True)
    for language in open("po/LINGUAS").read().split():
        merged = os.path.join(tmp, f"{language}.po")
        subprocess.run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, f"po/{language}.po", pot],
                       check=True)
        result = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, merged],
                                capture_output=True, text=True)
        stats = result.stderr.strip()
        if result.returncode != 0 or "untranslated" in stats or "fuzzy" in stats:
            failures.append(f"po/{language}.po: {stats or result.returncode}")
        else:
            print(f"po/{language}.po: {stats}")

for failure in failures:
    print(failure, file=sys.stderr)
sys.exit(1 if failures else 0)
