#!/usr/bin/env bash
# Compressed LIBSVM files: .bz2 (as LIBSVM's site distributes them, also as several
# concatenated streams) reads as the same data as the plain file; a truncated .bz2 and files
# compressed in formats read by other tools (xz, zstd, zip, 7z) end in one line naming them.
source "$(dirname "$0")/lib.bash"
plain=../shared/datasets/libsvm/heart_scale
"$python" - "$plain" "$scratch" <<'PY'
import bz2, lzma, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
open(f"{out}/heart.bz2", "wb").write(bz2.compress(data))
half = len(data) // 2  # two streams, split inside a line as pbzip2 splits
open(f"{out}/two.bz2", "wb").write(bz2.compress(data[:half]) + bz2.compress(data[half:]))
open(f"{out}/cut.bz2", "wb").write(bz2.compress(data)[:2000])
open(f"{out}/heart.xz", "wb").write(lzma.compress(data))
open(f"{out}/heart.zst", "wb").write(b"\x28\xb5\x2f\xfd" + b"\0" * 16)  # zstd's magic number
with zipfile.ZipFile(f"{out}/heart.zip", "w") as z:
    z.writestr("heart_scale", data)
open(f"{out}/heart.7z", "wb").write(b"7z\xbc\xaf\x27\x1c" + b"\0" * 26)
PY
instance() { "$fedbench" instance robust-least-squares -p source=libsvm -p "path=$1" -o "$2"; }
instance "$plain" "$scratch/plain.h5"
for f in heart two; do
  instance "$scratch/$f.bz2" "$scratch/$f.h5"
  checks=$((checks + 1))
  "$python" - "$scratch/plain.h5" "$scratch/$f.h5" <<'PY' || { echo "FAIL: $f.bz2 reads as other data than $plain"; failures=$((failures + 1)); }
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
names = []
a["data"].visit(lambda n: names.append(n) if isinstance(a["data"][n], h5py.Dataset) else None)
assert names, "no data in the instance file"
for n in names:
    assert np.array_equal(a["data"][n][()], b["data"][n][()]), n
PY
done
expect_fail_like 2 "cut\\.bz2:[0-9]+: cannot read: unexpected end of data \\(truncated or corrupt \\.bz2\\?\\)$" \
  instance "$scratch/cut.bz2" "$scratch/cut.h5"
for pair in "xz unxz" "zst unzstd" "zip unzip" "7z 7z x"; do
  ext=${pair%% *} tool=${pair#* }
  name=$ext; [ "$ext" = zst ] && name=zstd
  expect_fail_like 2 "$scratch/heart\\.$ext is $name-compressed; decompress it first \\($tool $scratch/heart\\.$ext\\)$" \
    instance "$scratch/heart.$ext" "$scratch/x.h5"
done
finish
