#!/usr/bin/env python3
"""Fails when a source file includes a header of a higher layer.

The layers, lowest first, are listed in src/LAYERS. A file under src/<layer>/
may include "<own layer>/..." and headers of layers listed above its own in
that file, plus the public headers "paimonc/...". src/cli/ and the Python
extension may include only public headers (they see the library through its
API). Run: tests/layering/check_layers.py [repo root]; exit status 1 and one
line per violation when the rule is broken.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def load_layers(root):
    with open(os.path.join(root, "src", "LAYERS")) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def layer_of(path, layers):
    """The longest layer that is a directory prefix of `path` (relative to src/)."""
    best = None
    for name in layers:
        if path.startswith(name + "/") and (best is None or len(name) > len(best)):
            best = name
    return best


def check(root):
    layers = load_layers(root)
    rank = {name: i for i, name in enumerate(layers)}
    src = os.path.join(root, "src")
    problems = []
    seen = 0
    for dirpath, _, names in os.walk(src):
        for n in sorted(names):
            if not n.endswith((".c", ".h")):
                continue
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, src)
            own = layer_of(rel, layers)
            public_only = rel.startswith("cli/")
            if own is None and not public_only:
                problems.append("%s: not in any layer of src/LAYERS" % rel)
                continue
            seen += 1
            with open(full, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc.startswith("paimonc/") or "/" not in inc:
                        continue  # public header, or a header next to the file
                    if public_only:
                        if not inc.startswith("cli/"):
                            problems.append("%s:%d: cli includes internal header %s" % (rel, lineno, inc))
                        continue
                    target = layer_of(inc, layers)
                    if target is None:
                        problems.append("%s:%d: includes %s, which is in no layer" % (rel, lineno, inc))
                    elif rank[target] > rank[own]:
                        problems.append("%s:%d: layer %s includes %s of higher layer %s"
                                        % (rel, lineno, own, inc, target))
    pydir = os.path.join(root, "python", "paimonc")
    for n in sorted(os.listdir(pydir)) if os.path.isdir(pydir) else []:
        if not n.endswith((".c", ".h")):
            continue
        with open(os.path.join(pydir, n), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m and "/" in m.group(1) and not m.group(1).startswith("paimonc/"):
                    problems.append("python/paimonc/%s:%d: includes internal header %s" % (n, lineno, m.group(1)))
    return seen, problems


def self_test():
    """The check must be able to fail: a planted upward include is reported."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src", "core"))
        os.makedirs(os.path.join(d, "src", "meta"))
        with open(os.path.join(d, "src", "LAYERS"), "w") as f:
            f.write("# test\ncore\nmeta\n")
        with open(os.path.join(d, "src", "meta", "m.h"), "w") as f:
            f.write('#include "core/c.h"\n')
        with open(os.path.join(d, "src", "core", "c.h"), "w") as f:
            f.write('#include "paimonc/common.h"\n#include "meta/m.h"\n')
        seen, problems = check(d)
        assert seen == 2, seen
        assert len(problems) == 1 and "core/c.h:2" in problems[0], problems
    print("layering self-test: a planted upward include is caught")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    seen, problems = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print("layering: %d violation(s)" % len(problems))
        return 1
    print("layering: %d files checked, no file includes a higher layer" % seen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
