#!/usr/bin/env bash
# Kit.Handouts: ./lab handouts draws every rung's figure and renders every page of handouts/ to a
# self-contained HTML file, its links pointing at HTML.
#   handouts_test.sh LAB_CLI KIT WORK
set -uo pipefail
cli="$1" kit="$2" work="$3"
fail() { echo "FAILED: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
LAB_ROOT="$kit" "$cli" handouts "$work/html" >"$work/log" 2>&1 || fail "./lab handouts failed: $(cat "$work/log")"
[[ -s "$work/html/index.html" ]] || fail "no index.html"
pages=0
for md in "$kit"/handouts/*.md "$kit"/handouts/benchmark/*/*.md; do
  page="${md#"$kit"/handouts/}"
  html="$work/html/${page%.md}.html"
  [[ -s "$html" ]] || fail "handouts/$page was not rendered"
  grep -q 'href="[^"#:]*\.md[#"]' "$html" && fail "$html still links to Markdown"
  pages=$((pages + 1))
done
for id in $(LAB_ROOT="$kit" "$cli" list --ids); do
  [[ -s "$work/html/figures/$id.png" ]] || fail "no figure drawn for $id"
  grep -q 'data:image/png;base64' "$work/html/$id.html" || fail "$id.html shows no figure"
done
echo "handouts: $pages pages rendered, a figure for every rung"
