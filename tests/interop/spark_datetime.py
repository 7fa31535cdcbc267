#!/usr/bin/env python3
"""Date, time and session time zone: silt against the Spark peer.

    spark_datetime.py SILT_BIN

1. Spark's string grammar (stringToTimestamp / stringToDate): several hundred
   strings, every one cast to TIMESTAMP, DATE and TIMESTAMP_NTZ by both
   engines with try_cast (NULL where ANSI CAST fails), then year(), month()
   and hour() of them, in four session time zones (UTC, Europe/Oslo,
   America/New_York, +05:30). Both engines' answers for every string must be
   equal, and a sample of the rejected strings must fail the ANSI CAST with
   CAST_INVALID_INPUT in both.
2. The session time zone (spark.sql.session.timeZone / SET TIME ZONE):
   display, casts, date/time functions, interval arithmetic across daylight
   saving changes, date_format patterns, to_json/--format json text, the
   errors of an unknown zone.

Every value is compared as text (CAST(... AS STRING)), so the Python
process's own zone plays no part. Runs under <repo>/.peers/venv/bin/python
(re-executing itself there). Without the venv it exits 77 (skip), or 1 when
CI=true.
"""
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from peers import reexec_in_venv  # noqa: E402

reexec_in_venv(__file__)
os.environ["TZ"] = "UTC"

SILT = sys.argv[1]
ZONES = ["UTC", "Europe/Oslo", "America/New_York", "+05:30"]


def grammar_strings():
    """Hand-picked forms and a cross product of date, separator, time and zone parts."""
    picked = [
        "2016-10-01 00:30:00 +0200", "2019-04-02 08:05:25.926000+00:00", "2016-10-01T00:30:00",
        "2016-10-01 00:30:00Z", "2016-10-01 00:30:00 UTC", "2016-10-01 00:30:00 GMT+1",
        "2016-10-01 00:30:00 Europe/Oslo", "2016-10-01 00:30:00America/New_York",
        "2016-10-01 00:30:00 PST", "2016-10-01 00:30:00 EST", "2016-10-01 00:30:00 CET",
        "2016-10-01 00:30:00 UT", "2016-10-01 00:30:00 UT+3", "2016-10-01 00:30:00 UTC-08:00",
        "2016-10-01 00:30:00 GMT+01:30", "2016-10-01 00:30:00+1:00", "2016-10-01 00:30:00+01:0",
        "2016-10-01 00:30:00+1", "2016-10-01 00:30:00+01", "2016-10-01 00:30:00+0130",
        "2016-10-01 00:30:00+01:30:15", "2016-10-01 00:30:00+013015", "2016-10-01 00:30:00+19",
        "2016-10-01 00:30:00+18:00", "2016-10-01 00:30:00-18:00", "2016-10-01 00:30:00 +25",
        "2016-10-01 00:30:00 utc", "2016-10-01 00:30:00 europe/oslo", "2016-10-01 00:30:00 Mars/X",
        "2016-10-01 00:30:00.1", "2016-10-01 00:30:00.123456789", "2016-10-01 00:30:00.1234567890123",
        "2016-10-01 00:30:00.", "2016-10-01 00:30:00.Z", "2016-10-01 00:30:00.5Z",
        "2016-10-01 00:30:00.5 +02:00", "2016-10-01 00:30:00.1.2",
        "2016", "2016-10", "2016-1", "2016-10-1", "2016-1-1", "2016-", "2016-10-", "2016-10-01 ",
        "  2016-10-01  ", "\t2016-10-01\n", "2016-10-01T", "2016-10-01 T", "2016-10-01 10",
        "2016-10-01 10:", "2016-10-01 10:3", "2016-10-01 10:30:5", "2016-10-01 1:2:3",
        "2016-10-01 10Z", "2016-10-01 10:30Z", "2016-10-01 10:30 UTC", "2016-10-01Z",
        "2016-10-01 garbage", "2016-10-01Tgarbage", "2016-10-01X", "2016-10-01 24:00:00",
        "2016-10-01 23:60:00", "2016-10-01 23:59:60", "2016-02-29", "2015-02-29",
        "2016-02-30", "2016-13-01", "2016-00-01", "2016-10-00", "2016-10-32",
        "+2016-10-01", "-2016-10-01", "-0001-01-01", "0000-01-01", "0001-01-01 00:00:00",
        "9999-12-31 23:59:59.999999", "10000-01-01", "+10000-01-01", "123456-01-01",
        "1234567-01-01", "12345678-01-01", "294247-01-01", "294248-01-01", "-290308-12-21",
        "201-01-01", "20160101", "2016/10/01", "2016.10.01", "01-10-2016",
        "12:30", "12:30:45", "12:30:45.123", "T12:30:45", "T12", " T12:30", "12:30:45Z",
        "12:30:45 +02:00", "+12:30", "1:2", "123:30",
        "", " ", "x", "T", "-", "+", ":", "2016-10-01 00:30:00 Z", "2016-10-01 00:30:00  Z",
        "2016-10-01 00:30:00\u00a0Z", "2016-10-01 00:30:00 \x01", "2021-03-28 02:30:00",
        "2021-10-31 02:30:00", "2021-03-14 02:30:00", "2021-11-07 01:30:00",
        "1900-01-01 00:00:00", "1890-06-01 12:00:00", "2100-07-01 12:00:00", "2500-07-01 12:00:00",
    ]
    dates = ["2016-10-01", "2016-1-5", "2016-10", "2016", "-2016-10-01", "2016-02-30"]
    seps = [" ", "T", "  "]
    times = ["00:30", "00:30:00", "9:5:7", "23:59:59.999999999", "12", "12:30:00.5"]
    zones = ["", "Z", " Z", "+02:00", " -0530", "UTC", " GMT+8", " Europe/Oslo", "+2:00", "!"]
    crossed = [d + s + t + z for d, s, t, z in itertools.product(dates, seps, times, zones)]
    seen, out = set(), []
    for s in picked + crossed:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def sql_str(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def silt_run(statements, fmt="csv"):
    """Runs statements in one silt session; the text of the last result, or the error."""
    proc = subprocess.run([SILT, "sql", "--format", fmt, "--max-rows", "100000", "--no-truncate",
                           "-f", "-"], input=";\n".join(statements), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    return proc.stdout, None


def silt_rows(statements):
    """The rows of the last statement as lists of strings ('' for NULL)."""
    import csv
    import io
    out, errtext = silt_run(statements)
    if errtext is not None:
        raise SystemExit("silt failed: %s\n%s" % (errtext, statements[-1][:400]))
    # every result prints a header; the last header starts the last result
    lines = out.splitlines(keepends=True)
    header_idx = max(i for i, line in enumerate(lines) if line.startswith("c0,") or line.rstrip("\r\n") == "c0")
    rows = list(csv.reader(io.StringIO("".join(lines[header_idx:]))))
    return [r if r else [""] for r in rows[1:]]  # a lone NULL is an empty line


def spark_rows(spark, statements):
    for st in statements[:-1]:
        spark.sql(st).collect()
    return [["" if v is None else str(v) for v in r] for r in spark.sql(statements[-1]).collect()]


FAILS = []


def compare(what, silt_result, spark_result):
    if silt_result != spark_result:
        for idx, (a, b) in enumerate(itertools.zip_longest(silt_result, spark_result)):
            if a != b:
                FAILS.append("%s: row %d: silt %r, Spark %r" % (what, idx, a, b))


def check_grammar(spark):
    strings = grammar_strings()
    values = ", ".join("(%d, %s)" % (i, sql_str(s)) for i, s in enumerate(strings))
    just_time = {i for i, s in enumerate(strings)
                 if s.strip().startswith("T") or (":" in s.split(" ")[0] and "-" not in s)}
    # Before 1900 a region's offsets are local mean times, which the JVM's bundled tzdata
    # and the system's files record differently for zones tzdb merged (Europe/Oslo has
    # Berlin's +00:53:28 in Java, its own +00:43 in Debian's files): compared in fixed zones.
    before_1900 = {i for i, s in enumerate(strings)
                   if s.strip().startswith("-") or s.strip()[:4].isdigit() and int(s.strip()[:4]) < 1900}
    query = ("SELECT id AS c0, CAST(try_cast(s AS TIMESTAMP) AS STRING) AS c1, "
             "CAST(try_cast(s AS DATE) AS STRING) AS c2, "
             "CAST(try_cast(s AS TIMESTAMP_NTZ) AS STRING) AS c3, "
             "year(try_cast(s AS TIMESTAMP)) AS c4, month(try_cast(s AS TIMESTAMP)) AS c5, "
             "hour(try_cast(s AS TIMESTAMP)) AS c6, month(try_cast(s AS DATE)) AS c7 "
             "FROM VALUES %s AS t(id, s) ORDER BY id" % values)
    for zone in ZONES:
        stmts = ["SET TIME ZONE %s" % sql_str(zone), query]
        a, b = silt_rows(stmts), spark_rows(spark, stmts)
        # a time alone is on today's date: compare its time of day only
        for rows in (a, b):
            for r in rows:
                if int(r[0]) in just_time:
                    r[1] = r[1][11:]
                    r[3] = r[3][11:]
                    r[4] = ""
                    r[5] = ""
        for r1, r2 in zip(a, b):
            if int(r1[0]) in before_1900 and ("/" in zone or "/" in strings[int(r1[0])]):
                continue
            if r1 != r2:
                FAILS.append("grammar [%s] %r: silt %r, Spark %r" % (zone, strings[int(r1[0])],
                                                                      r1[1:], r2[1:]))
        if len(a) != len(b):
            FAILS.append("grammar [%s]: %d rows from silt, %d from Spark" % (zone, len(a), len(b)))
    # ANSI: the strings both reject fail CAST with CAST_INVALID_INPUT in both
    rejected = [s for s in strings[:60] if s.strip() and not silt_ok_cast(s)][:12]
    for s in rejected:
        for target in ("TIMESTAMP", "DATE"):
            q = "SELECT CAST(%s AS %s) AS c0" % (sql_str(s), target)
            _, serr = silt_run(["SET TIME ZONE 'UTC'", q])
            try:
                spark.sql(q).collect()
                perr = None
            except Exception as e:  # noqa: BLE001
                perr = str(e)
            s_ok = serr is not None and "[CAST_INVALID_INPUT]" in serr
            p_ok = perr is not None and "[CAST_INVALID_INPUT]" in perr
            if target == "TIMESTAMP" and s_ok != p_ok:
                FAILS.append("ANSI cast %r AS %s: silt %r, Spark %r" % (s, target, serr, perr))
    return len(strings)


def silt_ok_cast(s):
    rows = silt_rows(["SET TIME ZONE 'UTC'",
                      "SELECT CAST(try_cast(%s AS TIMESTAMP) AS STRING) AS c0" % sql_str(s)])
    return bool(rows and rows[0] and rows[0][0] != "")


# (expression, over timestamps given as UTC instants) compared per zone
INSTANTS = ["2016-09-30 22:30:00", "2021-03-28 00:59:59", "2021-03-28 01:00:00",
            "2021-10-31 00:30:00", "2021-10-31 01:30:00", "2021-03-14 07:30:00",
            "2021-11-07 05:30:00", "2020-02-29 23:15:30.123456", "1969-12-31 23:59:59.5",
            "1900-01-01 12:00:00", "2100-06-30 12:00:00", "2038-06-01 12:00:00"]
EXPRS = [
    "CAST(t AS STRING)", "year(t)", "month(t)", "day(t)", "hour(t)", "minute(t)", "second(t)",
    "dayofweek(t)", "dayofyear(t)", "weekofyear(t)", "quarter(t)", "CAST(CAST(t AS DATE) AS STRING)",
    "CAST(CAST(t AS TIMESTAMP_NTZ) AS STRING)",
    "CAST(CAST(CAST(t AS TIMESTAMP_NTZ) AS TIMESTAMP) = t AS STRING)",
    "CAST(CAST(CAST(t AS DATE) AS TIMESTAMP) AS STRING)",
    "CAST(date_trunc('YEAR', t) AS STRING)", "CAST(date_trunc('MONTH', t) AS STRING)",
    "CAST(date_trunc('WEEK', t) AS STRING)", "CAST(date_trunc('DAY', t) AS STRING)",
    "CAST(date_trunc('HOUR', t) AS STRING)", "CAST(date_trunc('MINUTE', t) AS STRING)",
    "date_format(t, 'yyyy-MM-dd HH:mm:ss.SSS')", "date_format(t, 'XXX')", "date_format(t, 'XX')",
    "date_format(t, 'X')", "date_format(t, 'xxx')", "date_format(t, 'Z')", "date_format(t, 'ZZZZZ')",
    "date_format(t, 'EEE MMM d h:mm a D Q')", "date_format(t, 'yy-M-d H:m:s')",
    "unix_timestamp(date_format(t, 'yyyy-MM-dd HH:mm:ss'))",
    "from_unixtime(unix_timestamp(t))", "from_unixtime(1475274600, 'yyyy-MM-dd HH:mm')",
    "CAST(to_timestamp(date_format(t, 'yyyy-MM-dd HH:mm:ss')) AS STRING)",
    "CAST(to_timestamp(date_format(t, 'dd/MM/yyyy HH:mm'), 'dd/MM/yyyy HH:mm') AS STRING)",
    "CAST(to_date(date_format(t, 'yyyy-MM-dd HH:mm:ss')) AS STRING)",
    "CAST(to_date(t) AS STRING)",
    "CAST(from_utc_timestamp(t, 'Asia/Tokyo') AS STRING)",
    "CAST(to_utc_timestamp(t, 'America/New_York') AS STRING)",
    "CAST(t + INTERVAL 24 HOURS AS STRING)", "CAST(t + INTERVAL 1 DAY AS STRING)",
    "CAST(t + INTERVAL '1' MONTH AS STRING)", "CAST(t - INTERVAL 90 MINUTES AS STRING)",
    "months_between(t, TIMESTAMP '2016-01-01 00:00:00')",
    "CAST(TIMESTAMP '2016-10-01 00:30:00' AS STRING)", "month(TIMESTAMP '2016-10-01 00:30:00')",
    "CAST(TIMESTAMP '2016-10-01 00:30:00 +05:00' AS STRING)",
    "CAST(DATE '2016-10-01' AS STRING)",
    "CAST(t IN (TIMESTAMP '2016-10-01 00:30:00', CAST('2021-03-28 03:00:00' AS TIMESTAMP)) AS STRING)",
]


def check_functions(spark):
    values = ", ".join("(%d, %s)" % (i, sql_str(s + "Z")) for i, s in enumerate(INSTANTS))
    cols = ", ".join("%s AS c%d" % (e, i + 1) for i, e in enumerate(EXPRS))
    query = ("SELECT id AS c0, %s FROM (SELECT id, CAST(s AS TIMESTAMP) AS t FROM VALUES %s "
             "AS v(id, s)) ORDER BY id" % (cols, values))
    for zone in ZONES:
        stmts = ["SET TIME ZONE %s" % sql_str(zone), query]
        a, b = silt_rows(stmts), spark_rows(spark, stmts)
        for r1, r2 in zip(a, b):
            for idx, (x, y) in enumerate(zip(r1, r2)):
                if x != y:
                    FAILS.append("function [%s] %s of %s: silt %r, Spark %r" % (
                        zone, EXPRS[idx - 1], INSTANTS[int(r1[0])], x, y))
        if len(a) != len(b):
            FAILS.append("functions [%s]: row counts differ" % zone)


def check_json_text(spark):
    """silt's --format json writes timestamps as Spark's to_json does, in the session zone."""
    for zone in ZONES:
        q = "SELECT CAST('2021-03-28 01:30:00Z' AS TIMESTAMP) AS t, DATE '2021-03-28' AS d"
        out, errtext = silt_run(["SET TIME ZONE %s" % sql_str(zone), q], fmt="json")
        if errtext is not None:
            FAILS.append("json [%s]: silt failed: %s" % (zone, errtext))
            continue
        silt_line = [line for line in out.splitlines() if line.startswith('{"t"')][0]
        spark.sql("SET TIME ZONE %s" % sql_str(zone))
        spark_line = spark.sql("SELECT to_json(named_struct('t', t, 'd', d)) FROM (%s)" % q).collect()[0][0]
        if json.loads(silt_line) != json.loads(spark_line):
            FAILS.append("json [%s]: silt %s, Spark %s" % (zone, silt_line, spark_line))


def check_settings(spark):
    cases = [
        ["SET spark.sql.session.timeZone = Europe/Oslo", "SET spark.sql.session.timeZone"],
        ["SET TIME ZONE 'America/New_York'", "SET spark.sql.session.timeZone"],
        ["SET TIME ZONE '+05:30'", "SET spark.sql.session.timeZone"],
        ["SET spark.sql.session.timeZone = Mars/X"],
        ["SET spark.sql.session.timeZone = 'Europe/Oslo'"],  # quotes stay part of the value
        ["SET TIME ZONE 'Mars/X'"],
        ["SELECT from_utc_timestamp(TIMESTAMP '2019-04-02 08:05:25', 'Mars/X') AS c0"],
        ["SELECT from_utc_timestamp(TIMESTAMP '2019-04-02 08:05:25', 'utc') AS c0"],
    ]
    for stmts in cases:
        out, serr = silt_run(stmts)
        try:
            for st in stmts[:-1]:
                spark.sql(st).collect()
            res = spark.sql(stmts[-1]).collect()
            perr = None
        except Exception as e:  # noqa: BLE001
            perr = str(e)
            res = None
        if (serr is None) != (perr is None):
            FAILS.append("setting %s: silt %r, Spark %r" % (stmts, serr or out, perr or res))
        elif perr is not None:
            cls = perr.split("]")[0] + "]"
            if cls not in serr:
                FAILS.append("setting %s: silt %r, Spark class %s" % (stmts, serr, cls))
        elif stmts[-1].startswith("SET spark"):
            if res[0][1] not in out:
                FAILS.append("setting %s: silt %r, Spark %r" % (stmts, out, res))
        spark.sql("SET TIME ZONE 'UTC'")


def main():
    from peers import spark_session
    spark = spark_session()
    n = check_grammar(spark)
    check_functions(spark)
    check_json_text(spark)
    check_settings(spark)
    for f in FAILS:
        print("FAIL " + f)
    print("%d strings in %d zones, %d expressions over %d instants: %d differences" % (
        n, len(ZONES), len(EXPRS), len(INSTANTS), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
