#!/usr/bin/python3
"""Every relative link and image of the Markdown files under ROOT resolves to a file or
directory under ROOT.

usage: doc_links.py ROOT [FILE.md ...]   (default: every *.md under ROOT)

Checks Markdown links and images ([t](x), ![t](x), [t]: x) and HTML src/href attributes, outside
fenced code blocks and inline code; skips absolute URLs (scheme:) and in-page anchors (#x).
Prints one line per broken link (file:line: target) and exits 1 if there is any.
"""
import os
import re
import sys

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HTML = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""")
CODE_SPAN = re.compile(r"(`+).+?\1")


def targets(text):
    """(line number, target) of every link outside code."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * 3
            elif stripped.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        line = CODE_SPAN.sub("", line)
        for pattern in (INLINE, HTML):
            for m in pattern.finditer(line):
                yield number, m.group(1)
        m = DEFINITION.match(line)
        if m:
            yield number, m.group(1)


def relative(target):
    """The file part of a relative link; None for URLs and anchors."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
        return None
    return target.split("#", 1)[0].split("?", 1)[0]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = os.path.realpath(sys.argv[1])
    files = sys.argv[2:] or [os.path.join(d, n) for d, _, names in os.walk(root)
                             for n in names if n.endswith(".md")]
    broken = links = 0
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, target in targets(text):
            part = relative(target)
            if not part:
                continue
            links += 1
            full = os.path.realpath(os.path.join(os.path.dirname(path), part))
            inside = full == root or full.startswith(root + os.sep)
            if not inside or not os.path.exists(full):
                broken += 1
                why = "outside " + root if not inside else "missing"
                print(f"{os.path.relpath(path, root)}:{number}: {target} ({why})")
    print(f"{links} relative links in {len(files)} files, {broken} broken")
    sys.exit(1 if broken or not links else 0)


if __name__ == "__main__":
    main()
