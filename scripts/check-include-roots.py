#!/usr/bin/env python3
"""Proves that a layer's compile refuses an upward include (cmake/SiltLayer.cmake).

Usage: check-include-roots.py BUILD_DIR [SOURCE_DIR]

For every layer of scripts/check-source.py that has a source in the build's
compile_commands.json (and for the command, src/cli/), it takes the compiler
and flags CMake uses for one of that layer's sources and compiles, with
-fsyntax-only, a small file that includes one header of each layer of src/:
the include must compile when check-source.py allows it and must fail when it
does not. It also checks that the build's include root of each layer,
layer-roots/<layer>/, links exactly the allowed layers, so the CMake rules and
check-source.py cannot drift apart.

Prints one line per layer and "N passed, M failed"; exits 1 on any failure.
"""
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile


def load_below(source_dir):
    path = os.path.join(source_dir, "scripts", "check-source.py")
    spec = importlib.util.spec_from_file_location("check_source", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.BELOW


def one_header(src, layer):
    """A header of the layer, spelled as the sources spell it ("delta/scan.h")."""
    folder = os.path.join(src, layer)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".h"))
    return f"{layer}/{names[0]}" if names else None


def layer_commands(build_dir, src):
    """layer -> (argv, directory) of the first compile of a source in src/<layer>/."""
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    found = {}
    for e in entries:
        rel = os.path.relpath(os.path.realpath(e["file"]), os.path.realpath(src))
        if rel.startswith(".."):
            continue
        layer = rel.split(os.sep)[0]
        if layer in found:
            continue
        argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        found[layer] = (argv, e["directory"], e["file"])
    return found


def syntax_argv(argv, source, probe):
    """The compile of `source` turned into a syntax-only compile of `probe`."""
    out = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD") or arg == source:
            continue
        out.append(arg)
    return out + ["-fsyntax-only", probe]


def compiles(argv, directory, source, header, tmp):
    probe = os.path.join(tmp, "probe.c")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(f'#include "{header}"\nint probe_unused(void);\n')
    run = subprocess.run(syntax_argv(argv, source, probe), cwd=directory,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return run.returncode == 0, run.stdout


def check_root(build_dir, layer, allowed, problems):
    root = os.path.join(build_dir, "layer-roots", layer)
    if not os.path.isdir(root):
        problems.append(f"{layer}: no include root {root}")
        return
    links = set(os.listdir(root))
    if links != allowed:
        problems.append(f"{layer}: include root links {sorted(links)}, "
                        f"check-source.py allows {sorted(allowed)}")


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    build_dir = sys.argv[1]
    source_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    src = os.path.join(source_dir, "src")
    below = load_below(source_dir)
    layers = sorted(n for n in os.listdir(src) if os.path.isdir(os.path.join(src, n)))
    headers = {l: one_header(src, l) for l in layers}
    commands = layer_commands(build_dir, src)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for layer in layers:
            if layer not in commands or layer not in below:
                continue
            argv, directory, source = commands[layer]
            allowed = ({layer} | below[layer]) & set(layers)
            problems = []
            check_root(build_dir, layer, allowed, problems)
            for target in layers:
                header = headers[target]
                if header is None:
                    continue
                ok, output = compiles(argv, directory, source, header, tmp)
                if target in allowed and not ok:
                    problems.append(f'{layer}: allowed include "{header}" does not compile:\n'
                                    + output.strip())
                elif target not in allowed and ok:
                    problems.append(f'{layer}: upward include "{header}" compiles')
            if problems:
                failed += 1
                print("\n".join(problems))
            else:
                passed += 1
                refused = sorted(set(layers) - allowed)
                print(f"{layer}: sees {sorted(allowed)}; refused {refused}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
