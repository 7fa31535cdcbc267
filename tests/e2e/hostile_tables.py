#!/usr/bin/env python3
"""The generated part of the hostile-table corpus (issue 15): tables that a
.case file cannot make (FIFOs, devices, folders and symlinks named as data
files, a symlink loop, a real Parquet file outside the table) and logs too
large to write by hand (a schema nested 3,000 deep, a JSON line of 100,000
nested arrays). tests/e2e/cases/hostile.case holds the hand-written ones.

    hostile_tables.py SILT_BIN WORK_DIR

Every table must give exactly its expected exit status and message, within
a time bound (a FIFO must not block the reader), never a crash or rows from
outside the table unless the decision says so (docs/decisions.md, "Special
files and symlinks": a symlinked file is followed, as Spark's local file
system does). Prints "N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys

SILT, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
P = '{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}'
LONG = '[{"name":"id","type":"long","nullable":true,"metadata":{}}]'


def md(fields=LONG, parts=()):
    return json.dumps({"metaData": {
        "id": "h", "format": {"provider": "parquet", "options": {}},
        "schemaString": '{"type":"struct","fields":%s}' % fields,
        "partitionColumns": list(parts), "configuration": {}, "createdTime": 1}})


def add(path, size=10):
    return json.dumps({"add": {"path": path, "partitionValues": {}, "size": size,
                               "modificationTime": 1, "dataChange": True}})


def table(name, *lines):
    t = os.path.join(WORK, name)
    os.makedirs(os.path.join(t, "_delta_log"))
    if lines:
        with open(os.path.join(t, "_delta_log", "%020d.json" % 0), "w") as f:
            f.write("\n".join(lines) + "\n")
    return t


def one_file(name, path):
    return table(name, P, md(), add(path))


def deep_schema(depth):
    inner = '"long"'
    for _ in range(depth):
        inner = '{"type":"struct","fields":[{"name":"x","type":%s,"nullable":true,"metadata":{}}]}' \
            % inner
    return '[{"name":"s","type":%s,"nullable":true,"metadata":{}}]' % inner


def build_cases(outside):
    """(name, table maker, command (None: SELECT *), exit, text that must be in the output)."""
    def fifo(t, n):
        os.mkfifo(os.path.join(t, n))

    def link(target):
        return lambda t, n: os.symlink(target(t) if callable(target) else target, os.path.join(t, n))

    return [
        ("a relative path with ..", lambda: one_file("dotdot", "../outside.parquet"), None, 1,
         'object key "../outside.parquet" has a "." or ".." segment that could escape the table root'),
        ("a %-encoded ..", lambda: one_file("encoded", "%2E%2E/outside.parquet"), None, 1,
         'object key "../outside.parquet" has a "." or ".." segment that could escape the table root'),
        # Absolute local paths are read as Delta reads them (a shallow clone's adds; the decision in
        # docs/maintenance.md, "Shallow clones and absolute paths"); a "." or ".." in them is not.
        ("an absolute path is read (the decision)", lambda: one_file("absolute", outside), None, 0,
         "|  7|"),
        ("a file: URI is read (the decision)", lambda: one_file("fileuri", "file:" + outside), None, 0,
         "|  7|"),
        ("an absolute path with ..",
         lambda: one_file("absdotdot", os.path.join(os.path.dirname(outside), "x", "..",
                                                    os.path.basename(outside))), None, 1,
         'has a "." or ".." segment that could escape the table root'),
        ("an s3:// URI", lambda: one_file("s3", "s3://bucket/x.parquet"), None, 1,
         'data file "s3://bucket/x.parquet" is outside the table folder on another store'),
        ("a file://host/ URI", lambda: one_file("filehost", "file://otherhost" + outside), None, 1,
         'is outside the table folder on another store'),
        ("a FIFO as data file", ("fifo", "f.parquet", fifo), None, 1,
         'f.parquet": it is not a regular file (a FIFO)'),
        ("a folder as data file", ("folder", "d.parquet", lambda t, n: os.mkdir(os.path.join(t, n))),
         None, 1, 'd.parquet": it is a folder'),
        ("a symlink to /dev/null as data file", ("devnull", "n.parquet", link("/dev/null")), None, 1,
         'n.parquet": it is not a regular file (a device)'),
        ("a symlink loop as data file",
         ("loop", "l.parquet", link(lambda t: os.path.join(t, "l.parquet"))), None, 1,
         'l.parquet": Too many levels of symbolic links'),
        ("a symlinked data file is followed (the decision)", ("symlink", "s.parquet", link(outside)),
         None, 0, "|  7|"),
        ("a data file that is not Parquet",
         ("notparquet", "x.parquet", lambda t, n: open(os.path.join(t, n), "w").write("hello")),
         None, 1, "file is too small to be Parquet (5 bytes)"),
        ("a missing data file", lambda: one_file("missing", "gone.parquet"), None, 1,
         'gone.parquet": No such file or directory'),
        ("a FIFO as the only commit",
         lambda: fifo_commit(), None, 1, '_delta_log/" holds no commits'),
        ("a schema nested 3,000 deep", lambda: table("deep", P, md(deep_schema(3000))), None, 1,
         "malformed schema JSON at byte"),
        ("a JSON line of 100,000 nested arrays",
         lambda: table("deepjson", P, md(), '{"add":' + "[" * 100000 + "]" * 100000 + "}"), None, 1,
         "at line 3, byte 1326: malformed JSON"),
        ("a torn last line", lambda: table("torn", P, md(), '{"add": {"path": '), None, 1,
         "malformed JSON"),
        ("a commit missing in the middle", lambda: gap(), None, 1,
         'commit 1 of the table is missing: versions 0 to 2 need "_delta_log/00000000000000000001.json"'),
        ("reader version 99",
         lambda: table("reader99", '{"protocol":{"minReaderVersion":99,"minWriterVersion":2}}', md()),
         None, 1, "the table needs Delta reader version 99; silt reads versions 1 to 3"),
        ("an unknown reader feature",
         lambda: table("feature", '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,'
                       '"readerFeatures":["futureFeature"],"writerFeatures":["futureFeature"]}}', md()),
         None, 1, 'the table needs reader feature "futureFeature", which silt does not support'),
        ("no protocol action", lambda: table("noprotocol", md()), None, 1,
         "the log of version 0 has no protocol action"),
        ("a negative add.size", lambda: table("negsize", P, md(), add("a.parquet", -1)), "info", 1,
         'field "add.size" is negative'),
        ("an add without path",
         lambda: table("nopath", P, md(), '{"add":{"partitionValues":{},"size":1,'
                       '"modificationTime":1,"dataChange":true}}'), "info", 1,
         'field "add.path" is missing'),
        ("an unknown data type",
         lambda: table("badtype", P, md('[{"name":"id","type":"wibble","nullable":true,"metadata":{}}]')),
         None, 1, 'data type "wibble" is not a Delta type'),
        ("a schemaString that is not JSON", lambda: bad_schema_string(), None, 1,
         "malformed schema JSON at byte 0"),
        ("partitionColumns naming a column twice",
         lambda: table("duppart", P, md('[{"name":"p","type":"string","nullable":true,"metadata":{}}]',
                                        ["p", "P"])), None, 1,
         '[DELTA_DUPLICATE_COLUMNS_FOUND] Found duplicate column(s) in the partition columns: "P"'),
        ("_last_checkpoint naming a missing checkpoint", lambda: last_checkpoint_to_nothing(),
         "info", 0, "checkpoint: none (replayed from version 0)"),
        ("a JSON \\u0000 in add.path does not name another file", lambda: json_nul(outside), None, 1,
         "No such file or directory"),
    ]


def fifo_commit():
    t = table("fifocommit")
    os.mkfifo(os.path.join(t, "_delta_log", "%020d.json" % 0))
    return t


def gap():
    t = table("gap", P, md())
    with open(os.path.join(t, "_delta_log", "%020d.json" % 2), "w") as f:
        f.write(add("a.parquet") + "\n")
    return t


def bad_schema_string():
    return table("badschema", P, json.dumps({"metaData": {
        "id": "h", "format": {"provider": "parquet", "options": {}}, "schemaString": "not json",
        "partitionColumns": [], "configuration": {}, "createdTime": 1}}))


def last_checkpoint_to_nothing():
    t = table("lastcp", P, md())
    with open(os.path.join(t, "_delta_log", "_last_checkpoint"), "w") as f:
        f.write('{"version":5,"size":3}')
    return t


def json_nul(outside):
    t = one_file("jsonnul", "a\\u0000b.parquet")
    shutil.copy(outside, os.path.join(t, "a"))  # what a truncated path would read
    return t


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    src = os.path.join(WORK, "source")
    subprocess.run([SILT, "sql", "CREATE TABLE delta.`%s` USING DELTA AS SELECT 7L AS id" % src],
                   check=True, capture_output=True)
    outside = os.path.join(WORK, "outside.parquet")
    shutil.copy(os.path.join(src, [n for n in os.listdir(src) if n.endswith(".parquet")][0]),
                outside)
    passed = failed = 0
    for name, maker, command, want_rc, want_text in build_cases(outside):
        if isinstance(maker, tuple):
            folder, file_name, make_file = maker
            t = one_file(folder, file_name)
            make_file(t, file_name)
        else:
            t = maker()
        args = ["table", "info", t] if command == "info" else \
            ["sql", "SELECT * FROM delta.`%s`" % t]
        try:
            proc = subprocess.run([SILT] + args, capture_output=True, text=True, timeout=60)
            got = (proc.returncode, proc.stdout + proc.stderr)
        except subprocess.TimeoutExpired:
            got = (None, "timed out: the reader blocked")
        ok = got[0] == want_rc and want_text in got[1]
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: exit %s, want %d with %r:\n  %s" % (name, got[0], want_rc, want_text,
                                                              got[1].strip()[:500]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
