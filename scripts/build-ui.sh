#!/usr/bin/env bash
# Build the web UI and the graph renderer from ui/ and copy them into the Python package.
#
#   src/engramdb/server/ui_dist/          the /ui single-page app (index.html + assets/)
#   src/engramdb/viz/assets/graph-renderer.{js,css}   inlined by visualize_graph()
#   src/engramdb/server/ui_dist/SOURCE_HASH           sha256 of the ui/ sources built
#
# The outputs are committed, so `pip install engramdb` needs no npm; tests/unit/viz/
# test_ui_bundle.py fails when ui/ changed without running this script.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/ui"
npm ci --no-audit --no-fund
npm run build
rm -rf "$root/src/engramdb/server/ui_dist"
cp -r dist/ui "$root/src/engramdb/server/ui_dist"
cp dist/graph/graph-renderer.js "$root/src/engramdb/viz/assets/graph-renderer.js"
cp dist/graph/engramdb-ui.css "$root/src/engramdb/viz/assets/graph-renderer.css"
"${PYTHON:-python3}" "$root/scripts/ui_source_hash.py" > "$root/src/engramdb/server/ui_dist/SOURCE_HASH"
# The bytes a browser downloads for /ui: each served file gzipped on its own (as a server would).
gzipped=0
for f in "$root/src/engramdb/server/ui_dist/index.html" "$root"/src/engramdb/server/ui_dist/assets/*; do
  gzipped=$((gzipped + $(gzip -9c "$f" | wc -c)))
done
echo "built: $(du -sh "$root/src/engramdb/server/ui_dist" | cut -f1) UI ($gzipped bytes gzipped), $(wc -c < "$root/src/engramdb/viz/assets/graph-renderer.js") bytes renderer"
