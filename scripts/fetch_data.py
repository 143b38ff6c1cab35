#!/usr/bin/python3
"""Downloads one dataset file for `fedbench data get` (which verifies and publishes it).

    fetch_data.py OUT STORED_NAME URL [URL...]

Tries the URLs in order and streams the first that answers into OUT, a new file (never an
existing one). A URL ending in .bz2, .gz or .xz is decompressed on the way unless STORED_NAME
(the file name the dataset is stored under) ends the same way: MNIST is stored as .gz, LIBSVM's
ijcnn1 as plain text. On failure removes OUT and prints one line per URL tried to standard
error, exit 1. Only the standard library: urllib (http, https,
file URLs), bz2, gzip, lzma.
"""
import bz2
import lzma
import os
import sys
import urllib.error
import urllib.request
import zlib

CHUNK = 1 << 20
TIMEOUT_SECONDS = 60


def decompressor(url, stored_name):
    for suffix, make in ((".bz2", bz2.BZ2Decompressor), (".xz", lzma.LZMADecompressor),
                         (".gz", lambda: zlib.decompressobj(16 + zlib.MAX_WBITS))):
        if url.endswith(suffix) and not stored_name.endswith(suffix):
            return make()
    return None


def fetch(url, stored_name, out):
    """Streams url into the open file out; raises on any failure, a truncated stream included."""
    unpack = decompressor(url, stored_name)
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
        expected = response.headers.get("Content-Length") if hasattr(response, "headers") else None
        received = 0
        while True:
            chunk = response.read(CHUNK)
            if not chunk:
                break
            received += len(chunk)
            out.write(unpack.decompress(chunk) if unpack else chunk)
        if expected is not None and received != int(expected):
            raise OSError(f"truncated: {received} of {expected} bytes")
        if unpack is not None and not getattr(unpack, "eof", True):
            raise OSError("truncated: the compressed stream ends early")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    out_path, stored_name, urls = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = []
    for url in urls:
        try:
            with open(out_path, "xb") as out:
                try:
                    fetch(url, stored_name, out)
                except BaseException:
                    out.close()
                    os.unlink(out_path)
                    raise
            return 0
        except (urllib.error.URLError, OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as e:
            reason = getattr(e, "reason", None) or e
            failures.append(f"{url}: {reason}")
        except KeyboardInterrupt:
            return 130
    for line in failures:
        print(line, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
