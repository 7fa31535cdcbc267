#!/usr/bin/env python3
"""Every global symbol of libsilt.a starts with its module's prefix.

Usage: check-symbol-prefixes.py LIBSILT_A [SOURCE_DIR]

libsilt.a is linked into programs and extensions (a Python module, say)
next to other libraries, where a global named `p_expr` or `hash_u64` can
clash. So a global symbol (what `nm -g --defined-only` lists) must start
with a prefix of the layer its object comes from (PREFIXES below, the rule
of docs/decisions.md, "Global symbols carry their module prefix"); what is
used in one file only is static. `silt_` is the public API's and may stand
in any layer.

An object is placed in its layer by its source file's name (the archive
keeps only that); a name found in several layers may use the prefixes of
any of them. Prints each symbol without an allowed prefix and
"N passed, M failed" (symbols); exits 1 on any failure.
"""
import os
import subprocess
import sys

PREFIXES = {
    "util": ["arena_", "buf_", "err_", "hashmap_", "mem_", "time_", "tpool_", "util_"],
    "io": ["io_"],
    "formats": ["col_", "pq_", "pqw_", "csv_", "json_", "text_", "arrow_"],
    "delta": ["delta_", "dlog_", "dwrite_", "ddv_", "dproto_", "dstats_"],
    "engine": ["engine_", "expr_", "vec_"],
    "catalog": ["catalog_"],
    "sql": ["sql_"],
    "stream": ["stream_"],
    "api": ["api_"],
    "server": ["srv_"],
}
PUBLIC = "silt_"


def layers_of_sources(src):
    """source file name (vec.c) -> the layers that have a file of that name."""
    found = {}
    for dirpath, _, names in os.walk(src):
        layer = os.path.relpath(dirpath, src).split(os.sep)[0]
        for name in names:
            if name.endswith(".c"):
                found.setdefault(name, set()).add(layer)
    return found


def globals_by_member(lib):
    """[(archive member, symbol)] of the defined global symbols."""
    run = subprocess.run(["nm", "-g", "--defined-only", "-A", lib], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"nm failed on {lib}: {run.stderr.strip()}")
    out = []
    for line in run.stdout.splitlines():
        # libsilt.a:vec.c.o:0000000000000000 T vec_gather
        head, _, rest = line.rpartition(":")
        parts = rest.split()
        if len(parts) < 2:
            continue
        member = head.split(":")[-1]
        out.append((member, parts[-1]))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    lib = sys.argv[1]
    source_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    sources = layers_of_sources(os.path.join(source_dir, "src"))
    symbols = globals_by_member(lib)
    failed = []
    for member, sym in symbols:
        name = member[:-2] if member.endswith(".o") else member
        layers = sources.get(name)
        if not layers:
            failed.append(f"{member}: {sym}: no source file {name} under src/")
            continue
        allowed = [PUBLIC] + [p for l in sorted(layers) for p in PREFIXES.get(l, [])]
        if not sym.startswith(tuple(allowed)):
            failed.append(f"{member}: {sym}: global without a prefix of "
                          f"{'/'.join(sorted(layers))} ({', '.join(allowed)})")
    for line in failed:
        print(line)
    print(f"{len(symbols) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not symbols else 0


if __name__ == "__main__":
    sys.exit(main())
