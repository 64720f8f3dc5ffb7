#!/usr/bin/python3
# fill-po.py: fills untranslated messages of a catalog from a JSON table
# {msgid: msgstr}; reports the messages the table lacks.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: fill-po.py CATALOG.po TABLE.json. After `meson compile -C _build
# eager-glib-update-po` has merged new messages into the catalog, write
# their translations in a table and fill them in; po-complete checks the
# result.
import json
import sys

path, table = sys.argv[1], json.load(open(sys.argv[2], encoding="utf-8"))
entries = open(path, encoding="utf-8").read().split("\n\n")
missing = []


def unquote(lines):
    return "".join(json.loads(line) for line in lines if line.startswith('"'))


for n, entry in enumerate(entries):
    lines = entry.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(("msgid ", "msgstr "))]
    if len(starts) != 2 or lines[0].startswith("#~"):
        continue
    i, j = starts
    msgid = unquote([lines[i][6:]] + lines[i + 1:j])
    msgstr = unquote([lines[j][7:]] + lines[j + 1:])
    if msgid == "" or msgstr != "":
        continue
    if msgid not in table:
        missing.append(msgid)
        continue
    lines = [line for line in lines[:j] if line != "#, fuzzy"]
    entries[n] = "\n".join(lines + ["msgstr " + json.dumps(table[msgid], ensure_ascii=False)])

open(path, "w", encoding="utf-8").write("\n\n".join(entries))
for msgid in missing:
    print(f"no translation for: {msgid}", file=sys.stderr)
sys.exit(1 if missing else 0)
