#!/usr/bin/env bash
# `fedbench data get` against a local HTTP server (python3 -m http.server) that serves copies
# of ../shared/datasets laid out as a mirror: a good file is stored under its registered path
# with the registered SHA-256; a .bz2-only copy is decompressed and checked; a truncated and a
# corrupted download, a file with the wrong rows and a missing one are refused with one line
# naming the file and the fix, and leave nothing (no file, no .part) behind; a good copy
# already on the search path is not downloaded again; every registered file has a URL.
source "$(dirname "$0")/lib.bash"
root=$PWD
data=${FEDBENCH_DATA:-$root/../shared/datasets}
unset FEDBENCH_DATA
export HOME=$scratch/home XDG_CACHE_HOME=$scratch/cache
unset XDG_DATA_HOME
mkdir -p "$HOME"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); "$@" || fail "${FAIL_MSG:-$*}"; }

# The mirror's files: good copies, and bad ones made from them.
www=$scratch/www
mkdir -p "$www/good/libsvm" "$www/bad/libsvm" "$www/bz2/libsvm"
cp "$data/libsvm/heart_scale" "$data/libsvm/a9a" "$data/libsvm/a9a.t" "$www/good/libsvm/"
head -c 1000000 "$data/libsvm/a9a" >"$www/bad/libsvm/a9a"                        # truncated
sed '1s/^-1 /+1 /; t; 1s/^+1 /-1 /' "$data/libsvm/a9a.t" >"$www/bad/libsvm/a9a.t"   # first label flipped
cmp -s "$www/bad/libsvm/a9a.t" "$data/libsvm/a9a.t" && fail "the corrupted a9a.t equals the original"
for _ in $(seq 270); do echo "1 1:0.5 2:0.25"; done >"$www/bad/libsvm/covtype.libsvm.binary"  # 270 rows, not 581012
bzip2 -c "$data/libsvm/heart_scale" >"$www/bz2/libsvm/heart_scale.bz2"

"$python" -m http.server 0 --bind 127.0.0.1 --directory "$www" >"$scratch/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$scratch/http.log" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: the HTTP server did not start"; cat "$scratch/http.log"; exit 1; }
url=http://127.0.0.1:$port
sha() { sha256sum "$1" | cut -d' ' -f1; }
nothing_left() {  # nothing_left DIR: no file at all under DIR (no .part either)
  checks=$((checks + 1))
  local left
  left=$(find "$1" -type f 2>/dev/null)
  [ -z "$left" ] || fail "files left behind in $1: $left"
}

# A good file, fetched although the source tree has it (--force), into the per-user default.
user=$HOME/.local/share/fedbench/datasets
expect_ok "^got +$user/libsvm/heart_scale \(270 rows, SHA-256 as registered\)" \
  "$fedbench" data get heart --force --mirror "$url/good"
check [ "$(sha "$user/libsvm/heart_scale")" = "$(sha "$data/libsvm/heart_scale")" ]
nothing_left_but() { checks=$((checks + 1)); [ "$(find "$1" -type f | wc -l)" = "$2" ] || fail "$1 holds $(find "$1" -type f)"; }
nothing_left_but "$user" 1
# Already there and good: not downloaded again (the server sees no request for it).
requests=$(grep -c 'GET ' "$scratch/http.log")
expect_ok "^present +.*libsvm/heart_scale" "$fedbench" data get heart --mirror "$url/good"
check [ "$(grep -c 'GET ' "$scratch/http.log")" = "$requests" ]
# The .bz2 copy only: decompressed on the way, then checked against the plain file's SHA-256.
expect_ok "^got +$scratch/bz2store/libsvm/heart_scale " \
  "$fedbench" data get heart --force --to "$scratch/bz2store" --mirror "$url/bz2"
check [ "$(sha "$scratch/bz2store/libsvm/heart_scale")" = "$(sha "$data/libsvm/heart_scale")" ]
# file:// mirrors work as well.
expect_ok "^got +$scratch/filestore/libsvm/a9a " \
  "$fedbench" data get a9a --force --to "$scratch/filestore" --mirror "file://$www/good"

# Truncated and corrupted downloads, wrong rows, no copy at all: refused, nothing kept, exit 1.
expect_fail_like 1 "^fedbench: a9a: refused the download of libsvm/a9a: its SHA-256 is [0-9a-f]{64}, the registered file's f5d5ffd8.*; nothing was kept" \
  bash -c '"$1" data get a9a --force --to "$2" --mirror "$3" 2>&1 >/dev/null | grep "libsvm/a9a:" >&2; exit ${PIPESTATUS[0]}' \
  _ "$fedbench" "$scratch/badstore" "$url/bad"
expect_fail_like 1 "^fedbench: a9a: refused the download of libsvm/a9a.t: its SHA-256 is [0-9a-f]{64}, the registered file's 1f448a15" \
  bash -c '"$1" data get a9a --force --to "$2" --mirror "$3" 2>&1 >/dev/null | grep "libsvm/a9a.t:" >&2; exit ${PIPESTATUS[0]}' \
  _ "$fedbench" "$scratch/badstore" "$url/bad"
nothing_left "$scratch/badstore"
expect_fail_like 1 "^fedbench: covtype: refused the download of libsvm/covtype.libsvm.binary: it has 270 rows, the registered file 581012; nothing was kept" \
  "$fedbench" data get covtype --to "$scratch/rowstore" --mirror "$url/bad"
nothing_left "$scratch/rowstore"
expect_fail_like 1 "^fedbench: phishing: could not download libsvm/phishing \(tried $url/bad/libsvm/phishing, .*\); check the network or use --mirror URL" \
  bash -c '"$1" data get phishing --to "$2" --mirror "$3" 2>&1 >/dev/null | grep "^fedbench: phishing" >&2; exit ${PIPESTATUS[0]}' \
  _ "$fedbench" "$scratch/nostore" "$url/bad"
nothing_left "$scratch/nostore"
expect_fail_like 2 "unknown dataset 'nosuch'" "$fedbench" data get nosuch --mirror "$url/good"

# Where files go, and that every registered file has somewhere to come from.
expect_ok "^\`fedbench data get NAME\` stores a dataset's files in $user\$" "$fedbench" data list
expect_ok "missing libsvm/phishing: fedbench data get phishing" "$fedbench" data list
checks=$((checks + 1))
if ! "$fedbench" data list --json | "$python" -c '
import json, sys
listing = json.load(sys.stdin)
assert listing["get_destination"].endswith("/.local/share/fedbench/datasets"), listing["get_destination"]
files = [(d["name"], f["relative"], f["urls"]) for d in listing["datasets"] for f in d["files"]]
assert files and all(urls for _, _, urls in files), [f for f in files if not f[2]]
assert all(u.startswith(("http://", "https://")) for _, _, urls in files for u in urls)
'; then fail "data list --json: a registered file without a URL, or no destination"; fi
finish
