#!/bin/sh
# check-types.sh: generates the TypeScript declarations of Ep (ts-for-gir,
# from the build's Ep-1.0.gir) and of the module ep.js (gen-dts.js), then
# type-checks the gjs examples with them (tsc --noEmit, checkJs).
#
#   check-types.sh BUILD_ROOT OUTDIR
#
# The tools come from npm (package.json, package-lock.json: npm ci here);
# without them the test is skipped (exit 77), as the CI installs Debian
# packages only and npm packages need the npm registry.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu

here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../../.." && pwd)
build_root=$1
outdir=$2

for tool in node gjs; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: no $tool"
    exit 77
  fi
done
for tool in ts-for-gir tsc; do
  if [ ! -x "$here/node_modules/.bin/$tool" ]; then
    echo "SKIP: no $tool: run 'npm ci' in introspection/gjs/types (needs the npm registry; build-aux/setup tries)"
    exit 77
  fi
done
# ts-for-gir 5.4 asks for node 22; it was checked with node 20
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "SKIP: node $node_major is older than ts-for-gir runs on (20 or later)"
  exit 77
fi

rm -rf "$outdir"
mkdir -p "$outdir"

# Ep as gjs calls the C functions, with GLib, GObject and Gio from the system
# (node without the sanitizer runtimes that a sanitized build preloads for gjs)
env -u LD_PRELOAD "$here/node_modules/.bin/ts-for-gir" generate Ep-1.0 \
  -g "$build_root/eager-glib" -g /usr/share/gir-1.0 \
  -o "$outdir/girs" --ignoreVersionConflicts true --noComments true >"$outdir/ts-for-gir.log" 2>&1 \
  || { cat "$outdir/ts-for-gir.log"; exit 1; }

# ep.js makes Tensor.dtype the dtype's name (get_dtype() stays the enum):
# its declaration (ep.d.ts) replaces the GObject property's
file="$outdir/girs/ep-1.0.d.ts"
before=$(grep -c '^        get dtype(): DType;$' "$file")
sed -i '/^    class Tensor extends GObject.Object {/,/^    }/{/^        get dtype(): DType;$/d}' "$file"
if [ "$(grep -c '^        get dtype(): DType;$' "$file")" -ne $((before - 1)) ]; then
  echo "check-types: Tensor.dtype not found in ts-for-gir's declarations as expected" >&2
  exit 1
fi

# ep.js replaces Ep.memory() (an object, not [bytes, tensors]) once, and
# record (a JavaScript function, not a ScopeFunc) of GradientTape and
# ForwardAccumulator
for entry in '1 ^    function memory(): \[number, number\];$' '2 ^        record(func: ScopeFunc): Tensor | null;$'; do
  count=${entry%% *}
  pattern=${entry#* }
  if [ "$(grep -c "$pattern" "$file")" -ne "$count" ]; then
    echo "check-types: '$pattern' not found $count times in ts-for-gir's declarations" >&2
    exit 1
  fi
  sed -i "/$pattern/d" "$file"
done

# what ep.js adds, from its wrappers
gjs -m "$here/gen-dts.js" "$outdir/ep.d.ts"

cat >"$outdir/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "es2022",
    "module": "es2022",
    "moduleResolution": "bundler",
    "lib": ["es2022"],
    "types": [],
    "allowJs": true,
    "checkJs": true,
    "noEmit": true,
    "strict": false,
    "skipLibCheck": false
  },
  "files": [
    "$outdir/girs/index.d.ts",
    "$outdir/girs/ep-1.0.d.ts",
    "$outdir/ep.d.ts"
  ],
  "include": ["$source_root/examples/gjs/*.js"]
}
JSON
env -u LD_PRELOAD "$here/node_modules/.bin/tsc" -p "$outdir/tsconfig.json"
echo "tsc: the gjs examples type-check against Ep-1.0 and ep.js"
