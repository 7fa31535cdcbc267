#!/usr/bin/env python3
"""End-to-end tests of streaming (docs/streaming.md), driven through the `silt` command.

    stream_flows.py SILT_BIN WORK_DIR

The tutorials' flows: a folder of CSV files streamed into a streaming table
(200 rows, then a file of 100 more, maxFilesPerTrigger 1: two batches,
counts 200 then 300), the txn actions of the sink, a replayed batch that
writes nothing, the console sink, `silt stream` triggers and progress, and
the refusals (a second stream on one checkpoint, a checkpoint of another
query, a batch query over STREAM, options that do not apply).
Prints one line per check and "N passed, M failed".
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

SILT = sys.argv[1]
WORK = sys.argv[2]
PASSED, FAILED = 0, 0


def check(name, ok, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print(f"ok   {name}")
    else:
        FAILED += 1
        print(f"FAIL {name} {detail}")


def silt(*args, ok=True):
    run = subprocess.run([SILT, *args], capture_output=True, text=True, timeout=120)
    if ok and run.returncode != 0:
        print(run.stdout, run.stderr)
    return run


def scalar(sql):
    run = silt("sql", "--format", "csv", sql)
    lines = run.stdout.strip().splitlines()
    return lines[1] if len(lines) > 1 else None


def write_csv(path, first, n, mtime=None):
    with open(path, "w") as f:
        f.write("id,name\n")
        for i in range(first, first + n):
            f.write(f"{i},n{i}\n")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def log_actions(table):
    out = []
    log = os.path.join(table, "_delta_log")
    for name in sorted(os.listdir(log)):
        if name.endswith(".json"):
            with open(os.path.join(log, name)) as f:
                out.append([json.loads(line) for line in f if line.strip()])
    return out


SCHEMA = "schema => 'id INT, name STRING', header => true"


def csv_folder_flow():
    src, table = os.path.join(WORK, "in"), os.path.join(WORK, "t")
    os.makedirs(src)
    write_csv(os.path.join(src, "a.csv"), 0, 200, mtime=1000)
    open(os.path.join(src, "_ignored.csv"), "w").write("id,name\n-1,x\n")
    open(os.path.join(src, ".hidden.csv"), "w").write("id,name\n-2,y\n")
    create = (f"CREATE STREAMING TABLE delta.`{table}` AS SELECT * FROM STREAM "
              f"read_files('{src}', format => 'csv', {SCHEMA}, maxFilesPerTrigger => 1)")
    run = silt("sql", create)
    check("create streaming table", run.returncode == 0, run.stderr)
    check("first count is 200", scalar(f"SELECT count(*) FROM delta.`{table}`") == "200")
    write_csv(os.path.join(src, "b.csv"), 200, 100, mtime=2000)
    run = silt("sql", f"REFRESH STREAMING TABLE delta.`{table}`")
    check("refresh streaming table", run.returncode == 0, run.stderr)
    check("second count is 300", scalar(f"SELECT count(*) FROM delta.`{table}`") == "300")
    check("rows exactly once",
          scalar(f"SELECT count(DISTINCT id) FROM delta.`{table}` WHERE id >= 0") == "300")
    ckpt = os.path.join(table, "_silt_stream", "checkpoint")
    check("two batches committed", sorted(os.listdir(os.path.join(ckpt, "commits"))) == ["0", "1"])
    query_id = json.load(open(os.path.join(ckpt, "metadata")))["id"]
    txns = [a["txn"] for commit in log_actions(table) for a in commit if "txn" in a]
    check("txn actions carry the query id and batch ids",
          [(t["appId"], t["version"]) for t in txns] == [(query_id, 0), (query_id, 1)], str(txns))
    # A crash after the sink's commit and before commits/1: the batch runs again, writes nothing.
    os.remove(os.path.join(ckpt, "commits", "1"))
    n_commits = len(log_actions(table))
    run = silt("sql", f"REFRESH STREAMING TABLE delta.`{table}`")
    check("replayed batch succeeds", run.returncode == 0, run.stderr)
    check("replayed batch writes nothing", len(log_actions(table)) == n_commits and
          scalar(f"SELECT count(*) FROM delta.`{table}`") == "300")
    check("replayed batch is committed again", os.path.exists(os.path.join(ckpt, "commits", "1")))
    run = silt("sql", create, ok=False)
    check("CREATE of an existing streaming table is refused",
          run.returncode == 1 and "TABLE_OR_VIEW_ALREADY_EXISTS" in run.stderr, run.stderr)
    run = silt("sql", create.replace("CREATE STREAMING", "CREATE OR REFRESH STREAMING"))
    check("CREATE OR REFRESH of an existing streaming table", run.returncode == 0, run.stderr)
    run = silt("sql", f"SELECT * FROM STREAM read_files('{src}')", ok=False)
    check("a batch query over STREAM is refused",
          run.returncode == 1 and "writeStream.start()" in run.stderr, run.stderr)
    return src, table


def three_files_three_batches():
    src, table = os.path.join(WORK, "in3"), os.path.join(WORK, "t3")
    os.makedirs(src)
    for k in range(3):
        write_csv(os.path.join(src, f"f{k}.csv"), k * 10, 10, mtime=1000 + (2 - k))
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "c3"),
               f"SELECT * FROM STREAM read_files('{src}', {SCHEMA}, maxFilesPerTrigger => 1)")
    check("availableNow: one batch per file", run.stdout.count("Batch: ") == 3, run.stdout)
    # modification-time order: f2 is the oldest file
    first = run.stdout.split("Batch: 1")[0]
    check("files taken in modification-time order", "| 20|" in first and "|  0|" not in first,
          first)
    check("a progress line per batch", run.stderr.count("input rows") == 3, run.stderr)
    run = silt("stream", "--trigger", "once", "--checkpoint", os.path.join(WORK, "c3b"),
               "--progress", "json",
               f"SELECT * FROM STREAM read_files('{src}', {SCHEMA}, maxFilesPerTrigger => 1)")
    prog = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    check("once: all files in one batch", run.stdout.count("Batch: ") == 1 and len(prog) == 1 and
          prog[0]["numInputRows"] == 30, run.stderr)
    check("progress JSON has Spark's fields",
          prog and {"id", "runId", "batchId", "numInputRows", "sources", "sink", "durationMs"} <=
          set(prog[0]), str(prog))
    # the console output of a batch, exactly as Spark prints it
    run = silt("stream", "--trigger", "once",
               f"SELECT id FROM STREAM read_files('{src}', {SCHEMA}) WHERE id = 5")
    check("console sink output", run.stdout == "-------------------------------------------\n"
          "Batch: 0\n-------------------------------------------\n+---+\n| id|\n+---+\n"
          "|  5|\n+---+\n\n", repr(run.stdout))
    # INSERT INTO a table with a checkpoint; the same checkpoint for another query is refused
    table_sql = f"delta.`{table}`"
    silt("sql", f"CREATE TABLE {table_sql} (id INT, name STRING) USING delta")
    ckpt = os.path.join(WORK, "c3i")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt,
               f"INSERT INTO {table_sql} SELECT * FROM STREAM read_files('{src}', {SCHEMA})")
    check("INSERT INTO stream", run.returncode == 0 and
          scalar(f"SELECT count(*) FROM {table_sql}") == "30", run.stderr)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, ok=False,
               *[f"SELECT * FROM STREAM read_files('{src}', {SCHEMA})"])
    check("a checkpoint of another query (another sink) is refused",
          run.returncode == 1 and "belongs to another query" in run.stderr, run.stderr)
    other = os.path.join(WORK, "in3other")
    os.makedirs(other)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, ok=False,
               *[f"INSERT INTO {table_sql} SELECT * FROM STREAM read_files('{other}', {SCHEMA})"])
    check("a checkpoint of another query (another source, same sink) is refused",
          run.returncode == 1 and "belongs to another query" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "availableNow", ok=False,
               *[f"INSERT INTO {table_sql} SELECT * FROM STREAM read_files('{src}', {SCHEMA})"])
    check("INSERT INTO stream without a checkpoint is refused",
          run.returncode == 1 and "checkpointLocation must be specified" in run.stderr, run.stderr)
    return src


def continuous_stream(src):
    """A stream with the default trigger runs until SIGTERM; a second one on its checkpoint fails."""
    ckpt = os.path.join(WORK, "cc")
    stmt = f"SELECT * FROM STREAM read_files('{src}', {SCHEMA})"
    proc = subprocess.Popen([SILT, "stream", "--trigger", "200 ms", "--checkpoint", ckpt, stmt],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(os.path.join(ckpt, "commits", "0")):
        time.sleep(0.05)
    run = silt("stream", "--trigger", "once", "--checkpoint", ckpt, stmt, ok=False)
    check("a second stream on a running checkpoint is refused",
          run.returncode == 1 and "CONCURRENT_QUERY" in run.stderr, run.stderr)
    write_csv(os.path.join(src, "late.csv"), 100, 5)
    while time.time() < deadline and not os.path.exists(os.path.join(ckpt, "commits", "1")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    check("a running stream takes new files", "Batch: 1" in out and "|104|" in out, out)
    check("SIGTERM stops the stream cleanly", proc.returncode == 0, err)


def options_and_formats():
    src = os.path.join(WORK, "inj")
    os.makedirs(src)
    with open(os.path.join(src, "e.json"), "w") as f:
        f.write('{"device":"Dev1","status":"ok"}\n{"device":"Dev2","status":"error"}\n')
    run = silt("stream", "--trigger", "once",
               f"SELECT device FROM STREAM read_files('{src}', format => 'json', "
               "schema => 'device STRING, status STRING') WHERE status = 'error'")
    check("json folder source", "|  Dev2|" in run.stdout, run.stdout + run.stderr)
    bad = os.path.join(WORK, "bad")
    os.makedirs(bad)
    with open(os.path.join(bad, "x.csv"), "w") as f:
        f.write("id,name\n1,a\nnotanumber,b\n3,c\n")
    run = silt("stream", "--trigger", "once",
               f"SELECT count(*) AS n FROM (SELECT * FROM STREAM read_files('{bad}', {SCHEMA}, "
               "mode => 'FAILFAST'))", ok=False)
    check("FAILFAST on a malformed row", run.returncode == 1, run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once",
               f"SELECT id FROM STREAM read_files('{bad}', {SCHEMA}, mode => 'DROPMALFORMED')")
    check("DROPMALFORMED drops the malformed row",
          "|  1|" in run.stdout and "|  3|" in run.stdout and "NULL" not in run.stdout,
          run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM read_files('{bad}', {SCHEMA}, latestFirst => true)"])
    check("an unsupported file-source option is refused by name",
          run.returncode == 1 and "latestFirst" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM read_files('{bad}', {SCHEMA}, maxFilesPerTrigger => 0)"])
    check("maxFilesPerTrigger 0 is refused", run.returncode == 1 and
          "maxFilesPerTrigger" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "sometimes", "SELECT 1", ok=False)
    check("a trigger that is not one is refused", run.returncode == 1 and "trigger" in run.stderr,
          run.stderr)
    run = silt("stream", "--trigger", "once", "--output-mode", "complete", ok=False,
               *[f"SELECT * FROM STREAM read_files('{bad}', {SCHEMA})"])
    check("complete mode without aggregation is refused",
          run.returncode == 1 and "Complete output mode not supported" in run.stderr, run.stderr)


def delta_source_flow():
    """The Delta source: snapshot then new commits, removes by the options, startingVersion."""
    src = os.path.join(WORK, "dsrc")
    ref = f"delta.`{src}`"
    silt("sql", f"CREATE TABLE {ref} (id INT, name STRING) USING delta")
    silt("sql", f"INSERT INTO {ref} VALUES (1, 'a'), (2, 'b')")
    silt("sql", f"INSERT INTO {ref} VALUES (3, 'c')")
    ckpt = os.path.join(WORK, "cd1")
    stmt = f"SELECT * FROM STREAM {ref} WITH (maxFilesPerTrigger = 1)"
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    check("Delta source, maxFilesPerTrigger 1: one batch per file",
          run.stdout.count("Batch: ") == 2 and "|  3|   c|" in run.stdout.split("Batch: 1")[1],
          run.stdout + run.stderr)
    silt("sql", f"INSERT INTO {ref} VALUES (4, 'd')")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    check("Delta source follows a new commit only",
          run.stdout.count("Batch: ") == 1 and "Batch: 2" in run.stdout and
          "|  4|   d|" in run.stdout and "|  1|" not in run.stdout, run.stdout + run.stderr)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd4"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 3)")
    check("startingVersion: no snapshot, changes from that version on",
          run.returncode == 0 and "|  4|   d|" in run.stdout and "|  1|" not in run.stdout,
          run.stdout + run.stderr)
    silt("sql", f"UPDATE {ref} SET name = 'z' WHERE id = 3")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt, ok=False)
    check("an UPDATE in the source fails with DELTA_SOURCE_TABLE_IGNORE_CHANGES",
          run.returncode == 1 and "DELTA_SOURCE_TABLE_IGNORE_CHANGES" in run.stderr and
          "version 4" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd2"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 4, ignoreChanges = true)")
    check("ignoreChanges across an UPDATE re-emits the rewritten file's rows",
          run.returncode == 0 and "|  3|   z|" in run.stdout and "|  4|" not in run.stdout,
          run.stdout + run.stderr)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd3"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 4, skipChangeCommits = true)")
    check("skipChangeCommits skips the UPDATE commit",
          run.returncode == 0 and "|  3|" not in run.stdout, run.stdout + run.stderr)
    silt("sql", f"DELETE FROM {ref} WHERE id = 4")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd5"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 5)", ok=False)
    check("a DELETE of a whole file fails with DELTA_SOURCE_IGNORE_DELETE",
          run.returncode == 1 and "DELTA_SOURCE_IGNORE_DELETE" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd6"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 5, ignoreDeletes = true)")
    check("ignoreDeletes passes a DELETE of a whole file", run.returncode == 0, run.stderr)
    silt("sql", f"DELETE FROM {ref} WHERE id = 1")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", os.path.join(WORK, "cd7"),
               f"SELECT * FROM STREAM {ref} WITH (startingVersion = 6, ignoreDeletes = true)",
               ok=False)
    check("ignoreDeletes does not cover a DELETE that rewrites a file",
          run.returncode == 1 and "DELTA_SOURCE_TABLE_IGNORE_CHANGES" in run.stderr, run.stderr)
    # a streaming table fed by the Delta source, with the sink's txn actions
    out = os.path.join(WORK, "dout")
    run = silt("sql", f"CREATE STREAMING TABLE delta.`{out}` AS SELECT id, name FROM STREAM "
               f"{ref} WITH (startingVersion = 0, maxFilesPerTrigger = 1, skipChangeCommits = true)")
    check("a streaming table from a Delta source", run.returncode == 0 and
          scalar(f"SELECT count(*) FROM delta.`{out}`") == "4", run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM {ref} WITH (startingVersion = -1)"])
    check("a negative startingVersion is refused", run.returncode == 1 and
          "startingVersion" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM {ref} WITH (ignoreChanges = true, "
                 "skipChangeCommits = true)"])
    check("ignoreChanges with skipChangeCommits is refused", run.returncode == 1, run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM {ref} WITH (readChangeFeed = true, startingVersion = 1)"])
    check("readChangeFeed on a table without the change data feed fails with Delta's error",
          run.returncode == 1 and "DELTA_MISSING_CHANGE_DATA" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM {ref} WITH (readChangeFeed = true, "
                 "skipChangeCommits = true)"])
    check("readChangeFeed with skipChangeCommits is refused",
          run.returncode == 1 and "skipChangeCommits" in run.stderr, run.stderr)
    cdf = os.path.join(WORK, "dcdf")
    cref = f"delta.`{cdf}`"
    silt("sql", f"CREATE TABLE {cref} (id INT, name STRING) USING delta "
         "TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    silt("sql", f"INSERT INTO {cref} VALUES (1, 'a'), (2, 'b')")
    cck = os.path.join(WORK, "cdfck")
    cstmt = (f"SELECT id, name, _change_type, _commit_version FROM STREAM {cref} "
             "WITH (readChangeFeed = true)")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", cck, cstmt)
    check("readChangeFeed: the initial snapshot as inserts at its version",
          "|  1|   a|      insert|              1|" in run.stdout and
          "|  2|   b|      insert|              1|" in run.stdout, run.stdout + run.stderr)
    silt("sql", f"UPDATE {cref} SET name = 'z' WHERE id = 2")
    silt("sql", f"DELETE FROM {cref} WHERE id = 1")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", cck, cstmt)
    check("readChangeFeed: then the changes of each new commit, UPDATE and DELETE included",
          run.returncode == 0 and "Batch: 1" in run.stdout and "Batch: 2" not in run.stdout and
          "|  2|   b| update_preimage|              2|" in run.stdout and
          "|  2|   z|update_postimage|              2|" in run.stdout and
          "|  1|   a|          delete|              3|" in run.stdout and
          "insert" not in run.stdout, run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM {ref} WITH (excludeRegex = 'x')"])
    check("an unknown Delta source option is refused by name",
          run.returncode == 1 and "excludeRegex" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM delta.`{os.path.join(WORK, 'nope')}`"])
    check("a missing source table is refused", run.returncode == 1, run.stderr)

def catalog_streaming_table():
    """CREATE STREAMING TABLE by catalog name, with columns, PARTITIONED BY and TBLPROPERTIES."""
    wh, src = os.path.join(WORK, "wh"), os.path.join(WORK, "inc")
    os.makedirs(src)
    write_csv(os.path.join(src, "a.csv"), 0, 3, mtime=1000)
    w = ["--warehouse", wh, "--format", "csv"]
    run = silt("sql", *w, "CREATE STREAMING TABLE trips (id INT, name STRING) PARTITIONED BY "
               "(name) TBLPROPERTIES ('delta.appendOnly' = 'true') AS SELECT * FROM STREAM "
               f"read_files('{src}', {SCHEMA})")
    check("catalog streaming table with columns, PARTITIONED BY, TBLPROPERTIES",
          run.returncode == 0, run.stderr)
    write_csv(os.path.join(src, "b.csv"), 3, 2, mtime=2000)
    run = silt("sql", *w, "REFRESH STREAMING TABLE trips; SELECT count(*) FROM trips; "
               "DESCRIBE DETAIL trips; SHOW TBLPROPERTIES trips")
    check("REFRESH STREAMING TABLE by name: partitioned, its properties kept",
          run.returncode == 0 and "\n5\n" in run.stdout and ',"[""name""]",' in run.stdout and
          "delta.appendOnly,true" in run.stdout, run.stdout + run.stderr)
    run = silt("sql", *w, "CREATE STREAMING TABLE ids AS SELECT id FROM STREAM trips WITH "
               "(maxFilesPerTrigger = 1); SELECT count(*), count(DISTINCT id) FROM ids")
    check("a streaming table over a catalog table's stream (STREAM name WITH (...))",
          run.returncode == 0 and "\n5,5\n" in run.stdout, run.stdout + run.stderr)


def progress_lines(stderr):
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def recovery_and_limits():
    """Restarts (startOffset, torn checkpoint files), byte limits, modes, schema changes, SIGINT."""
    src, table = os.path.join(WORK, "inr"), os.path.join(WORK, "tr")
    os.makedirs(src)
    for k in range(4):
        write_csv(os.path.join(src, f"r{k}.csv"), k * 50, 50, mtime=1000 + k)
    # r0 and r1 fit in the limit, r1 and r2 do not; r2 and r3 do
    limit = sum(os.path.getsize(os.path.join(src, f"r{k}.csv")) for k in (2, 3))
    table_sql = f"delta.`{table}`"
    silt("sql", f"CREATE TABLE {table_sql} (id INT, name STRING) USING delta")
    ckpt = os.path.join(WORK, "cr")
    stmt = (f"INSERT INTO {table_sql} SELECT * FROM STREAM read_files('{src}', {SCHEMA}, "
            f"maxBytesPerTrigger => '{limit}b')")
    run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--checkpoint", ckpt,
               stmt)
    prog = progress_lines(run.stderr)
    check("read_files maxBytesPerTrigger: two files of the size a batch",
          [p["numInputRows"] for p in prog] == [100, 100], run.stderr)
    check("progress: startOffset of a batch is the previous batch's endOffset",
          len(prog) == 2 and prog[0]["sources"][0]["startOffset"] is None and
          prog[1]["sources"][0]["startOffset"] == prog[0]["sources"][0]["endOffset"], str(prog))
    write_csv(os.path.join(src, "r4.csv"), 200, 50, mtime=2000)
    run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--checkpoint", ckpt,
               stmt)
    prog2 = progress_lines(run.stderr)
    check("progress after a restart: startOffset is the last committed endOffset (Spark's)",
          len(prog2) == 1 and prog2[0]["batchId"] == 2 and
          prog2[0]["sources"][0]["startOffset"] == {"logOffset": 1} and
          prog2[0]["sources"][0]["endOffset"] == {"logOffset": 2}, run.stderr)
    # a machine crash may leave commits/N empty (it is written without a sync): not a commit
    n_log = len(log_actions(table))
    open(os.path.join(ckpt, "commits", "2"), "w").close()
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    check("an empty commits/N is not a commit: the batch runs again and writes nothing",
          run.returncode == 0 and len(log_actions(table)) == n_log and
          open(os.path.join(ckpt, "commits", "2")).read().startswith("v1\n") and
          scalar(f"SELECT count(*) FROM {table_sql}") == "250", run.stderr)
    # offsets/N out and sources/0/N not (a crash between the two): the batch picks its files
    write_csv(os.path.join(src, "r5.csv"), 250, 50, mtime=3000)
    with open(os.path.join(ckpt, "offsets", "3"), "w") as f:
        f.write('v1\n{"batchWatermarkMs":0,"batchTimestampMs":1,"conf":{}}\n{"logOffset":3}\n')
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    check("offsets/N without sources/0/N: the batch takes the new files, once",
          run.returncode == 0 and os.path.exists(os.path.join(ckpt, "sources", "0", "3")) and
          scalar(f"SELECT count(*) FROM {table_sql}") == "300" and
          scalar(f"SELECT count(DISTINCT id) FROM {table_sql}") == "300", run.stderr)
    # PERMISSIVE (the default): the malformed field is null, the row stays, as the batch reader
    bad = os.path.join(WORK, "badp")
    os.makedirs(bad)
    with open(os.path.join(bad, "x.csv"), "w") as f:
        f.write("id,name\n1,a\nnotanumber,b\n3,c\n")
    for mode in ("PERMISSIVE", "DROPMALFORMED"):
        run = silt("stream", "--trigger", "once", f"SELECT * FROM STREAM read_files('{bad}', "
                   f"format => 'csv', {SCHEMA}, mode => '{mode}')")
        batch = silt("sql", f"SELECT * FROM read_files('{bad}', format => 'csv', {SCHEMA}, "
                     f"mode => '{mode}')")
        want = batch.stdout.strip().splitlines()
        got = run.stdout.strip().splitlines()[3:]
        check(f"{mode}: the stream's rows are the batch reader's", got == want and
              len(want) == (7 if mode == "PERMISSIVE" else 6), repr(got) + repr(want))
    # the Delta source: maxBytesPerTrigger, and a schema change of the source stops the stream
    dsrc = os.path.join(WORK, "dsb")
    ref = f"delta.`{dsrc}`"
    silt("sql", f"CREATE TABLE {ref} (id INT, name STRING) USING delta")
    for k in range(3):
        silt("sql", f"INSERT INTO {ref} VALUES ({k}, 'x{k}')")
    run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--checkpoint",
               os.path.join(WORK, "cdb"), f"SELECT * FROM STREAM {ref} WITH (maxBytesPerTrigger = 1)")
    check("Delta source maxBytesPerTrigger: at least one file, one file a batch here",
          [p["numInputRows"] for p in progress_lines(run.stderr)] == [1, 1, 1], run.stderr)
    # startingTimestamp: the first commit at or after it (the timestamp of version 2 here)
    hist = silt("sql", "--format", "csv", f"DESCRIBE HISTORY {ref}").stdout.splitlines()
    ts2 = [l.split(",")[1] for l in hist[1:] if l.split(",")[0] == "2"][0]
    ts2 = ts2.replace("T", " ").rstrip("Z")
    run = silt("stream", "--trigger", "once", f"SELECT id FROM STREAM {ref} WITH "
               f"(startingTimestamp = '{ts2}')")
    check("startingTimestamp: the commits from the one at that time on",
          "|  1|" in run.stdout and "|  2|" in run.stdout and "|  0|" not in run.stdout,
          run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT id FROM STREAM {ref} WITH (startingTimestamp = '2099-01-01 00:00:00')"])
    check("startingTimestamp after the latest commit fails with Delta's error",
          run.returncode == 1 and "DELTA_TIMESTAMP_GREATER_THAN_COMMIT" in run.stderr, run.stderr)
    # a schema change while the stream runs stops it (a restart reads the new schema, as Delta)
    sc_ckpt = os.path.join(WORK, "cds")
    proc = subprocess.Popen([SILT, "stream", "--checkpoint", sc_ckpt, f"SELECT * FROM STREAM {ref}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(os.path.join(sc_ckpt, "commits", "0")):
        time.sleep(0.05)
    silt("sql", f"ALTER TABLE {ref} ADD COLUMNS (extra STRING)")
    silt("sql", f"INSERT INTO {ref} VALUES (9, 'y', 'z')")
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    check("a schema change of the Delta source stops the running stream with Delta's error",
          proc.returncode == 1 and "DELTA_SCHEMA_CHANGED_WITH_VERSION" in err and
          "version 4" in err, err)
    # a windowed console stream without a checkpoint: its eviction batch needs none
    win = os.path.join(WORK, "winc")
    os.makedirs(win)
    with open(os.path.join(win, "a.csv"), "w") as f:
        f.write("2024-01-01 10:01:00,a\n2024-01-01 10:25:00,b\n")
    run = silt("stream", "--trigger", "availableNow", "--progress", "json", "--output-mode",
               "append", "SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM STREAM "
               f"read_files('{win}', format => 'csv', schema => 'ts TIMESTAMP, k STRING') "
               "WATERMARK ts DELAY OF INTERVAL 10 MINUTES GROUP BY window(ts, '10 minutes')")
    prog = progress_lines(run.stderr)
    check("a windowed console stream without a checkpoint runs its eviction batch",
          run.returncode == 0 and run.stdout.count("Batch: ") == 2 and
          "|{2024-01-01 10:00...|  1|" in run.stdout.split("Batch: 1")[1], run.stdout + run.stderr)
    check("progress JSON: eventTime and stateOperators as Spark's",
          len(prog) == 2 and prog[0]["eventTime"] == {
              "avg": "2024-01-01T10:13:00.000Z", "max": "2024-01-01T10:25:00.000Z",
              "min": "2024-01-01T10:01:00.000Z", "watermark": "1970-01-01T00:00:00.000Z"} and
          prog[1]["eventTime"] == {"watermark": "2024-01-01T10:15:00.000Z"} and
          prog[0]["stateOperators"][0]["numRowsTotal"] == 2 and
          prog[1]["stateOperators"][0]["numRowsRemoved"] == 1 and
          set(prog[0]["durationMs"]) == {"addBatch", "commitOffsets", "getBatch", "latestOffset",
                                         "triggerExecution", "walCommit"}, str(prog))
    # WATERMARK expr AS name: the source gains the column, the watermark tracks it
    wx = os.path.join(WORK, "winx")
    os.makedirs(wx)
    with open(os.path.join(wx, "a.csv"), "w") as f:
        f.write("2024-01-01 10:01:00,a\n2024-01-01 10:05:00,b\n2024-01-01 10:25:00,c\n")
    src_x = (f"STREAM read_files('{wx}', format => 'csv', schema => 's STRING, k STRING') "
             "WATERMARK to_timestamp(s) AS t DELAY OF INTERVAL 10 MINUTES")
    run = silt("stream", "--trigger", "availableNow", "--output-mode", "append",
               "--checkpoint", os.path.join(WORK, "cwx"),
               f"SELECT window(t, '10 minutes') AS w, count(*) AS n, max(k) AS mk FROM {src_x} "
               "GROUP BY window(t, '10 minutes')")
    check("WATERMARK expr AS name: windows over the named expression, evicted by its watermark",
          run.returncode == 0 and run.stdout.count("Batch: ") == 2 and
          "|{2024-01-01 10:00...|  2|  b|" in run.stdout.split("Batch: 1")[1], run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once", f"SELECT k, t FROM {src_x} WHERE k = 'c'")
    check("WATERMARK expr AS name: the named column is the source's",
          "|  c|2024-01-01 10:25:00|" in run.stdout, run.stdout + run.stderr)
    run = silt("stream", "--trigger", "once", ok=False,
               *[f"SELECT * FROM STREAM read_files('{wx}', format => 'csv', schema => "
                 "'s STRING, k STRING') WATERMARK k AS t DELAY OF INTERVAL 1 MINUTE"])
    check("WATERMARK expr AS name over a string is refused as Spark refuses it",
          run.returncode == 1 and "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE" in run.stderr, run.stderr)
    # SIGINT stops a running stream after the batch in flight, as SIGTERM does
    ick = os.path.join(WORK, "ci")
    proc = subprocess.Popen([SILT, "stream", "--checkpoint", ick,
                             f"SELECT * FROM STREAM read_files('{src}', {SCHEMA})"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(os.path.join(ick, "commits", "0")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    check("SIGINT stops the stream after its batch, exit 0",
          proc.returncode == 0 and out.count("Batch: ") == 1 and
          sorted(os.listdir(os.path.join(ick, "offsets"))) ==
          sorted(os.listdir(os.path.join(ick, "commits"))), err)


def rate_value_at(seconds, rps, ramp):
    """Spark's RateStreamProvider.valueAtSecond: rows made in the first `seconds` seconds."""
    delta = rps // (ramp + 1)
    if seconds <= ramp:
        return (seconds + 1) // 2 * delta * seconds if seconds % 2 == 1 \
            else seconds // 2 * delta * (seconds + 1)
    return rate_value_at(ramp, rps, ramp) + (seconds - ramp) * rps


def rate_rows(creation_ms, s0, s1, rps, ramp, parts):
    """Spark's rate source rows of a batch over seconds (s0, s1]: (timestamp in us, value),
    partition 0 first (RateStreamMicroBatchStream.planInputPartitions and its reader)."""
    start, end = rate_value_at(s0, rps, ramp), rate_value_at(s1, rps, ramp)
    if start == end:
        return []
    local = creation_ms + s0 * 1000
    per = (s1 - s0) * 1000 / (end - start)
    return [((int(math.floor((v - start) * per + 0.5)) + local) * 1000, v)
            for p in range(parts) for v in range(start + p, end, parts)]


def rate_source_flow():
    table, ckpt = os.path.join(WORK, "rate_t"), os.path.join(WORK, "rate_ck")
    silt("sql", f"CREATE TABLE delta.`{table}` (timestamp TIMESTAMP, value BIGINT) USING delta")
    stmt = (f"INSERT INTO delta.`{table}` SELECT * FROM STREAM "
            "rate(rowsPerSecond => 10, rampUpTime => '2s', numPartitions => 3)")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    start_file = os.path.join(ckpt, "sources", "0", "0")
    text = open(start_file).read() if os.path.exists(start_file) else ""
    check("rate: the first start records its start time as Spark does (sources/0/0)",
          run.returncode == 0 and text.startswith("v1\n") and text[3:].isdigit(),
          run.stderr + repr(text))
    check("rate: availableNow at the first start has no whole second yet: no batch",
          not os.path.exists(os.path.join(ckpt, "offsets")), run.stderr)
    # the stream started 4.5 seconds ago: the next availableNow run takes seconds (0, 4]
    creation = int(time.time() * 1000) - 4500
    open(start_file, "w").write(f"v1\n{creation}")
    run = silt("stream", "--trigger", "availableNow", "--checkpoint", ckpt, stmt)
    offsets = sorted(os.listdir(os.path.join(ckpt, "offsets"))) \
        if os.path.exists(os.path.join(ckpt, "offsets")) else []
    end = int(open(os.path.join(ckpt, "offsets", "0")).read().splitlines()[2]) if offsets else -1
    check("rate: availableNow runs one batch up to the second reached at its start",
          run.returncode == 0 and offsets == ["0"] and end in (4, 5), run.stderr + str(offsets))
    got = silt("sql", "--format", "csv",
               f"SELECT unix_micros(timestamp), value FROM delta.`{table}`").stdout
    got = [tuple(int(x) for x in line.split(",")) for line in got.strip().splitlines()[1:]]
    want = rate_rows(creation, 0, end, 10, 2, 3)
    check("rate: the batch's rows are Spark's (ramp-up, partitions, timestamps)",
          got == want and len(want) == rate_value_at(end, 10, 2), f"{got[:5]} vs {want[:5]}")
    # the console sink; a batch replayed after a crash gives the same rows
    cck = os.path.join(WORK, "rate_cck")
    query = "SELECT value, unix_millis(timestamp) AS ms FROM STREAM rate(rowsPerSecond => 3)"
    silt("stream", "--trigger", "once", "--checkpoint", cck, query)
    open(os.path.join(cck, "sources", "0", "0"), "w").write(f"v1\n{creation}")
    first = silt("stream", "--trigger", "once", "--checkpoint", cck, query).stdout
    os.remove(os.path.join(cck, "commits", "0"))
    again = silt("stream", "--trigger", "once", "--checkpoint", cck, query).stdout
    check("rate: a replayed batch gives the same rows", first == again and "Batch: 0" in first
          and f"|    0|{creation}|" in first, repr(first) + repr(again))
    for opts, needle in [("rowsPerSecond => 0", "'rowsPerSecond' must be positive"),
                         ("numPartitions => -2", "'numPartitions' must be positive"),
                         ("rampUpTime => '-3s'", "'rampUpTime' must not be negative"),
                         ("rampUpTime => '5 parsecs'", "Failed to parse time string"),
                         ("rampUpTime => '5w'", "Invalid suffix: \"w\""),
                         ("rowsPerSecond => 'ten'", "For input string: \"ten\""),
                         ("rowsPerSecond => 4611686018427387904, rampUpTime => '3s'",
                          "INCORRECT_RAMP_UP_RATE"),
                         ("useManualClock => true", "useManualClock")]:
        run = silt("stream", "--trigger", "once", f"SELECT * FROM STREAM rate({opts})", ok=False)
        check(f"rate: {opts} is refused", run.returncode == 1 and needle in run.stderr,
              run.stderr)
    run = silt("stream", "--trigger", "once", "SELECT * FROM STREAM rate(5)", ok=False)
    check("rate: a positional argument is refused", run.returncode == 1 and
          "named arguments" in run.stderr, run.stderr)

def csv_rows(sql):
    out = silt("sql", "--format", "csv", sql).stdout.strip().splitlines()
    return sorted(out[1:])


def aggregation_flow():
    src, agg = os.path.join(WORK, "agg_src"), os.path.join(WORK, "agg_t")
    s_sql, a_sql = f"delta.`{src}`", f"delta.`{agg}`"
    silt("sql", f"CREATE TABLE {s_sql} (id INT, route STRING, fare INT) USING delta")
    for values in ["(1,'a',10),(2,'b',20)", "(3,'a',5),(4,NULL,7)", "(5,'c',NULL)"]:
        silt("sql", f"INSERT INTO {s_sql} VALUES {values}")
    cols = "route, count(*) AS n, sum(fare) AS total, min(fare) AS lo, max(fare) AS hi, avg(fare)"
    batch_answer = f"SELECT {cols} FROM {s_sql} GROUP BY route"
    create = (f"CREATE STREAMING TABLE {a_sql} AS SELECT {cols} FROM STREAM {s_sql} "
              "WITH (maxFilesPerTrigger = 1) GROUP BY route")
    run = silt("sql", create)
    ckpt = os.path.join(agg, "_silt_stream", "checkpoint")
    commits = sorted(os.listdir(os.path.join(ckpt, "commits"))) if run.returncode == 0 else []
    check("aggregation: a Delta source group-by, one batch per commit", commits == ["0", "1", "2"],
          run.stderr + str(commits))
    check("aggregation: complete mode equals the batch answer after several batches",
          csv_rows(f"SELECT * FROM {a_sql}") == csv_rows(batch_answer),
          f"{csv_rows(f'SELECT * FROM {a_sql}')} vs {csv_rows(batch_answer)}")
    check("aggregation: the state of every batch is in the checkpoint",
          sorted(os.listdir(os.path.join(ckpt, "state"))) == ["0", "1", "2"])
    last = log_actions(agg)[-1]
    check("aggregation: the Delta sink replaces the table each batch, with its txn",
          any("remove" in a for a in last) and any("txn" in a for a in last), str(last)[:300])
    silt("sql", f"INSERT INTO {s_sql} VALUES (6,'a',1),(7,'d',3)")
    # a crash after the sink's commit and before commits/3: the replay writes nothing
    run = silt("sql", f"REFRESH STREAMING TABLE {a_sql}")
    os.remove(os.path.join(ckpt, "commits", "3"))
    n_log = len(log_actions(agg))
    run = silt("sql", f"REFRESH STREAMING TABLE {a_sql}")
    check("aggregation: a replayed batch writes nothing and the state goes on",
          run.returncode == 0 and len(log_actions(agg)) == n_log and
          os.path.exists(os.path.join(ckpt, "commits", "3")), run.stderr)
    silt("sql", f"INSERT INTO {s_sql} VALUES (8,'b',2)")
    run = silt("sql", f"REFRESH STREAMING TABLE {a_sql}")
    check("aggregation: after a restart the state carries on (equals the batch answer)",
          run.returncode == 0 and csv_rows(f"SELECT * FROM {a_sql}") == csv_rows(batch_answer),
          run.stderr + str(csv_rows(f"SELECT * FROM {a_sql}")))
    # INSERT INTO with --output-mode complete, a global aggregate
    tot = os.path.join(WORK, "agg_total")
    silt("sql", f"CREATE TABLE delta.`{tot}` (n BIGINT, total BIGINT) USING delta")
    run = silt("stream", "--trigger", "availableNow", "--output-mode", "complete", "--checkpoint",
               os.path.join(WORK, "agg_ck"), f"INSERT INTO delta.`{tot}` SELECT count(*), "
               f"sum(fare) FROM STREAM {s_sql} WITH (maxFilesPerTrigger = 2)")
    check("aggregation: INSERT INTO in complete mode (a global aggregate)",
          run.returncode == 0 and csv_rows(f"SELECT * FROM delta.`{tot}`") == ["8,48"],
          run.stderr + str(csv_rows(f"SELECT * FROM delta.`{tot}`")))
    # update mode on the console: the groups each batch touched
    run = silt("stream", "--trigger", "availableNow", "--output-mode", "update", "--checkpoint",
               os.path.join(WORK, "agg_upd"), "SELECT route, count(*) AS n, avg(fare) AS a "
               f"FROM STREAM {s_sql} WITH (maxFilesPerTrigger = 1) WHERE route IS NOT NULL "
               "GROUP BY route")
    batches = run.stdout.split("Batch: ")[1:]
    check("aggregation: update mode prints the touched groups with their new values",
          len(batches) == 5 and "|    a|  1|10.0|" in batches[0] and "|    b|" in batches[0]
          and "|    a|  2|7.5|" in batches[1] and "|    b|" not in batches[1]
          and "|    c|  1|NULL|" in batches[2] and "|    a|  3|5.333333333333333|" in batches[3]
          and "|    d|  1|              3.0|" in batches[3] and "|    b|  2|11.0|" in batches[4]
          and "|    a|" not in batches[4], run.stdout + run.stderr)
    q = f"FROM STREAM {s_sql} GROUP BY route"
    for mode, stmt, needle in [
            ("append", f"SELECT route, count(*) {q}",
             "[STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION] Invalid streaming output mode: "
             "append"),
            ("complete", f"SELECT route, count(DISTINCT id) {q}", "Distinct aggregations"),
            ("complete", f"SELECT route, count(*) {q} HAVING count(*) > 1", "HAVING"),
            ("complete", f"SELECT route, count(*) + 1 {q}", "expression over aggregates"),
            ("complete", f"SELECT route, count(*) {q} ORDER BY route", "ORDER BY"),
            ("complete", f"SELECT route, avg(CAST(fare AS DECIMAL(10,2))) {q}", "DECIMAL")]:
        run = silt("stream", "--trigger", "once", "--output-mode", mode, stmt, ok=False)
        check(f"aggregation: refused: {stmt[:60]}", run.returncode == 1 and needle in run.stderr,
              run.stderr)
    run = silt("stream", "--trigger", "once", "--output-mode", "update", "--checkpoint",
               os.path.join(WORK, "agg_u2"), f"INSERT INTO delta.`{tot}` SELECT count(*), "
               f"sum(fare) FROM STREAM {s_sql}", ok=False)
    check("aggregation: update mode into Delta is refused", run.returncode == 1 and
          "does not support Update output mode" in run.stderr, run.stderr)


WINDOW_FILES = [["2024-01-01 00:00:01,a", "2024-01-01 00:25:00,a"],
                ["2024-01-01 00:05:00,a", "2024-01-01 00:12:00,b"],
                ["2024-01-01 00:13:00,a", "2024-01-01 00:41:00,b", ",c"]]
# What Spark 4 emits for these three files (maxFilesPerTrigger 1, availableNow), by batch
WINDOW_SPARK = {
    "append": [[], [("00:00", 2, "a")], [], [("00:10", 2, "b"), ("00:20", 1, "a")]],
    "update": [[("00:00", 1, "a"), ("00:20", 1, "a")], [("00:00", 2, "a"), ("00:10", 1, "b")],
               [("00:10", 2, "b"), ("00:40", 1, "b")], []],
    "complete": [[("00:00", 1, "a"), ("00:20", 1, "a")],
                 [("00:00", 2, "a"), ("00:10", 1, "b"), ("00:20", 1, "a")],
                 [("00:00", 2, "a"), ("00:10", 2, "b"), ("00:20", 1, "a"), ("00:40", 1, "b")]],
}


def console_batches(text):
    """The rows of each console batch: (window start HH:MM, n, mk)."""
    out = []
    for part in text.split("Batch: ")[1:]:
        rows = []
        for line in part.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0].startswith("{2024"):
                rows.append((cells[0][12:17], int(cells[1]), cells[2]))
        out.append(sorted(rows))
    return out


def window_flow():
    """GROUP BY window(...) with a WATERMARK in the three modes, as Spark emits it."""
    src = os.path.join(WORK, "win_in")
    os.makedirs(src)
    for idx, rows in enumerate(WINDOW_FILES[:2]):
        path = os.path.join(src, "f%d.csv" % idx)
        with open(path, "w") as f:
            f.write("\n".join(rows) + "\n")
        os.utime(path, (1000 + idx, 1000 + idx))
    stmt = ("SELECT window(ts, '10 minutes') AS w, count(*) AS n, max(k) AS mk FROM STREAM "
            f"read_files('{src}', format => 'csv', schema => 'ts TIMESTAMP, k STRING', "
            "maxFilesPerTrigger => 1) WATERMARK ts DELAY OF INTERVAL 10 MINUTES "
            "GROUP BY window(ts, '10 minutes')")
    first = {}
    for mode in WINDOW_SPARK:
        run = silt("stream", "--trigger", "availableNow", "--output-mode", mode, "--checkpoint",
                   os.path.join(WORK, "win_" + mode), stmt)
        first[mode] = console_batches(run.stdout)
    path = os.path.join(src, "f2.csv")
    with open(path, "w") as f:
        f.write("\n".join(WINDOW_FILES[2]) + "\n")
    os.utime(path, (1002, 1002))
    for mode, want in WINDOW_SPARK.items():
        # a restart: the state and the watermark come back from the checkpoint
        run = silt("stream", "--trigger", "availableNow", "--output-mode", mode, "--checkpoint",
                   os.path.join(WORK, "win_" + mode), stmt)
        got = first[mode] + console_batches(run.stdout)
        check(f"window: {mode} mode over a restart emits Spark's rows batch by batch",
              got == [sorted(b) for b in want], "%r\n%s" % (got, run.stderr))
    with open(os.path.join(WORK, "win_append", "offsets", "3")) as f:
        check("window: offsets/3 of the eviction batch carries the watermark",
              '"batchWatermarkMs":1704069060000' in f.read())
    run = silt("stream", "--trigger", "once", stmt.replace("GROUP BY window(ts, '10 minutes')",
               "GROUP BY window(ts, '10 minutes')").replace("WATERMARK ts DELAY OF INTERVAL 10 "
               "MINUTES ", ""), ok=False)
    check("window: the default (append) without a watermark is refused as Spark refuses it",
          run.returncode == 1 and "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION" in run.stderr,
          run.stderr)
    run = silt("stream", "--trigger", "once", stmt.replace("window(ts, '10 minutes') AS w",
               "window(ts, '5 minutes') AS w"), ok=False)
    check("window: two different windows are refused", run.returncode == 1 and
          "Multiple time/session window" in run.stderr, run.stderr)
    run = silt("stream", "--trigger", "once", stmt.replace("'10 minutes'", "'10 months'"),
               ok=False)
    check("window: a window in months is refused", run.returncode == 1 and "months" in
          run.stderr, run.stderr)


def main():
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    csv_folder_flow()
    src = three_files_three_batches()
    continuous_stream(src)
    options_and_formats()
    delta_source_flow()
    recovery_and_limits()
    catalog_streaming_table()
    rate_source_flow()
    aggregation_flow()
    window_flow()
    print(f"{PASSED} passed, {FAILED} failed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
