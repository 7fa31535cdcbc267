"""readStream / writeStream for silt, over the streaming C API
(include/silt/stream.h, docs/streaming.md).

A streaming DataFrame is a silt query whose one source is a STREAM
reference (`STREAM read_files(...)`, `STREAM delta.`p` WITH (...)`,
`STREAM rate(...)`); its operations (select, filter, withColumn, groupBy,
withWatermark...) build the query's text as for a batch DataFrame. Its
schema is that of the same text with the source's batch twin in place of
the STREAM reference (read_files without the per-trigger limits, the Delta
table, the rate source's two columns), so nothing is read to know it.

writeStream.start() is one silt_stream_start of
`INSERT INTO <sink> [BY NAME] <query>` (Delta) or `<query>` (console), on
the stream's own thread; the StreamingQuery watches it with a Python thread
blocked in silt_stream_wait (the GIL released), which is what isActive and
awaitTermination read."""

import json as _json
import os as _os
import sys as _sys
import threading as _threading
import uuid as _uuid

from .column import quote_ident, _sql_string
from . import types as T
from .readwriter import _OptionsBuilder, _PartitionedWriter, _path_sql
from .utils import AnalysisException, StreamingQueryException

_FILE_FORMATS = ("csv", "json", "parquet")
# The file source's options that only a stream has: not given to the batch twin.
_STREAM_ONLY = ("maxFilesPerTrigger", "maxBytesPerTrigger", "latestFirst", "maxFileAge",
                "cleanSource", "sourceArchiveDir", "fileNameOnly", "maxCachedFiles",
                "discardCachedInputRatio")




class DataStreamReader(_OptionsBuilder):
    """spark.readStream: a streaming DataFrame over one source."""

    def __init__(self, session):
        self._session = session
        self._format = None
        self._options = {}
        self._schema = None

    def format(self, source):
        self._format = source.lower()
        return self

    def schema(self, schema):
        if isinstance(schema, str):
            schema = T._parse_schema(schema)
        if not isinstance(schema, T.StructType):
            raise TypeError("schema should be StructType or string")
        self._schema = schema
        return self

    def load(self, path=None, format=None, schema=None, **options):
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**{k: v for k, v in options.items() if v is not None})
        fmt = self._format or "parquet"
        if fmt == "cloudfiles":
            # Databricks' Auto Loader: cloudFiles.format names the files' format.
            fmt = self._options.pop("cloudFiles.format", None)
            if fmt is None:
                raise NotImplementedError("silt.pyspark: readStream.format('cloudFiles') needs "
                                          "option('cloudFiles.format', 'csv'|'json'|'parquet')")
            fmt = fmt.lower()
            extra = sorted(k for k in self._options if k.startswith("cloudFiles."))
            if extra:
                raise NotImplementedError("silt.pyspark: the Auto Loader option(s) %s are not "
                                          "supported (silt's file source is Spark's)"
                                          % ", ".join(extra))
        if fmt in _FILE_FORMATS:
            if path is None:
                raise ValueError("silt.pyspark: readStream of %s needs a path" % fmt)
            return self._files(fmt, path)
        if fmt == "delta":
            if path is None:
                raise ValueError("silt.pyspark: readStream of delta needs a path (or use "
                                 "table(name))")
            return self._delta("delta.%s" % _path_sql(path))
        if fmt == "rate":
            return self._rate()
        raise NotImplementedError("silt.pyspark: the streaming source %r is not supported "
                                  "(csv, json, parquet, delta and rate are)" % fmt)

    def _files(self, fmt, path):
        if isinstance(path, (list, tuple)):
            raise NotImplementedError("silt.pyspark: a file stream reads one folder")
        args = [_sql_string(str(path)), "format => '%s'" % fmt]
        batch = list(args)
        for k, v in self._options.items():
            arg = "%s => %s" % (k, _sql_string(v))
            args.append(arg)
            if k not in _STREAM_ONLY:
                batch.append(arg)
        items = "*"
        if self._schema is not None and fmt == "parquet":
            # Parquet files carry their schema: the given one is a cast of its columns.
            items = ", ".join("CAST(%s AS %s) AS %s" % (quote_ident(f.name),
                                                       f.dataType.sqlName(),
                                                       quote_ident(f.name))
                              for f in self._schema.fields)
        elif self._schema is not None:
            s = "schema => %s" % _sql_string(self._schema.ddl())
            args.append(s)
            batch.append(s)
        return _stream_df(self._session, "STREAM read_files(%s)" % ", ".join(args),
                          "read_files(%s)" % ", ".join(batch), items)

    def _delta(self, ref):
        if self._schema is not None:
            raise AnalysisException("[DELTA_UNSUPPORTED_SCHEMA_DURING_READ] Delta does not "
                                    "support specifying the schema at read time.")
        text = "STREAM " + ref
        if self._options:
            text += " WITH (%s)" % ", ".join("%s = %s" % (k, _sql_string(v))
                                             for k, v in self._options.items())
        return _stream_df(self._session, text, ref)

    def _rate(self):
        if self._schema is not None:
            raise AnalysisException("The rate source does not support a user-specified schema.")
        args = ", ".join("%s => %s" % (k, v if v.lstrip("-").isdigit() else _sql_string(v))
                         for k, v in self._options.items())
        return _stream_df(self._session, "STREAM rate(%s)" % args,
                          "(SELECT CAST(NULL AS TIMESTAMP) AS `timestamp`, CAST(NULL AS BIGINT) "
                          "AS `value` WHERE false) AS _rate")

    def csv(self, path, schema=None, **options):
        self.format("csv")
        return self.load(path, schema=schema, **options)

    def json(self, path, schema=None, **options):
        self.format("json")
        return self.load(path, schema=schema, **options)

    def parquet(self, path, **options):
        self.format("parquet")
        return self.load(path, **options)

    def text(self, path, **options):
        raise NotImplementedError("silt.pyspark: the text streaming source is not supported")

    def orc(self, path, **options):
        raise NotImplementedError("silt.pyspark: the ORC format is not supported")

    def table(self, tableName):
        return self._delta(tableName)


def _stream_df(session, stream_ref, batch_ref, items="*"):
    from .dataframe import DataFrame
    return DataFrame(session, "SELECT %s FROM %s" % (items, stream_ref),
                     streaming={"stream": stream_ref, "batch": batch_ref, "agg": False})


_TRIGGER_KEYS = ("processingTime", "once", "continuous", "availableNow")


class DataStreamWriter(_PartitionedWriter):
    """df.writeStream: the sink, output mode, trigger and checkpoint of one stream."""

    def __init__(self, df):
        if df._streaming is None:
            raise AnalysisException("'writeStream' can be called only on streaming "
                                    "Dataset/DataFrame")
        self._df = df
        self._format = None
        self._mode = None
        self._options = {}
        self._trigger = None
        self._name = None
        self._partition_by = []

    def format(self, source):
        self._format = source.lower()
        return self

    def outputMode(self, outputMode):
        if not isinstance(outputMode, str) or outputMode.lower() not in (
                "append", "complete", "update"):
            raise AnalysisException("Unknown output mode %s. Accepted output modes are "
                                    "'append', 'complete', 'update'" % outputMode)
        self._mode = outputMode.lower()
        return self

    def queryName(self, queryName):
        self._name = queryName
        return self

    def trigger(self, *, processingTime=None, once=None, continuous=None, availableNow=None):
        given = [(k, v) for k, v in zip(_TRIGGER_KEYS, (processingTime, once, continuous,
                                                        availableNow)) if v is not None]
        if len(given) != 1:
            raise ValueError("Multiple triggers not allowed." if given else
                             "No trigger provided")
        key, value = given[0]
        if key == "continuous":
            raise NotImplementedError("silt.pyspark: the continuous trigger is not supported "
                                      "(silt runs micro-batches)")
        if key == "processingTime":
            if not isinstance(value, str) or not value.strip():
                raise ValueError("Value for processingTime must be a non empty string. Got: %s"
                                 % value)
            self._trigger = value.strip()
        elif value is not True:
            raise ValueError("Value for %s must be True. Got: %s" % (key, value))
        else:
            self._trigger = "once" if key == "once" else "availableNow"
        return self

    def foreachBatch(self, func):
        raise NotImplementedError("silt.pyspark: foreachBatch is not supported (it runs Python "
                                  "code over each batch; silt's sinks are Delta and the console)")

    def foreach(self, f):
        raise NotImplementedError("silt.pyspark: foreach is not supported (it runs Python code "
                                  "over each row; silt's sinks are Delta and the console)")

    def start(self, path=None, format=None, outputMode=None, partitionBy=None, queryName=None,
              **options):
        self._apply(format, outputMode, partitionBy, queryName, options)
        fmt = self._format or "parquet"
        opts = dict(self._options)
        checkpoint = opts.pop("checkpointLocation", None)
        if fmt == "console":
            return self._console(opts, checkpoint)
        if fmt != "delta":
            raise NotImplementedError("silt.pyspark: the streaming sink %r is not supported "
                                      "(delta and console are)" % fmt)
        path = path or opts.pop("path", None)
        opts.pop("path", None)
        if path is None:
            raise ValueError("silt.pyspark: writeStream.format('delta').start() needs a path "
                             "(or use toTable(name))")
        return self._delta("delta.%s" % _path_sql(path), opts, checkpoint)

    def toTable(self, tableName, format=None, outputMode=None, partitionBy=None,
                queryName=None, **options):
        self._apply(format, outputMode, partitionBy, queryName, options)
        fmt = self._format or "delta"
        if fmt != "delta":
            raise NotImplementedError("silt.pyspark: toTable writes Delta tables, not %r" % fmt)
        opts = dict(self._options)
        checkpoint = opts.pop("checkpointLocation", None)
        return self._delta(tableName, opts, checkpoint)

    # -- internals
    def _apply(self, format, outputMode, partitionBy, queryName, options):
        if format is not None:
            self.format(format)
        if outputMode is not None:
            self.outputMode(outputMode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        if queryName is not None:
            self.queryName(queryName)
        self.options(**options)

    def _console(self, opts, checkpoint):
        rows = opts.pop("numRows", "20")
        trunc = opts.pop("truncate", "true")
        if rows != "20" or trunc.lower() != "true":
            raise NotImplementedError("silt.pyspark: the console sink prints 20 rows cut at 20 "
                                      "characters (numRows/truncate other than the defaults "
                                      "are not supported)")
        _refuse(opts, "console sink")

        def out(text):
            _sys.stdout.write(text)
            _sys.stdout.flush()
        return self._start(self._df._sql, checkpoint, out, "console")

    def _delta(self, target, opts, checkpoint):
        _refuse(opts, "Delta sink")
        df = self._df
        session = df._session
        # Spark's Delta sink creates a missing table with the first batch; silt's stream
        # needs the table first, so it is created here, empty, with the query's schema.
        if not _table_exists(session, target):
            part = ""
            if self._partition_by:
                part = " PARTITIONED BY (%s)" % ", ".join(quote_ident(c)
                                                          for c in self._partition_by)
            session._conn._c.exec("CREATE TABLE %s USING DELTA%s AS SELECT * FROM (%s) AS _s "
                                  "LIMIT 0" % (target, part, df._batch_sql()))
        # Rows go in by name, as Spark's sink writes them; a stateful aggregation's rows
        # go in by position (silt's aggregation takes no BY NAME), the table being made
        # from the same query.
        by_name = "" if df._streaming.get("agg") else " BY NAME"
        sql = "INSERT INTO %s%s %s" % (target, by_name, df._sql)
        return self._start(sql, checkpoint, None, "DeltaSink[%s]" % target)

    def _start(self, sql, checkpoint, console, sink):
        session = self._df._session
        q = StreamingQuery(session, sql, self._name, checkpoint)
        raw = session._conn._c.stream(sql, self._trigger, checkpoint, self._mode, console,
                                      q._on_progress)
        q._begin(raw)
        return q


def _refuse(opts, what):
    if opts:
        raise NotImplementedError("silt.pyspark: the %s option(s) %s are not supported"
                                  % (what, ", ".join(sorted(opts))))


def _table_exists(session, target):
    from ..._errors import NotFoundError
    try:
        session._conn._c.exec("SELECT * FROM %s LIMIT 0" % target)
        return True
    except NotFoundError:
        return False


class StreamingQuery:
    """A running stream (pyspark.sql.streaming.StreamingQuery)."""

    def __init__(self, session, sql, name, checkpoint):
        self._session = session
        self._sqltext = sql
        self._name = name
        self._checkpoint = checkpoint
        self._raw = None
        self._done = _threading.Event()
        self._error = None
        self._recent = []
        self._lock = _threading.Lock()
        self._id = None
        self._run_id = str(_uuid.uuid4())

    def _begin(self, raw):
        self._raw = raw
        self._id = _checkpoint_id(self._checkpoint)
        self._session._streams.append(self)
        t = _threading.Thread(target=self._watch, name="silt-stream-watch", daemon=True)
        t.start()

    def _watch(self):
        try:
            self._raw.wait()
        except BaseException as e:  # noqa: BLE001 - kept for awaitTermination/exception()
            self._error = StreamingQueryException(str(e), getattr(e, "error_class", ""))
            self._error.__cause__ = e
        finally:
            # The ended stream is freed now, so its checkpoint is free for the next start.
            self._raw.close()
            self._done.set()
            try:
                self._session._streams.remove(self)
            except ValueError:
                pass

    def _on_progress(self, text, line):
        try:
            p = _json.loads(text)
        except ValueError:
            return
        with self._lock:
            self._recent.append(p)
            del self._recent[:-100]  # Spark keeps spark.sql.streaming.numRecentProgressUpdates
        if self._id is None:
            self._id = p.get("id")
        self._run_id = p.get("runId", self._run_id)

    @property
    def id(self):
        return self._id

    @property
    def runId(self):
        return self._run_id

    @property
    def name(self):
        return self._name

    @property
    def isActive(self):
        return not self._done.is_set()

    def awaitTermination(self, timeout=None):
        if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError("timeout must be a positive integer or float. Got %s" % timeout)
        finished = self._done.wait(timeout)
        if self._error is not None:
            raise self._error
        return finished if timeout is not None else None

    def stop(self):
        """Stops after the batch in flight and waits for it, as Spark's stop() does."""
        if self._raw is not None:
            self._raw.stop()
        self._done.wait()

    def processAllAvailable(self):
        raise NotImplementedError("silt.pyspark: processAllAvailable is not supported; use "
                                  "trigger(availableNow=True) and awaitTermination()")

    @property
    def lastProgress(self):
        with self._lock:
            return self._recent[-1] if self._recent else None

    @property
    def recentProgress(self):
        with self._lock:
            return list(self._recent)

    @property
    def status(self):
        active = self.isActive
        return {"message": "Waiting for data to arrive" if active else "Stopped",
                "isDataAvailable": False, "isTriggerActive": False}

    def exception(self):
        return self._error

    def explain(self, extended=False):
        print(self._sqltext)


def _checkpoint_id(checkpoint):
    """The query id Spark keeps in <checkpoint>/metadata (None until known)."""
    if not checkpoint:
        return None
    path = checkpoint[len("file:"):] if checkpoint.startswith("file:") else checkpoint
    try:
        with open(_os.path.join(path, "metadata")) as f:
            return _json.loads(f.readline()).get("id")
    except (OSError, ValueError):
        return None


class StreamingQueryManager:
    def __init__(self, session):
        self._session = session

    @property
    def active(self):
        return [q for q in self._session._streams if q.isActive]

    def get(self, id):
        for q in self._session._streams:
            if q.id == id:
                return q
        return None

    def awaitAnyTermination(self, timeout=None):
        import time
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            qs = list(self._session._streams)
            if not qs or any(not q.isActive for q in qs):
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            qs[0]._done.wait(0.1 if left is None else min(0.1, left))

    def resetTerminated(self):
        pass
