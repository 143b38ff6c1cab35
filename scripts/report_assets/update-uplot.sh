#!/usr/bin/env bash
# Vendors uPlot from npm: bash scripts/report_assets/update-uplot.sh [VERSION] (default: the
# version in uPlot.VERSION). Needs npm and network; the build and the tests never do.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:-$(cat "$here/uPlot.VERSION")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack "uplot@$version" >/dev/null && tar xzf "uplot-$version.tgz")
cp "$work/package/dist/uPlot.iife.min.js" "$work/package/dist/uPlot.min.css" "$here/"
cp "$work/package/LICENSE" "$here/uPlot.LICENSE"
echo "$version" >"$here/uPlot.VERSION"
(cd "$here" && sha256sum uPlot.iife.min.js uPlot.min.css uPlot.LICENSE | tee SHA256SUMS)
echo "npm package uplot@$version: $(sha256sum "$work/uplot-$version.tgz" | cut -d' ' -f1)"
