"""SparkSession for silt: a silt connection on a warehouse folder."""

import atexit as _atexit
import datetime as _dt
import decimal as _decimal
import os as _os
import re as _re
import shutil as _shutil
import tempfile as _tempfile
import threading as _threading

from ... import _native
from .column import quote_ident, _sql_string, lit_sql
from .dataframe import DataFrame, Row
from . import types as T

# Statements whose text can stand as a subquery: a lazy DataFrame. Any other
# statement (SHOW, DESCRIBE, DDL, DML) runs when spark.sql is called, as in Spark.
_LAZY = _re.compile(r"^(?:\s+|--[^\n]*\n?|/\*.*?\*/|\()*(SELECT|WITH|VALUES|FROM|TABLE)\b",
                    _re.IGNORECASE | _re.DOTALL)

_BUILDER_ONLY = {"spark.app.name", "spark.master", "spark.sql.warehouse.dir"}


class Builder:
    def __init__(self):
        self._options = {}

    def appName(self, name):
        self._options["spark.app.name"] = name
        return self

    def master(self, master):
        self._options["spark.master"] = master
        return self

    def config(self, key=None, value=None, conf=None, map=None):
        if conf is not None:
            for k, v in conf.getAll():
                self._options[k] = v
        if map is not None:
            self._options.update(map)
        if key is not None:
            self._options[key] = value
        return self

    def enableHiveSupport(self):
        raise NotImplementedError("silt.pyspark: enableHiveSupport is not supported (silt's "
                                  "catalog is its warehouse folder)")

    def remote(self, url):
        raise NotImplementedError("silt.pyspark: Spark Connect (remote) is not supported")

    def getOrCreate(self):
        with SparkSession._lock:
            s = SparkSession._active
            if s is None:
                s = SparkSession(dict(self._options))
                SparkSession._active = s
            else:
                for k, v in self._options.items():
                    if k not in _BUILDER_ONLY:
                        s.conf.set(k, v)
            return s

    create = getOrCreate


class _BuilderDescriptor:
    def __get__(self, obj, cls):
        return Builder()


def _threads_of(master):
    if master is None:
        return None
    m = _re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if not m:
        raise NotImplementedError("silt.pyspark: master %r is not supported: silt runs in this "
                                  "process (local, local[N], local[*])" % master)
    if m.group(1) is None:
        return 1
    if m.group(1) == "*":
        return None
    return int(m.group(1))


class SparkConf:
    """pyspark.SparkConf: settings collected for SparkSession.builder.config(conf=...)."""

    def __init__(self, loadDefaults=True):
        self._conf = {}

    def set(self, key, value):
        self._conf[key] = str(value)
        return self

    def setAppName(self, value):
        return self.set("spark.app.name", value)

    def setMaster(self, value):
        return self.set("spark.master", value)

    def setAll(self, pairs):
        for k, v in pairs:
            self.set(k, v)
        return self

    def get(self, key, defaultValue=None):
        return self._conf.get(key, defaultValue)

    def getAll(self):
        return list(self._conf.items())

    def contains(self, key):
        return key in self._conf


class RuntimeConfig:
    """spark.conf: SET / SET key on the connection (silt refuses unknown keys)."""

    def __init__(self, session):
        self._s = session

    def set(self, key, value):
        if key in _BUILDER_ONLY:
            raise _analysis("[CANNOT_MODIFY_STATIC_CONFIG] Cannot modify the value of the "
                            "static Spark config: \"%s\"." % key)
        self._s._conn._set(key, value)

    def get(self, key, default=None):
        if key in self._s._builder_conf:
            return self._s._builder_conf[key]
        try:
            rows = self._s._conn.sql("SET %s" % key).fetchall()
        except Exception:
            if default is not None:
                return default
            raise
        value = rows[0][1] if rows else None
        if value in (None, "<undefined>") and default is not None:
            return default
        return value

    def unset(self, key):
        self._s._conn._c.exec("RESET %s" % key)

    def getAll(self):
        return dict(self._s._conn.sql("SET").fetchall())

    def isModifiable(self, key):
        return key not in _BUILDER_ONLY


class _LocalRDD(list):
    """What sc.parallelize gives: the Python objects, for spark.read.json and
    createDataFrame (silt has no RDDs)."""

    def collect(self):
        return list(self)

    def toDF(self, schema=None):
        return SparkSession._active.createDataFrame(list(self), schema)


class SparkContext:
    """The few SparkContext calls notebooks make, on silt's session."""

    def __init__(self, session):
        self._s = session

    @property
    def appName(self):
        return self._s._builder_conf.get("spark.app.name", "silt")

    @property
    def master(self):
        return self._s._builder_conf.get("spark.master", "local[*]")

    @property
    def defaultParallelism(self):
        return self._s._threads

    @property
    def version(self):
        return self._s.version

    def parallelize(self, data, numSlices=None):
        return _LocalRDD(data)

    def setLogLevel(self, logLevel):
        """Spark's log4j level: silt logs nothing at run time, so there is nothing to set."""
        if logLevel.upper() not in ("ALL", "DEBUG", "ERROR", "FATAL", "INFO", "OFF", "TRACE",
                                    "WARN"):
            raise ValueError("invalid log level %s" % logLevel)

    def stop(self):
        self._s.stop()


class Catalog:
    """spark.catalog: SHOW / USE / DROP on silt's catalog."""

    def __init__(self, session):
        self._s = session

    def currentDatabase(self):
        return self._s._conn.sql("SELECT current_database()").fetchone()[0]

    def setCurrentDatabase(self, dbName):
        self._s._conn._c.exec("USE %s" % quote_ident(dbName))

    def listDatabases(self, pattern=None):
        rows = self._s._conn.sql("SHOW DATABASES").fetchall()
        out = [_Database(r[0]) for r in rows]
        if pattern:
            out = [d for d in out if _like(d.name, pattern)]
        return out

    def listTables(self, dbName=None, pattern=None):
        sql = "SHOW TABLES" + (" IN %s" % quote_ident(dbName) if dbName else "")
        rel = self._s._conn.sql(sql)
        cols = rel.columns
        out = []
        for r in rel.fetchall():
            d = dict(zip(cols, r))
            out.append(_Table(d.get("tableName"), d.get("namespace") or d.get("database"),
                              bool(d.get("isTemporary"))))
        if pattern:
            out = [t for t in out if _like(t.name, pattern)]
        return out

    def tableExists(self, tableName, dbName=None):
        name = "%s.%s" % (dbName, tableName) if dbName else tableName
        try:
            self._s._conn.execute("DESCRIBE TABLE %s" % name).fetchall()
            return True
        except Exception:  # noqa: BLE001 - a missing table answers False
            return False

    def databaseExists(self, dbName):
        return any(d.name.lower() == dbName.lower() for d in self.listDatabases())

    def listColumns(self, tableName, dbName=None):
        name = "%s.%s" % (dbName, tableName) if dbName else tableName
        df = self._s.table(name)
        return [_ColumnInfo(f.name, f.dataType.simpleString()) for f in df.schema.fields]

    def dropTempView(self, viewName):
        self._s._conn._c.exec("DROP VIEW IF EXISTS %s" % quote_ident(viewName))
        return True

    def cacheTable(self, tableName):
        """A no-op, as DataFrame.cache (docs/python.md)."""

    def uncacheTable(self, tableName):
        """A no-op, as DataFrame.cache (docs/python.md)."""

    def clearCache(self):
        """A no-op, as DataFrame.cache (docs/python.md)."""

    def refreshTable(self, tableName):
        """silt reads a table's newest version at each query: nothing to refresh."""

    def createTable(self, tableName, path=None, source=None, schema=None, **options):
        src = (source or "delta").upper()
        if schema is not None:
            cols = " (%s)" % schema.ddl()
        else:
            cols = ""
        loc = " LOCATION %s" % _sql_string(path) if path else ""
        self._s._conn._c.exec("CREATE TABLE %s%s USING %s%s" % (tableName, cols, src, loc))
        return self._s.table(tableName)

    createExternalTable = createTable


class _Database:
    def __init__(self, name):
        self.name = name
        self.description = None
        self.locationUri = None

    def __repr__(self):
        return "Database(name=%r)" % self.name


class _Table:
    def __init__(self, name, database, temporary):
        self.name = name
        self.database = database
        self.isTemporary = temporary
        self.tableType = "TEMPORARY" if temporary else "MANAGED"

    def __repr__(self):
        return "Table(name=%r, database=%r, isTemporary=%r)" % (self.name, self.database,
                                                               self.isTemporary)


class _ColumnInfo:
    def __init__(self, name, dataType):
        self.name = name
        self.dataType = dataType
        self.nullable = True

    def __repr__(self):
        return "Column(name=%r, dataType=%r)" % (self.name, self.dataType)


def _like(name, pattern):
    rx = "^" + ".*".join(_re.escape(p) for p in pattern.split("*")) + "$"
    return _re.match(rx, name, _re.IGNORECASE) is not None


def _analysis(msg):
    from .utils import AnalysisException
    return AnalysisException(msg)


class SparkSession:
    """A silt connection with PySpark's API; one per process (getOrCreate)."""

    builder = _BuilderDescriptor()
    _active = None
    _lock = _threading.Lock()

    def __init__(self, options):
        self._builder_conf = {k: v for k, v in options.items() if k in _BUILDER_ONLY}
        self._threads = _threads_of(options.get("spark.master"))
        # Spark's default warehouse: spark-warehouse in the working folder.
        warehouse = options.get("spark.sql.warehouse.dir") or _os.path.abspath("spark-warehouse")
        if warehouse.startswith("file:"):
            warehouse = _re.sub(r"^file:(//)?", "", warehouse)
        _os.makedirs(warehouse, exist_ok=True)
        self._builder_conf["spark.sql.warehouse.dir"] = warehouse
        self._conn = _native.connect(warehouse=warehouse, threads=self._threads)
        if self._threads is None:
            self._threads = min(_os.cpu_count() or 1, 64)
        self._tmp = _tempfile.mkdtemp(prefix="silt-pyspark-")
        self._tmp_n = 0
        self._streams = []
        _atexit.register(self._cleanup)
        for k, v in options.items():
            if k not in _BUILDER_ONLY:
                self._conn._set(k, v)
        self.conf = RuntimeConfig(self)
        self.catalog = Catalog(self)
        self.sparkContext = SparkContext(self)

    @classmethod
    def getActiveSession(cls):
        return cls._active

    active = getActiveSession

    @property
    def version(self):
        from ... import __version__
        return __version__

    def newSession(self):
        raise NotImplementedError("silt.pyspark: newSession is not supported (one session a "
                                  "process)")

    # -- internals
    def _temp_path(self, ext):
        self._tmp_n += 1
        return _os.path.join(self._tmp, "d%d.%s" % (self._tmp_n, ext))

    def _cleanup(self):
        for q in list(self._streams):
            try:
                q.stop()
            except Exception:  # noqa: BLE001 - at exit
                pass
        _shutil.rmtree(self._tmp, ignore_errors=True)

    def _run_with(self, settings, stmt):
        """Runs stmt with session settings in place for it only."""
        conn = self._conn
        old = {}
        for k, v in settings.items():
            old[k] = conn.sql("SET %s" % k).fetchall()[0][1]
            conn._set(k, v)
        try:
            return conn.execute(stmt)
        finally:
            for k, v in old.items():
                if v is None or v == "<undefined>":
                    conn._c.exec("RESET %s" % k)
                else:
                    conn._set(k, v)

    def _materialize(self, table):
        """A pyarrow table as a DataFrame: a Parquet file silt reads (re-readable, any size)."""
        import pyarrow.parquet as pq
        if table.num_columns == 0:
            return DataFrame(self, None)
        path = self._temp_path("parquet")
        pq.write_table(table, path)
        return DataFrame(self, "SELECT * FROM parquet.`%s`" % path.replace("`", "``"))

    # -- the API
    def sql(self, sqlQuery, args=None, **kwargs):
        if kwargs:
            sqlQuery = sqlQuery.format(**{k: (v._sql if isinstance(v, DataFrame) else v)
                                          for k, v in kwargs.items()})
        if args:
            sqlQuery = _bind_args(sqlQuery, args)
        if _LAZY.match(sqlQuery) and ";" not in sqlQuery.strip().rstrip(";"):
            df = DataFrame(self, sqlQuery.strip().rstrip(";"))
            df._describe()  # Spark analyzes at once: a bad query fails here
            return df
        rel = self._conn.execute(sqlQuery)
        if not rel._desc[4]:
            return DataFrame(self, None)
        return self._materialize(rel.arrow())

    def table(self, tableName):
        df = DataFrame(self, "SELECT * FROM %s" % tableName)
        df._describe()
        return df

    def range(self, start, end=None, step=1, numPartitions=None):
        if end is None:
            start, end = 0, start
        return DataFrame(self, "SELECT id FROM range(%d, %d, %d)" % (start, end, step))

    @property
    def read(self):
        from .readwriter import DataFrameReader
        return DataFrameReader(self)

    @property
    def readStream(self):
        from .streaming import DataStreamReader
        return DataStreamReader(self)

    @property
    def streams(self):
        from .streaming import StreamingQueryManager
        return StreamingQueryManager(self)

    def createDataFrame(self, data, schema=None, samplingRatio=None, verifySchema=True):
        import pyarrow as pa
        if isinstance(schema, str):
            schema = T._parse_schema(schema) if (":" in schema or " " in schema.strip() or
                                                 "<" in schema) else T._parse_type(schema)
            if not isinstance(schema, T.StructType):
                schema = T.StructType([T.StructField("value", schema)])
        mod = type(data).__module__.split(".")[0]
        if mod == "pandas":
            table = pa.Table.from_pandas(data, preserve_index=False)
            table = _arrow_spark_types(table)
            if isinstance(schema, (list, tuple)):
                table = table.rename_columns(list(schema))
            elif isinstance(schema, T.StructType):
                table = table.rename_columns(schema.names).cast(_arrow_schema(schema))
            return self._materialize(table)
        if mod == "pyarrow":
            if isinstance(data, pa.RecordBatch):
                data = pa.Table.from_batches([data])
            if isinstance(schema, T.StructType):
                data = data.rename_columns(schema.names).cast(_arrow_schema(schema))
            return self._materialize(data)
        if isinstance(data, DataFrame):
            return data
        rows = list(data)
        names = None
        if isinstance(schema, (list, tuple)):
            names, schema = list(schema), None
        if schema is not None and not isinstance(schema, T.StructType):
            if isinstance(schema, T.DataType):
                schema = T.StructType([T.StructField("value", schema)])
                rows = [(r,) for r in rows]
        values, fields = _rows_to_columns(rows, schema, names)
        arrow_schema = _arrow_schema(fields)
        arrays = [pa.array([_to_arrow_value(v, f.dataType) for v in col], type=a.type)
                  for col, f, a in zip(values, fields.fields, arrow_schema)]
        table = pa.Table.from_arrays(arrays, schema=arrow_schema)
        if not fields.fields:
            return DataFrame(self, None)
        return self._materialize(table)

    def stop(self):
        for q in list(self._streams):
            q.stop()
        with SparkSession._lock:
            if SparkSession._active is self:
                SparkSession._active = None
        self._conn.close()
        self._cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _repr_html_(self):
        return "<p>SparkSession (silt %s)</p>" % self.version

    def udf(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: Python UDFs are not supported (no row is "
                                  "processed in Python)")


def _bind_args(sql, args):
    if isinstance(args, dict):
        return _re.sub(r":([A-Za-z_][A-Za-z0-9_]*)",
                       lambda m: lit_sql(args[m.group(1)]) if m.group(1) in args else m.group(0),
                       sql)
    it = iter(args)
    return _re.sub(r"\?", lambda m: lit_sql(next(it)), sql)


def _rows_to_columns(rows, schema, names):
    """Rows (tuples, Rows, dicts, scalars) as columns, with Spark's schema (given or inferred)."""
    if rows and isinstance(rows[0], dict):
        keys = list(schema.names) if schema is not None else list(rows[0].keys())
        tuples = [tuple(r.get(k) for k in keys) for r in rows]
        if names is None and schema is None:
            names = keys
    elif rows and isinstance(rows[0], Row) and hasattr(rows[0], "__fields__"):
        keys = rows[0].__fields__
        tuples = [tuple(r) for r in rows]
        if names is None and schema is None:
            names = list(keys)
    elif rows and not isinstance(rows[0], (tuple, list)):
        if schema is None:
            raise TypeError("silt.pyspark: createDataFrame of scalars needs a schema (a "
                            "DataType)")
        tuples = [(r,) for r in rows]
    else:
        tuples = [tuple(r) for r in rows]
    if schema is not None:
        if tuples and len(tuples[0]) != len(schema.fields):
            raise ValueError("Length of object (%d) does not match with length of fields (%d)"
                             % (len(tuples[0]), len(schema.fields)))
        return [list(c) for c in zip(*tuples)] if tuples else [[] for _ in schema.fields], schema
    width = len(tuples[0]) if tuples else len(names or [])
    if names is None:
        names = ["_%d" % (i + 1) for i in range(width)]
    cols = [list(c) for c in zip(*tuples)] if tuples else [[] for _ in names]
    fields = []
    for name, col in zip(names, cols):
        dtype = T.NullType()
        for v in col:
            if v is not None:
                dtype = T._infer(v)
                if not isinstance(dtype, T.NullType):
                    break
        if isinstance(dtype, T.NullType) and tuples:
            raise ValueError("[CANNOT_DETERMINE_TYPE] Some of types cannot be determined after "
                             "inferring.")
        fields.append(T.StructField(name, dtype))
    return cols, T.StructType(fields)


def _arrow_type(dtype):
    import pyarrow as pa
    m = {T.StringType: pa.string(), T.BinaryType: pa.binary(), T.BooleanType: pa.bool_(),
         T.DateType: pa.date32(), T.TimestampType: pa.timestamp("us", tz="UTC"),
         T.TimestampNTZType: pa.timestamp("us"), T.ByteType: pa.int8(), T.ShortType: pa.int16(),
         T.IntegerType: pa.int32(), T.LongType: pa.int64(), T.FloatType: pa.float32(),
         T.DoubleType: pa.float64(), T.NullType: pa.null()}
    for k, v in m.items():
        if type(dtype) is k:
            return v
    if isinstance(dtype, T.DecimalType):
        return pa.decimal128(dtype.precision, dtype.scale)
    if isinstance(dtype, T.ArrayType):
        return pa.list_(_arrow_type(dtype.elementType))
    if isinstance(dtype, T.MapType):
        return pa.map_(_arrow_type(dtype.keyType), _arrow_type(dtype.valueType))
    if isinstance(dtype, T.StructType):
        return pa.struct([pa.field(f.name, _arrow_type(f.dataType), f.nullable)
                          for f in dtype.fields])
    raise TypeError("silt.pyspark: no Arrow type for %r" % dtype)


def _arrow_schema(schema):
    import pyarrow as pa
    return pa.schema([pa.field(f.name, _arrow_type(f.dataType)) for f in schema.fields])


def _to_arrow_value(v, dtype):
    if v is None:
        return None
    if isinstance(dtype, T.TimestampType) and isinstance(v, _dt.datetime) and v.tzinfo is None:
        return v.astimezone(_dt.timezone.utc)  # naive = local time, as PySpark reads it
    if isinstance(dtype, T.StructType):
        if isinstance(v, dict):
            return {f.name: _to_arrow_value(v.get(f.name), f.dataType) for f in dtype.fields}
        return {f.name: _to_arrow_value(x, f.dataType) for f, x in zip(dtype.fields, v)}
    if isinstance(dtype, T.ArrayType):
        return [_to_arrow_value(x, dtype.elementType) for x in v]
    if isinstance(dtype, T.MapType):
        return [(_to_arrow_value(k, dtype.keyType), _to_arrow_value(x, dtype.valueType))
                for k, x in v.items()]
    if isinstance(dtype, T.DecimalType) and not isinstance(v, _decimal.Decimal):
        return _decimal.Decimal(str(v))
    if isinstance(dtype, (T.DoubleType, T.FloatType)) and isinstance(v, int):
        return float(v)
    return v


def _arrow_spark_types(table):
    """pandas' naive timestamps are local time to PySpark: as UTC instants (at the local
    offset of now; silt does not read the zone database from Python)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    offset_us = int(_dt.datetime.now().astimezone().utcoffset().total_seconds() * 1000000)
    cols = []
    for field, col in zip(table.schema, table.columns):
        if pa.types.is_timestamp(field.type) and field.type.tz is None:
            micros = pc.subtract(col.cast(pa.timestamp("us")).cast(pa.int64()), offset_us)
            col = micros.cast(pa.timestamp("us", tz="UTC"))
        cols.append(col)
    return pa.Table.from_arrays(cols, names=table.column_names)


__all__ = ["SparkSession", "SparkConf", "SparkContext", "Builder", "Catalog", "RuntimeConfig"]
