#!/usr/bin/env python3
"""The shared library and `cmake --install` as a user of libsilt sees them.

  check_install.py exports BUILD_DIR   libsilt.so exports only silt_* symbols
                                        (nm -D --defined-only) and is versioned:
                                        libsilt.so -> libsilt.so.0 -> libsilt.so.0.1.0,
                                        SONAME libsilt.so.0
  check_install.py install BUILD_DIR   cmake --install into a temporary prefix, then
                                        a small C program is compiled with the flags
                                        `pkg-config --cflags --libs silt` gives and run
"""
import os
import re
import subprocess
import sys
import tempfile

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include <silt.h>

static int to_stdout(void *payload, const char *text, size_t len)
{
    (void)payload;
    return fwrite(text, 1, len, stdout) == len ? 0 : 1;
}

int main(void)
{
    silt_db *db = NULL;
    silt_conn *conn = NULL;
    silt_output_options out = SILT_OUTPUT_OPTIONS_INIT;
    int rc;
    if (silt_version_number() != SILT_VERSION_NUMBER)
        return 3;
    if (silt_db_open(&db, NULL, NULL) != SILT_OK || silt_conn_open(&conn, db) != SILT_OK)
        return 4;
    out.format = SILT_OUTPUT_CSV;
    rc = silt_conn_format(conn, "SELECT sum(id) AS s FROM range(10)", &out, to_stdout, NULL);
    if (rc == SILT_OK && silt_conn_exec(conn, "SELECT 1 / 0", NULL) != SILT_RUNTIME)
        rc = 5;
    if (rc == SILT_OK)
        printf("%s %s\n", silt_version(), silt_conn_error_class(conn));
    silt_conn_close(conn);
    silt_db_close(db);
    return rc;
}
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        fail("%s exited %d\n%s%s" % (" ".join(cmd), res.returncode, res.stdout, res.stderr))
    return res.stdout


def check_exports(lib_dir):
    lib = os.path.join(lib_dir, "libsilt.so")
    if os.readlink(lib) != "libsilt.so.0" or os.readlink(lib + ".0") != "libsilt.so.0.1.0":
        fail("%s is not libsilt.so -> libsilt.so.0 -> libsilt.so.0.1.0" % lib)
    if "(SONAME)             Library soname: [libsilt.so.0]" not in run(["readelf", "-d", lib]):
        fail("the SONAME of %s is not libsilt.so.0" % lib)
    names = [line.split()[-1] for line in run(["nm", "-D", "--defined-only", lib]).splitlines()
             if line.strip()]
    others = [n for n in names if not n.startswith("silt_")]
    if others:
        fail("libsilt.so exports %d symbols outside silt_*: %s" % (len(others), ", ".join(others[:20])))
    if len(names) < 40:
        fail("libsilt.so exports only %d symbols" % len(names))
    print("ok: %d exported symbols, all silt_*" % len(names))


def check_install(build_dir):
    with tempfile.TemporaryDirectory(prefix="silt-install-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        run(["cmake", "--install", build_dir, "--prefix", prefix])
        libdirs = [d for d in ("lib", "lib64", "lib/x86_64-linux-gnu")
                   if os.path.exists(os.path.join(prefix, d, "pkgconfig", "silt.pc"))]
        if not libdirs:
            fail("no silt.pc under " + prefix)
        lib_dir = os.path.join(prefix, libdirs[0])
        check_exports(lib_dir)
        for path in ("include/silt.h", "include/silt/sql.h", "bin/silt"):
            if not os.path.exists(os.path.join(prefix, path)):
                fail("cmake --install did not install " + path)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib_dir, "pkgconfig"))
        if run(["pkg-config", "--modversion", "silt"], env=env).strip() != "0.1.0":
            fail("pkg-config --modversion silt is not 0.1.0")
        flags = run(["pkg-config", "--cflags", "--libs", "silt"], env=env).split()
        if not any(f.startswith("-I") and os.path.samefile(f[2:], os.path.join(prefix, "include"))
                   for f in flags):
            fail("pkg-config --cflags does not point into the prefix: %s" % flags)
        src = os.path.join(tmp, "hello.c")
        exe = os.path.join(tmp, "hello")
        with open(src, "w") as f:
            f.write(PROGRAM)
        run(["cc", "-std=c99", "-Wall", "-Werror", src, "-o", exe] + flags)
        out = run([exe], env=dict(os.environ, LD_LIBRARY_PATH=lib_dir))
        if out != "s\n45\n0.1.0 DIVIDE_BY_ZERO\n":
            fail("the program printed %r" % out)
        needed = run(["readelf", "-d", exe])
        if not re.search(r"\(NEEDED\).*\[libsilt\.so\.0\]", needed):
            fail("the program does not need libsilt.so.0:\n" + needed)
        print("ok: installed, built with pkg-config and ran against " + lib_dir)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("exports", "install"):
        print(__doc__)
        return 2
    build_dir = os.path.abspath(sys.argv[2])
    if sys.argv[1] == "exports":
        check_exports(build_dir)
    else:
        check_install(build_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
