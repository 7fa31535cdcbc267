#!/usr/bin/env python3
"""Source checks that the compiler does not make (STYLE.md, sections 1 and 8).

- layering: a file in src/<layer>/ includes only headers of its own layer
  and of the layers below it (DESIGN.md, Layers); server/ uses only the public
  headers and util/, cli/ those and server/;
- banned calls: strcpy, strcat, sprintf, strtok, atoi, gets;
- raw malloc/calloc/realloc/free only inside src/util/.

The compile enforces the same layering: cmake/SiltLayer.cmake gives each
layer an include root with only the layers BELOW allows, and
scripts/check-include-roots.py (ctest check.include_roots) reads BELOW from
this file to prove that the roots match it and that an upward include fails.

Prints one line per problem and "N passed, M failed" at the end.
"""
import os
import re
import sys

BELOW = {
    "util": set(),
    "io": {"util"},
    "formats": {"io", "util"},
    "delta": {"formats", "io", "util"},
    "engine": {"formats", "io", "util"},
    "catalog": {"delta", "formats", "io", "util"},
    "sql": {"catalog", "engine", "delta", "formats", "io", "util"},
    "stream": {"sql", "catalog", "engine", "delta", "formats", "io", "util"},
    "api": {"stream", "sql", "catalog", "engine", "delta", "formats", "io", "util"},
    "server": {"util"},
    "cli": {"server", "util"},
}
BANNED = re.compile(r"\b(strcpy|strcat|sprintf|strtok|atoi|gets)\s*\(")
RAW_ALLOC = re.compile(r"(?<![_\w])(malloc|calloc|realloc|free)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def strip_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return text


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    src = os.path.join(root, "src")
    problems = []
    files = 0
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            layer = rel.split(os.sep)[0]
            files += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for lineno, line in enumerate(text.splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if "/" not in target:
                    continue  # a header of the same folder
                target_layer = target.split("/")[0]
                if target_layer == "silt" or target_layer == layer:
                    continue
                if target_layer not in BELOW.get(layer, set()):
                    problems.append(f"{rel}:{lineno}: layer '{layer}' includes '{target}' from '{target_layer}'")
            code = strip_comments_and_strings(text)
            for lineno, line in enumerate(code.splitlines(), 1):
                if BANNED.search(line):
                    problems.append(f"{rel}:{lineno}: banned call: {line.strip()}")
                if layer != "util" and RAW_ALLOC.search(line):
                    problems.append(f"{rel}:{lineno}: raw allocation outside util/: {line.strip()}")
    for p in problems:
        print(p)
    print(f"{files - len(set(p.split(':')[0] for p in problems))} passed, "
          f"{len(set(p.split(':')[0] for p in problems))} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
