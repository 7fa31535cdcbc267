#!/usr/bin/env python3
"""`pip install ./python` works (scikit-build-core, the abi3 extension).

Installs the package into a fresh target folder with the peers' venv's pip
(scikit-build-core is there; no build isolation, so no network), linking the
libsilt.a the repository's build made (docs/python.md: without that define
pip compiles the engine itself), then imports it from there in a clean
process and runs a statement. Skipped (77) without the peers' venv.
"""
import glob
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get("SILT_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.environ.get("SILT_BIN")


def main():
    venv_python = os.path.join(SRC, ".peers", "venv", "bin", "python")
    if not os.path.exists(venv_python) or not BIN:
        print("skip: needs the peers' venv and SILT_BIN")
        return 77
    if subprocess.run([venv_python, "-c", "import scikit_build_core"]).returncode != 0:
        print("skip: scikit-build-core is not in the peers' venv")
        return 77
    lib = os.path.join(os.path.dirname(BIN), "libsilt.a")
    if not os.path.exists(lib):
        print("FAIL: no %s next to the silt command" % lib)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "site")
        cmd = [venv_python, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
               "--disable-pip-version-check", "-q", "--target", target,
               "-C", "cmake.define.SILT_PREBUILT_LIB=" + lib,
               "-C", "build-dir=" + os.path.join(tmp, "build"),
               os.path.join(SRC, "python")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            print("FAIL: pip install ./python")
            return 1
        ext = glob.glob(os.path.join(target, "silt", "_silt*.so"))
        if [os.path.basename(e) for e in ext] != ["_silt.abi3.so"]:
            print("FAIL: expected silt/_silt.abi3.so, found", ext)
            return 1
        wheel_tags = glob.glob(os.path.join(target, "silt-0.1.0.dist-info", "WHEEL"))
        tags = open(wheel_tags[0]).read() if wheel_tags else ""
        if "Tag: cp39-abi3-" not in tags:
            print("FAIL: the wheel is not tagged cp39-abi3:\n" + tags)
            return 1
        # The installed package, in a process that cannot see the build tree.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = target
        probe = ("import silt, sys; assert silt.__file__.startswith(sys.argv[1]), silt.__file__; "
                 "print(silt.connect().sql('SELECT sum(id) AS s FROM range(10)').fetchall()); "
                 "from silt.pyspark.sql import SparkSession; from silt.delta.tables import "
                 "DeltaTable; s = SparkSession.builder.getOrCreate(); "
                 "assert s.range(10).groupBy().sum('id').collect()[0][0] == 45")
        r = subprocess.run([venv_python, "-c", probe, target], capture_output=True, text=True,
                           env=env, cwd=tmp)
        if r.returncode != 0 or r.stdout.strip() != "[(45,)]":
            print(r.stdout, r.stderr)
            print("FAIL: the installed package does not run")
            return 1
    print("ok: pip install ./python, silt/_silt.abi3.so, cp39-abi3, runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
