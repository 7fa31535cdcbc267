"""spark.read and df.write for silt, as SQL: read_files(...) / delta.`path`
with VERSION AS OF / table_changes for reading; CREATE TABLE AS SELECT,
INSERT [OVERWRITE] BY NAME, REPLACE WHERE and CREATE OR REPLACE TABLE for
writing (the statements docs/c-api-write.md maps DataFrameWriter calls to)."""

from .column import quote_ident, _sql_string
from . import types as T

_FILE_FORMATS = ("csv", "json", "parquet")


def _opt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _path_sql(path):
    return "`%s`" % str(path).replace("`", "``")


class _OptionsBuilder:
    """option/options of the readers and writers (batch and streaming): values as Spark's strings."""

    def option(self, key, value):
        self._options[key] = _opt_value(value)
        return self

    def options(self, **options):
        for k, v in options.items():
            self.option(k, v)
        return self


class _PartitionedWriter(_OptionsBuilder):
    """partitionBy of the batch and the streaming writer."""

    def partitionBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._partition_by = list(cols)
        return self


class DataFrameReader(_OptionsBuilder):
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
        if fmt == "delta":
            return self._delta(path)
        if fmt in _FILE_FORMATS:
            if path is None:
                raise ValueError("silt.pyspark: load() of %s needs a path" % fmt)
            return self._files(fmt, path)
        raise NotImplementedError("silt.pyspark: the data source format %r is not supported "
                                  "(csv, json, parquet and delta are)" % fmt)

    def _files(self, fmt, path):
        if isinstance(path, (list, tuple)):
            if len(path) != 1:
                parts = [self._one(fmt, p) for p in path]
                from .dataframe import DataFrame
                return DataFrame(self._session, " UNION ALL ".join(
                    "SELECT * FROM (%s) AS _p%d" % (p, i) for i, p in enumerate(parts)))
            path = path[0]
        from .dataframe import DataFrame
        return DataFrame(self._session, self._one(fmt, path))

    def _one(self, fmt, path):
        args = [_sql_string(str(path)), "format => '%s'" % fmt]
        for k, v in self._options.items():
            args.append("%s => %s" % (k, _sql_string(v)))
        if self._schema is not None:
            args.append("schema => %s" % _sql_string(self._schema.ddl()))
        return "SELECT * FROM read_files(%s)" % ", ".join(args)

    def _delta(self, path):
        from .dataframe import DataFrame
        opts = dict(self._options)
        if self._schema is not None:
            raise _analysis("[DELTA_UNSUPPORTED_SCHEMA_DURING_READ] Delta does not support "
                            "specifying the schema at read time.")
        cdf = opts.pop("readChangeFeed", "false").lower() == "true"
        version = opts.pop("versionAsOf", None)
        ts = opts.pop("timestampAsOf", None)
        if cdf:
            start = opts.pop("startingVersion", None)
            end = opts.pop("endingVersion", None)
            start_ts = opts.pop("startingTimestamp", None)
            end_ts = opts.pop("endingTimestamp", None)
            _refuse(opts, "delta change feed")
            lo = start if start is not None else (_sql_string(start_ts) if start_ts else None)
            if lo is None:
                raise _analysis("[DELTA_CDC_START_REQUIRED] startingVersion or "
                                "startingTimestamp is needed to read the change data feed")
            hi = end if end is not None else (_sql_string(end_ts) if end_ts else None)
            src = path if path is not None else None
            fn = "table_changes_by_path" if getattr(self, "_table", None) is None else \
                "table_changes"
            target = _sql_string(self._table if fn == "table_changes" else src)
            args = [target, str(lo)] + ([str(hi)] if hi is not None else [])
            return DataFrame(self._session, "SELECT * FROM %s(%s)" % (fn, ", ".join(args)))
        _refuse(opts, "delta")
        src = getattr(self, "_table", None) or "delta.%s" % _path_sql(path)
        text = "SELECT * FROM %s" % src
        if version is not None:
            text += " VERSION AS OF %d" % int(version)
        elif ts is not None:
            text += " TIMESTAMP AS OF %s" % _sql_string(ts)
        return DataFrame(self._session, text)

    def csv(self, path, schema=None, **options):
        self.format("csv")
        return self.load(path, schema=schema, **options)

    def json(self, path, schema=None, **options):
        from .session import _LocalRDD
        if isinstance(path, _LocalRDD) or (isinstance(path, list) and path and
                                           isinstance(path[0], dict)):
            return self._json_rows(list(path), schema)
        self.format("json")
        return self.load(path, schema=schema, **options)

    def _json_rows(self, rows, schema):
        """spark.read.json(sc.parallelize([...dicts or JSON strings...])): the rows are
        written to a JSON lines file and read by silt's JSON reader (its inference)."""
        import json
        path = self._session._temp_path("json")
        with open(path, "w") as f:
            for r in rows:
                f.write((r if isinstance(r, str) else json.dumps(r, default=str)) + "\n")
        self.format("json")
        return self.load(path, schema=schema)

    def parquet(self, *paths, **options):
        self.format("parquet")
        return self.load(list(paths) if len(paths) != 1 else paths[0], **options)

    def orc(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: the ORC format is not supported")

    def text(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: the text format is not supported")

    def delta(self, path):
        self.format("delta")
        return self.load(path)

    def table(self, tableName):
        if (self._format or "delta") == "delta" and self._options:
            self._table = tableName
            return self._delta(None)
        return self._session.table(tableName)


def _refuse(opts, what):
    if opts:
        raise NotImplementedError("silt.pyspark: the %s reader option(s) %s are not supported"
                                  % (what, ", ".join(sorted(opts))))


def _analysis(msg):
    from .utils import AnalysisException
    return AnalysisException(msg)


class DataFrameWriter(_PartitionedWriter):
    """df.write: each save is one SQL statement (docs/c-api-write.md's mapping)."""

    _MODES = {"append": "append", "overwrite": "overwrite", "error": "error",
              "errorifexists": "error", "ignore": "ignore", "default": "error"}

    def __init__(self, df):
        self._df = df
        self._format = "delta"
        self._mode = "error"
        self._options = {}
        self._partition_by = []

    def format(self, source):
        self._format = source.lower()
        return self

    def mode(self, saveMode):
        if saveMode is None:
            return self
        key = saveMode.lower()
        if key not in self._MODES:
            raise ValueError("Unknown save mode: %s. Accepted save modes are 'overwrite', "
                             "'append', 'ignore', 'error', 'errorifexists', 'default'." % saveMode)
        self._mode = self._MODES[key]
        return self

    def bucketBy(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: bucketBy is not supported")

    def sortBy(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: sortBy is not supported")

    def clusterBy(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: clusterBy is not supported")

    def save(self, path=None, format=None, mode=None, partitionBy=None, **options):
        if format is not None:
            self.format(format)
        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        if path is None:
            path = self._options.pop("path", None)
            if path is None:
                raise ValueError("silt.pyspark: save() needs a path")
        self._check_format()
        self._write("delta.%s" % _path_sql(path), None)

    def saveAsTable(self, name, format=None, mode=None, partitionBy=None, **options):
        if format is not None:
            self.format(format)
        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._check_format()
        location = self._options.pop("path", None)
        self._write(name, location)

    def insertInto(self, tableName, overwrite=None):
        sql = self._df._sql
        self._df._session._conn._c.exec("INSERT %s %s %s" % (
            "OVERWRITE" if overwrite or self._mode == "overwrite" else "INTO", tableName, sql))

    def _check_format(self):
        if self._format != "delta":
            raise NotImplementedError(
                "silt.pyspark: df.write.format(%r) is not supported: silt writes Delta tables "
                "only (its csv, json and parquet writers are not reachable from SQL)"
                % self._format)

    def csv(self, path, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: df.write.csv is not supported: silt writes "
                                  "Delta tables only")

    def json(self, path, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: df.write.json is not supported: silt writes "
                                  "Delta tables only")

    def parquet(self, path, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: df.write.parquet is not supported: silt writes "
                                  "Delta tables only (df.write.format('delta') writes Parquet "
                                  "files with a Delta log)")

    def _exists(self, target):
        conn = self._df._session._conn
        try:
            rel = conn.execute("DESCRIBE DETAIL %s" % target)
        except Exception:  # noqa: BLE001 - a missing table answers "no"
            return None
        rows = rel.fetchall()
        cols = rel.columns
        if not rows:
            return None
        detail = dict(zip(cols, rows[0]))
        return detail

    def _write(self, target, location):
        opts = dict(self._options)
        merge = opts.pop("mergeSchema", "false").lower() == "true"
        overwrite_schema = opts.pop("overwriteSchema", "false").lower() == "true"
        replace_where = opts.pop("replaceWhere", None)
        settings = {}
        for key, setting in (("partitionOverwriteMode", "spark.sql.sources.partitionOverwriteMode"),
                             ("userMetadata", "spark.databricks.delta.commitInfo.userMetadata"),
                             ("compression", "spark.sql.parquet.compression.codec"),
                             ("txnAppId", "spark.databricks.delta.write.txnAppId"),
                             ("txnVersion", "spark.databricks.delta.write.txnVersion")):
            if key in opts:
                settings[setting] = opts.pop(key)
        if opts:
            raise NotImplementedError("silt.pyspark: the Delta writer option(s) %s are not "
                                      "supported" % ", ".join(sorted(opts)))
        query = self._df._sql
        part = ""
        if self._partition_by:
            part = " PARTITIONED BY (%s)" % ", ".join(quote_ident(c) for c in self._partition_by)
        loc = " LOCATION %s" % _sql_string(location) if location else ""
        detail = self._exists(target)
        if detail is None or (overwrite_schema and self._mode == "overwrite"):
            if detail is not None:
                stmt = "CREATE OR REPLACE TABLE %s USING DELTA%s%s AS %s" % (target, part, loc,
                                                                             query)
            elif self._mode == "ignore":
                stmt = "CREATE TABLE IF NOT EXISTS %s USING DELTA%s%s AS %s" % (target, part, loc,
                                                                                query)
            else:
                stmt = "CREATE TABLE %s USING DELTA%s%s AS %s" % (target, part, loc, query)
        elif self._mode == "error":
            stmt = "CREATE TABLE %s USING DELTA%s%s AS %s" % (target, part, loc, query)
        elif self._mode == "ignore":
            return
        else:
            if self._partition_by:
                have = [c.lower() for c in (detail.get("partitionColumns") or [])]
                if have != [c.lower() for c in self._partition_by]:
                    raise _analysis(
                        "[DELTA_PARTITION_SCHEMA_MISMATCH] Partition columns do not match the "
                        "partition columns of the table.\nGiven: [%s]\nTable: [%s]"
                        % (", ".join(self._partition_by), ", ".join(have)))
            evo = " WITH SCHEMA EVOLUTION" if merge else ""
            if self._mode == "append":
                stmt = "INSERT%s INTO %s BY NAME %s" % (evo, target, query)
            elif replace_where is not None:
                stmt = "INSERT%s INTO %s BY NAME REPLACE WHERE %s %s" % (evo, target,
                                                                        replace_where, query)
            else:
                stmt = "INSERT%s OVERWRITE %s BY NAME %s" % (evo, target, query)
        self._df._session._run_with(settings, stmt)


__all__ = ["DataFrameReader", "DataFrameWriter"]
