"""pyspark.sql.DataFrame for silt: a lazy SQL query.

Each DataFrame is the text of one silt query over its parents as
subqueries; nothing runs until an action (collect, count, show, toPandas,
write...), and then silt runs the whole text. No row passes through Python
except the rows an action returns.

A join on a Column condition stays "open" for the operations after it: the
next select/filter/drop/withColumn is written over the join's FROM clause
itself, so that df1.id and df2.id (both named id) can still be told apart,
as Spark tells them apart by plan ids."""

import datetime as _dt
import itertools as _itertools
import re as _re

from .column import Column, _c, _v, quote_ident, render, plain, lit_sql, _name_sql, _REF
from . import types as T

_ids = _itertools.count(1)


class Row(tuple):
    """pyspark.sql.Row: a tuple with field names."""

    def __new__(cls, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            row = tuple.__new__(cls, list(kwargs.values()))
            row.__fields__ = list(kwargs.keys())
            return row
        return tuple.__new__(cls, args)

    @classmethod
    def _make(cls, names, values):
        row = tuple.__new__(cls, values)
        row.__fields__ = list(names)
        return row

    def asDict(self, recursive=False):
        if not hasattr(self, "__fields__"):
            raise TypeError("Cannot convert a Row class into dict")

        def conv(v):
            if recursive and isinstance(v, Row):
                return v.asDict(True)
            if recursive and isinstance(v, list):
                return [conv(x) for x in v]
            if recursive and isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v
        return {k: conv(v) for k, v in zip(self.__fields__, self)}

    def __call__(self, *args):
        """Row("a", "b")(1, 2): a Row class used as a constructor."""
        return Row._make(list(self), args)

    def __getitem__(self, item):
        if isinstance(item, (int, slice)):
            return tuple.__getitem__(self, item)
        try:
            return tuple.__getitem__(self, self.__fields__.index(item))
        except (ValueError, AttributeError):
            raise KeyError(item) from None

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        try:
            return tuple.__getitem__(self, self.__fields__.index(item))
        except (ValueError, AttributeError):
            raise AttributeError(item) from None

    def __contains__(self, item):
        if hasattr(self, "__fields__"):
            return item in self.__fields__
        return tuple.__contains__(self, item)

    def __repr__(self):
        if hasattr(self, "__fields__"):
            return "Row(%s)" % ", ".join("%s=%r" % (k, v) for k, v in zip(self.__fields__, self))
        return "<Row(%s)>" % ", ".join(repr(v) for v in self)

    def __reduce__(self):
        if hasattr(self, "__fields__"):
            return (Row._make, (self.__fields__, tuple(self)))
        return (Row, tuple(self))


def _local_naive(ts):
    """PySpark returns timestamps as naive datetimes in the local time zone."""
    return ts.astimezone().replace(tzinfo=None)


def _convert(value, dtype):
    if value is None:
        return None
    if isinstance(dtype, T.TimestampType) and isinstance(value, _dt.datetime):
        return _local_naive(value) if value.tzinfo is not None else value
    if isinstance(dtype, T.StructType):
        return Row._make(dtype.names, [_convert(value.get(f.name), f.dataType)
                                       for f in dtype.fields])
    if isinstance(dtype, T.ArrayType):
        return [_convert(v, dtype.elementType) for v in value]
    if isinstance(dtype, T.MapType):
        return {_convert(k, dtype.keyType): _convert(v, dtype.valueType) for k, v in value.items()}
    return value


def _flatten(cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return list(cols)


_JOIN_TYPES = {
    "inner": "JOIN", "cross": "CROSS JOIN", "outer": "FULL OUTER JOIN", "full": "FULL OUTER JOIN",
    "fullouter": "FULL OUTER JOIN", "full_outer": "FULL OUTER JOIN", "left": "LEFT OUTER JOIN",
    "leftouter": "LEFT OUTER JOIN", "left_outer": "LEFT OUTER JOIN",
    "right": "RIGHT OUTER JOIN", "rightouter": "RIGHT OUTER JOIN",
    "right_outer": "RIGHT OUTER JOIN", "semi": "LEFT SEMI JOIN", "leftsemi": "LEFT SEMI JOIN",
    "left_semi": "LEFT SEMI JOIN", "anti": "LEFT ANTI JOIN", "leftanti": "LEFT ANTI JOIN",
    "left_anti": "LEFT ANTI JOIN",
}


class DataFrame:
    """A lazy silt query; see the module's doc."""

    def __init__(self, session, sql, parents=(), join=None, alias=None, streaming=None):
        self.sparkSession = session
        self._session = session
        self._sql = sql  # None: no columns and no rows
        self._id = next(_ids)
        ids = {self._id}
        for p in parents:
            ids |= p._ids
        self._ids = frozenset(ids)
        # join: {"from": text, "sides": [(qualifier, DataFrame)], "where": [text], "star": text}
        self._join = join
        self._alias_name = alias
        self._desc = None
        if streaming is None:
            streaming = next((p._streaming for p in parents if p._streaming is not None), None)
        # a streaming source (readStream's DataFrame and those built over it):
        # {"stream": its STREAM reference, "batch": the batch twin, "agg": grouped}
        self._streaming = streaming
        self.na = DataFrameNaFunctions(self)

    # -- the SQL behind the operations
    def _new(self, sql, parents=None, join=None):
        return DataFrame(self._session, sql, [self] if parents is None else parents, join,
                         streaming=self._streaming)

    def _resolver(self):
        if self._join is None:
            return plain
        sides = self._join["sides"]

        def resolve(df_id, name):
            for q, df in sides:
                if df._id == df_id:
                    return "%s.%s" % (q, quote_ident(name))
            hits = [q for q, df in sides if df_id in df._ids]
            if len(hits) == 1:
                return "%s.%s" % (hits[0], quote_ident(name))
            return _name_sql(name)
        return resolve

    def _from(self):
        """(FROM clause, WHERE conditions) the next operation is written over."""
        if self._join is not None:
            return self._join["from"], list(self._join["where"])
        if self._sql is None:
            return "(SELECT 1 AS `__silt_none` WHERE false) AS _t", []
        alias = quote_ident(self._alias_name) if self._alias_name else "_t%d" % self._id
        return "(%s) AS %s" % (self._sql, alias), []

    def _query(self, items, where=(), group=None, having=None, order=None, limit=None,
               distinct=False):
        frm, conds = self._from()
        conds += list(where)
        resolve = self._resolver()
        text = "SELECT %s%s FROM %s" % ("DISTINCT " if distinct else "", ", ".join(items), frm)
        if conds:
            text += " WHERE " + " AND ".join("(%s)" % render(c, resolve) for c in conds)
        if group is not None:
            text += " GROUP BY " + ", ".join(render(g, resolve) for g in group) if group else ""
        if having:
            text += " HAVING " + render(having, resolve)
        if order:
            text += " ORDER BY " + ", ".join(order)
        if limit is not None:
            text += " LIMIT %d" % limit
        return text

    def _star(self):
        return self._join["star"] if self._join is not None else "*"

    def _item(self, c):
        """A select item: a name, '*', or a Column."""
        if isinstance(c, str):
            if c == "*":
                return self._star()
            return _name_sql(c)
        if isinstance(c, Column):
            return c._select_sql(self._resolver())
        raise TypeError("silt.pyspark: select() takes column names or Columns, not %s"
                        % type(c).__name__)

    def _expr(self, c):
        return render(_c(c)._sql, self._resolver())

    def _qualified_columns(self):
        """[(select text, name)] of every output column, side-qualified for an open join."""
        if self._join is None:
            return [(quote_ident(n), n) for n in self.columns]
        out = []
        for q, df in self._join["sides"]:
            if self._join["star"] == "*" or q + ".*" in self._join["star"]:
                out += [("%s.%s" % (q, quote_ident(n)), n) for n in df.columns]
        return out

    # -- schema
    def _describe(self):
        if self._desc is None:
            if self._sql is None:
                self._desc = []
            else:
                stream = self._session._conn._run(
                    "SELECT * FROM (%s) AS _s LIMIT 0" % self._batch_sql(), None)
                self._desc = stream.schema()[4]
        return self._desc

    @property
    def schema(self):
        return T.StructType([T.StructField(d[0], T._from_silt(d)) for d in self._describe()])

    @property
    def columns(self):
        return [d[0] for d in self._describe()]

    @property
    def dtypes(self):
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    def printSchema(self, level=None):
        print(self.schema.treeString(), end="")

    @property
    def isStreaming(self):
        return self._streaming is not None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns:
            raise AttributeError("'DataFrame' object has no attribute '%s'" % name)
        return Column._bound(self._id, name)

    def __getitem__(self, item):
        if isinstance(item, str):
            if item == "*":
                return Column(self._star())
            return Column._bound(self._id, item)
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        if isinstance(item, int):
            return Column._bound(self._id, self.columns[item])
        raise TypeError("unexpected item type: %s" % type(item))

    def col(self, name):
        return self[name]

    def __repr__(self):
        try:
            return "DataFrame[%s]" % ", ".join("%s: %s" % d for d in self.dtypes)
        except Exception:  # noqa: BLE001 - repr must not fail
            return "DataFrame[...]"

    def _batch_sql(self):
        """The text with a stream's source replaced by its batch twin (for the schema)."""
        s = self._streaming
        if s is None:
            return self._sql
        return self._sql.replace(s["stream"], s["batch"])

    # -- transformations
    def _check_batch(self, what):
        if self._streaming is not None:
            if what == "write":
                raise _analysis_error("'write' can not be called on streaming "
                                      "Dataset/DataFrame")
            raise _analysis_error("Queries with streaming sources must be executed with "
                                  "writeStream.start();")

    def withWatermark(self, eventTime, delayThreshold):
        """Spark's watermark as silt's WATERMARK clause on the stream's source
        (docs/streaming.md): eventTime must be a TIMESTAMP column of the source."""
        s = self._streaming
        if s is None:
            raise _analysis_error("withWatermark is for streaming DataFrames (a batch "
                                  "DataFrame has no watermark)")
        if "WATERMARK" in s["stream"]:
            raise NotImplementedError("silt.pyspark: one withWatermark per stream")
        if not isinstance(delayThreshold, str) or not delayThreshold.strip():
            raise ValueError("delayThreshold should be provided")
        ref = "%s WATERMARK %s DELAY OF INTERVAL %s" % (
            s["stream"], quote_ident(eventTime), delayThreshold.strip())
        df = DataFrame(self._session, self._sql.replace(s["stream"], ref), [self], self._join,
                       self._alias_name, streaming=dict(s, stream=ref))
        return df

    def select(self, *cols):
        cols = _flatten(cols)
        return self._new(self._query([self._item(c) for c in cols]))

    def selectExpr(self, *exprs):
        exprs = _flatten(exprs)
        return self._new(self._query(list(exprs)))

    def filter(self, condition):
        cond = condition if isinstance(condition, str) else _c(condition)._sql
        if self._join is not None:
            j = dict(self._join)
            j["where"] = list(j["where"]) + [cond]
            return DataFrame(self._session, self._query([self._star()], where=[cond]), [self], j,
                             streaming=self._streaming)
        return self._new(self._query(["*"], where=[cond]))

    where = filter

    def withColumn(self, colName, col):
        if not isinstance(col, Column):
            raise TypeError("col should be Column")
        return self.withColumns({colName: col})

    def withColumns(self, *colsMap):
        mapping = colsMap[0] if colsMap else {}
        items = []
        seen = set()
        resolve = self._resolver()
        for text, name in self._qualified_columns():
            hit = next((k for k in mapping if k.lower() == name.lower()), None)
            if hit is not None:
                items.append("%s AS %s" % (render(mapping[hit]._sql, resolve), quote_ident(hit)))
                seen.add(hit)
            else:
                items.append(text)
        for k, c in mapping.items():
            if k not in seen:
                items.append("%s AS %s" % (render(c._sql, resolve), quote_ident(k)))
        return self._new(self._query(items))

    def withColumnRenamed(self, existing, new):
        return self.withColumnsRenamed({existing: new})

    def withColumnsRenamed(self, colsMap):
        items = []
        for text, name in self._qualified_columns():
            hit = next((k for k in colsMap if k.lower() == name.lower()), None)
            items.append("%s AS %s" % (text, quote_ident(colsMap[hit])) if hit else text)
        return self._new(self._query(items))

    def toDF(self, *cols):
        names = self.columns
        if len(cols) != len(names):
            raise ValueError("Number of column names (%d) does not match the DataFrame's (%d)"
                             % (len(cols), len(names)))
        return self._new(self._query(["%s AS %s" % (t, quote_ident(n)) for (t, _), n in
                                      zip(self._qualified_columns(), cols)]))

    def drop(self, *cols):
        drop_names = set()
        drop_bound = []
        for c in cols:
            if isinstance(c, str):
                drop_names.add(c.lower())
            elif isinstance(c, Column):
                m = _REF.fullmatch(c._sql)
                if m:
                    drop_bound.append(render(c._sql, self._resolver()))
                elif c._bare_name() is not None:
                    drop_names.add(c._bare_name().lower())
            else:
                raise TypeError("silt.pyspark: drop() takes names or Columns")
        keep = []
        for text, name in self._qualified_columns():
            if name.lower() in drop_names:
                continue
            if text in drop_bound or (self._join is None and quote_ident(name) in drop_bound):
                continue
            keep.append(text)
        if not keep:
            return DataFrame(self._session, None, [self])
        return self._new(self._query(keep))

    def alias(self, alias):
        df = DataFrame(self._session, self._sql if self._join is None else self._sql, [self],
                       alias=alias, streaming=self._streaming)
        return df

    def limit(self, num):
        return self._new(self._query([self._star()], limit=int(num)))

    def offset(self, num):
        return self._new("%s OFFSET %d" % (self._query([self._star()]), int(num)))

    def orderBy(self, *cols, **kwargs):
        cols = _flatten(cols)
        ascending = kwargs.get("ascending", True)
        if isinstance(ascending, (list, tuple)):
            flags = list(ascending)
        else:
            flags = [ascending] * len(cols)
        resolve = self._resolver()
        order = [_c(c)._order_sql(resolve, bool(a)) for c, a in zip(cols, flags)]
        return self._new(self._query([self._star()], order=order))

    sort = orderBy

    def sortWithinPartitions(self, *cols, **kwargs):
        raise NotImplementedError("silt.pyspark: sortWithinPartitions is not supported (silt "
                                  "has no user-visible partitions); use orderBy")

    def distinct(self):
        return self._new(self._query([self._star()], distinct=True))

    def dropDuplicates(self, subset=None):
        if subset is None:
            return self.distinct()
        if isinstance(subset, str):
            subset = [subset]
        # Spark keeps one row of each group (its first); silt keeps the row first in the
        # input order of each group by row_number over no particular order.
        part = ", ".join(_name_sql(s) for s in subset)
        cols = ", ".join(quote_ident(n) for n in self.columns)
        inner = self._query(["*", "row_number() OVER (PARTITION BY %s ORDER BY %s) AS "
                             "`__silt_rn`" % (part, part)])
        return self._new("SELECT %s FROM (%s) AS _d WHERE `__silt_rn` = 1" % (cols, inner))

    drop_duplicates = dropDuplicates

    def groupBy(self, *cols):
        return GroupedData(self, _flatten(cols))

    groupby = groupBy

    def agg(self, *exprs):
        return self.groupBy().agg(*exprs)

    def join(self, other, on=None, how=None):
        how = (how or "inner").lower().replace(" ", "")
        if how not in _JOIN_TYPES:
            raise ValueError("Unsupported join type '%s'" % how)
        kind = _JOIN_TYPES[how]
        lq = quote_ident(self._alias_name) if self._alias_name else "_l%d" % self._id
        rq = quote_ident(other._alias_name) if other._alias_name else "_r%d" % other._id
        left = "(%s) AS %s" % (self._sql, lq)
        right = "(%s) AS %s" % (other._sql, rq)
        if isinstance(on, str):
            on = [on]
        if isinstance(on, (list, tuple)) and on and all(isinstance(x, str) for x in on):
            if kind == "CROSS JOIN":
                kind = "JOIN"
            items = "*"
            if "SEMI" in kind or "ANTI" in kind:
                # Spark puts the USING keys first for semi and anti joins too.
                low = {k.lower() for k in on}
                items = ", ".join([quote_ident(k) for k in on] + [
                    "%s.%s" % (lq, quote_ident(n)) for n in self.columns if n.lower() not in low])
            text = "SELECT %s FROM %s %s %s USING (%s)" % (items, left, kind, right,
                                                           ", ".join(quote_ident(k) for k in on))
            return DataFrame(self._session, text, [self, other])
        sides = [(lq, self), (rq, other)]
        star = "%s.*" % lq if "SEMI" in kind or "ANTI" in kind else "%s.*, %s.*" % (lq, rq)
        if on is None or (isinstance(on, (list, tuple)) and not on):
            if kind != "CROSS JOIN" and how != "inner":
                raise ValueError("a %s join needs a condition" % how)
            frm = "%s CROSS JOIN %s" % (left, right)
        else:
            if isinstance(on, (list, tuple)):
                cond = on[0]
                for c in on[1:]:
                    cond = cond & c
            else:
                cond = on
            if kind == "CROSS JOIN":
                kind = "JOIN"
            j = {"from": "", "sides": sides, "where": [], "star": star}
            tmp = DataFrame(self._session, None, [self, other], j)
            frm = "%s %s %s ON %s" % (left, kind, right, render(_c(cond)._sql, tmp._resolver()))
        j = {"from": frm, "sides": sides, "where": [], "star": star}
        return DataFrame(self._session, "SELECT %s FROM %s" % (star, frm), [self, other], j)

    def crossJoin(self, other):
        return self.join(other, how="cross")

    def union(self, other):
        return DataFrame(self._session, "SELECT * FROM (%s) AS _u1 UNION ALL SELECT * FROM (%s) "
                         "AS _u2" % (self._sql, other._sql), [self, other])

    unionAll = union

    def unionByName(self, other, allowMissingColumns=False):
        mine = self.columns
        theirs = other.columns
        low = {n.lower(): n for n in theirs}
        items = []
        for n in mine:
            if n.lower() in low:
                items.append(quote_ident(low[n.lower()]))
            elif allowMissingColumns:
                items.append("NULL AS %s" % quote_ident(n))
            else:
                raise _analysis_error(
                    "[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the same "
                    "number of columns" if len(mine) != len(theirs) else
                    "[UNRESOLVED_COLUMN.WITH_SUGGESTION] Cannot resolve column name \"%s\" "
                    "among (%s)" % (n, ", ".join(theirs)))
        extra = [n for n in theirs if n.lower() not in {m.lower() for m in mine}]
        if extra and not allowMissingColumns:
            raise _analysis_error("[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs "
                                  "with the same number of columns")
        left = "SELECT *%s FROM (%s) AS _u1" % ("".join(", NULL AS %s" % quote_ident(n)
                                                       for n in extra), self._sql)
        right = "SELECT %s FROM (%s) AS _u2" % (", ".join(items + [quote_ident(n) for n in extra]),
                                               other._sql)
        return DataFrame(self._session, "%s UNION ALL %s" % (left, right), [self, other])

    def intersect(self, other):
        return DataFrame(self._session, "SELECT * FROM (%s) AS _u1 INTERSECT SELECT * FROM (%s) "
                         "AS _u2" % (self._sql, other._sql), [self, other])

    def intersectAll(self, other):
        return DataFrame(self._session, "SELECT * FROM (%s) AS _u1 INTERSECT ALL SELECT * FROM "
                         "(%s) AS _u2" % (self._sql, other._sql), [self, other])

    def subtract(self, other):
        return DataFrame(self._session, "SELECT * FROM (%s) AS _u1 EXCEPT SELECT * FROM (%s) "
                         "AS _u2" % (self._sql, other._sql), [self, other])

    def sample(self, withReplacement=None, fraction=None, seed=None):
        """Spark's Bernoulli sample: a row is kept when the next draw of rand(seed) is below
        fraction, Spark's BernoulliCellSampler over Spark's generator (docs/python.md: the
        same rows as Spark's for a one-partition input)."""
        if isinstance(withReplacement, float) and fraction is None:
            withReplacement, fraction = None, withReplacement
        elif isinstance(withReplacement, float) and isinstance(fraction, int):
            withReplacement, fraction, seed = None, withReplacement, fraction
        if withReplacement:
            raise NotImplementedError("silt.pyspark: sample(withReplacement=True) (Poisson "
                                      "sampling) is not supported")
        if not isinstance(fraction, (int, float)) or fraction < 0:
            raise ValueError("fraction must be a non-negative number, got %r" % (fraction,))
        draw = "rand(%dL)" % int(seed) if seed is not None else "rand()"
        return self._new(self._query([self._star()], where=["%s < %r" % (draw, float(fraction))]))

    def repartition(self, *args, **kwargs):
        """Spark's partitioning of a DataFrame has no meaning in silt: the same DataFrame."""
        return self

    coalesce = repartition

    def cache(self):
        """A no-op: silt reads the sources again at each action (docs/python.md)."""
        return self

    def persist(self, storageLevel=None):
        """A no-op, as cache() (docs/python.md)."""
        return self

    def unpersist(self, blocking=False):
        return self

    def hint(self, name, *parameters):
        return self

    def createOrReplaceTempView(self, name):
        self._check_batch("createOrReplaceTempView")
        self._session._conn._c.exec("CREATE OR REPLACE TEMPORARY VIEW %s AS %s"
                                    % (quote_ident(name), self._sql))

    def createTempView(self, name):
        self._session._conn._c.exec("CREATE TEMPORARY VIEW %s AS %s"
                                    % (quote_ident(name), self._sql))

    registerTempTable = createOrReplaceTempView

    def createOrReplaceGlobalTempView(self, name):
        raise NotImplementedError("silt.pyspark: global temporary views are not supported")

    # -- actions
    def _relation(self):
        self._check_batch("an action")
        return self._session._conn.sql(self._sql)

    def collect(self):
        if self._sql is None:
            return []
        self._check_batch("collect")
        rel = self._session._conn.execute(self._sql)
        schema = self.schema
        names = rel.columns
        rows = rel.fetchall()
        fields = schema.fields
        return [Row._make(names, [_convert(v, f.dataType) for v, f in zip(r, fields)])
                for r in rows]

    def toLocalIterator(self, prefetchPartitions=False):
        return iter(self.collect())

    def count(self):
        if self._sql is None:
            return 0
        self._check_batch("count")
        return self._session._conn.sql("SELECT count(1) FROM (%s) AS _c" % self._sql).fetchone()[0]

    def take(self, num):
        return self.limit(num).collect()

    def head(self, n=None):
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self):
        return self.head()

    def tail(self, num):
        rows = self.collect()
        return rows[-num:] if num else []

    def isEmpty(self):
        return len(self.take(1)) == 0

    def toPandas(self):
        self._check_batch("toPandas")
        if self._sql is None:
            import pandas
            return pandas.DataFrame()
        table = self._session._conn.execute(self._sql).arrow()
        pdf = table.to_pandas()
        import pandas
        for name in pdf.columns:
            if isinstance(pdf[name].dtype, pandas.DatetimeTZDtype):
                pdf[name] = pdf[name].dt.tz_convert(_local_tz()).dt.tz_localize(None)
        return pdf

    def toArrow(self):
        return self._session._conn.execute(self._sql).arrow()

    def _show_string(self, n=20, truncate=True, vertical=False):
        if isinstance(truncate, bool):
            truncate = 20 if truncate else 0
        if self._sql is None:
            return "++\n||\n++\n++\n"
        self._check_batch("show")
        return self._session._conn._format(self._sql, n, int(truncate), bool(vertical))

    def show(self, n=20, truncate=True, vertical=False):
        print(self._show_string(n, truncate, vertical))

    def describe(self, *cols):
        """count, mean, stddev, min, max of the numeric and string columns, as strings."""
        cols = _flatten(cols)
        df = self.select(*cols) if cols else self
        return df.summary("count", "mean", "stddev", "min", "max")

    def summary(self, *statistics):
        """Spark's summary(): one row a statistic, a string column per numeric or string
        column (percentiles are percentile_approx with Spark's accuracy, 10000)."""
        stats = list(statistics) or ["count", "mean", "stddev", "min", "25%", "50%", "75%",
                                     "max"]
        numeric = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType,
                   T.DoubleType, T.DecimalType)
        fields = [f for f in self.schema.fields
                  if isinstance(f.dataType, numeric + (T.StringType,))]
        rows = []
        for i, st in enumerate(stats):
            items = ["%s AS `summary`" % lit_sql(st)]
            for f in fields:
                c = quote_ident(f.name)
                num = isinstance(f.dataType, numeric)
                if st == "count":
                    e = "count(%s)" % c
                elif st == "count_distinct":
                    e = "count(DISTINCT %s)" % c
                elif st == "approx_count_distinct":
                    e = "approx_count_distinct(%s)" % c
                elif st == "mean":
                    e = "avg(%s)" % c if num else "NULL"
                elif st == "stddev":
                    e = "stddev(%s)" % c if num else "NULL"
                elif st in ("min", "max"):
                    e = "%s(%s)" % (st, c)
                elif st.endswith("%"):
                    try:
                        pct = float(st[:-1]) / 100
                    except ValueError:
                        raise ValueError("Unable to parse %s as a percentile" % st) from None
                    e = "percentile_approx(%s, %r, 10000)" % (c, pct) if num else "NULL"
                else:
                    raise ValueError("%s is not a recognised statistic" % st)
                items.append("CAST(%s AS STRING) AS %s" % (e, c))
            items.append("%d AS `__silt_ord`" % i)
            rows.append("SELECT %s FROM (%s) AS _s%d" % (", ".join(items), self._sql, i))
        names = ", ".join(["`summary`"] + [quote_ident(f.name) for f in fields])
        return DataFrame(self._session, "SELECT %s FROM (%s) AS _sum ORDER BY `__silt_ord`"
                         % (names, " UNION ALL ".join(rows)), [self])

    def explain(self, extended=None, mode=None):
        for (line,) in self._session._conn.sql("EXPLAIN %s" % self._sql).fetchall():
            print(line)

    def foreach(self, f):
        for row in self.collect():
            f(row)

    @property
    def write(self):
        from .readwriter import DataFrameWriter
        self._check_batch("write")
        return DataFrameWriter(self)

    @property
    def writeStream(self):
        from .streaming import DataStreamWriter
        return DataStreamWriter(self)

    @property
    def rdd(self):
        raise NotImplementedError("silt.pyspark: DataFrame.rdd is not supported (no RDDs in "
                                  "silt)")


def _local_tz():
    return _dt.datetime.now().astimezone().tzinfo


def _analysis_error(msg):
    from .utils import AnalysisException
    return AnalysisException(msg)


class GroupedData:
    """df.groupBy(...): aggregations written as GROUP BY."""

    def __init__(self, df, cols):
        self._df = df
        self._cols = cols

    def _keys(self):
        items, group = [], []
        for c in self._cols:
            col = _c(c)
            items.append(col._select_sql(self._df._resolver()))
            group.append(col._sql)
        return items, group

    def agg(self, *exprs):
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            cols = []
            for name, fn in exprs[0].items():
                fn = {"mean": "avg", "average": "avg"}.get(fn, fn)
                cols.append(Column("count(1)") if name == "*" and fn == "count" else
                            Column("%s(%s)" % (fn, _name_sql(name))))
            exprs = cols
        items, group = self._keys()
        resolve = self._df._resolver()
        items += [e._select_sql(resolve) for e in exprs]
        return self._grouped(self._df._query(items, group=group))

    def _grouped(self, sql):
        df = self._df._new(sql)
        if df._streaming is not None:
            df._streaming = dict(df._streaming, agg=True)
        return df

    def count(self):
        items, group = self._keys()
        return self._grouped(self._df._query(items + ["count(1) AS `count`"], group=group))

    def _simple(self, fn, cols):
        if not cols:
            key_names = {c if isinstance(c, str) else c._bare_name() for c in self._cols}
            numeric = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType,
                       T.DoubleType, T.DecimalType)
            cols = [f.name for f in self._df.schema.fields
                    if isinstance(f.dataType, numeric) and f.name not in key_names]
        return self.agg(*[Column("%s(%s)" % (fn, _name_sql(c))) for c in cols])

    def sum(self, *cols):
        return self._simple("sum", cols)

    def avg(self, *cols):
        return self._simple("avg", cols)

    mean = avg

    def min(self, *cols):
        return self._simple("min", cols)

    def max(self, *cols):
        return self._simple("max", cols)

    def pivot(self, pivot_col, values=None):
        """Spark's pivot: one column per value (and aggregate), each aggregate's arguments
        taken where the pivot column equals the value (<=>), as Spark rewrites them. Without
        values, the distinct values are read first, sorted, as Spark does."""
        return PivotedData(self, _c(pivot_col), values)


_AGG_CALL = _re.compile(r"^\s*(\w+)\((DISTINCT\s+)?(.*)\)\s*$", _re.S | _re.I)
_CONST = _re.compile(r"^(-?\d+(\.\d*)?[LDS]?|'.*'|true|false|NULL)$", _re.I)


def _split_args(text):
    out, depth, cur, quote = [], 0, "", None
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'`\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _pivot_value_name(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class PivotedData:
    """df.groupBy(...).pivot(col[, values]): agg / count / sum / avg / min / max."""

    def __init__(self, grouped, pivot, values):
        self._g = grouped
        self._pivot = pivot
        self._values = values

    def _vals(self):
        if self._values is not None:
            return list(self._values)
        df = self._g._df
        key = self._pivot._sql
        rows = df._session._conn.execute(
            "SELECT DISTINCT %s FROM (%s) AS _pv ORDER BY 1 ASC NULLS FIRST"
            % (render(key, df._resolver()) if df._join is None else key, df._sql)).fetchall()
        return [r[0] for r in rows]

    def agg(self, *exprs):
        df = self._g._df
        resolve = df._resolver()
        key = render(self._pivot._sql, resolve)
        names = df._new(df._query([e._select_sql(resolve) for e in exprs])).columns
        items, group = self._g._keys()
        single = len(exprs) == 1
        for v in self._vals():
            cond = "%s <=> %s" % (key, lit_sql(v))
            for e, aname in zip(exprs, names):
                m = _AGG_CALL.match(render(e._sql, resolve))
                if m is None:
                    raise NotImplementedError("silt.pyspark: pivot takes aggregate function "
                                              "calls, not %s" % e._sql)
                args = [a if _CONST.match(a) and not a.upper() == "NULL" and
                        m.group(1).lower() != "count" else
                        "CASE WHEN %s THEN %s END" % (cond, "1" if a == "*" else a)
                        for a in _split_args(m.group(3))]
                if m.group(1).lower() == "count" and args == []:
                    args = ["CASE WHEN %s THEN 1 END" % cond]
                text = "%s(%s%s)" % (m.group(1), m.group(2) or "", ", ".join(args))
                if m.group(1).lower() == "count":
                    # Spark's PivotFirst: a (group, value) without rows is NULL, not 0
                    text = "CASE WHEN count(CASE WHEN %s THEN 1 END) > 0 THEN %s END" % (
                        cond, text)
                name = _pivot_value_name(v) if single else "%s_%s" % (_pivot_value_name(v),
                                                                      aname)
                items.append("%s AS %s" % (text, quote_ident(name)))
        return self._g._grouped(df._query(items, group=group))

    def count(self):
        return self.agg(Column("count(1)"))

    def _simple(self, fn, cols):
        return self.agg(*[Column("%s(%s)" % (fn, _name_sql(c))) for c in cols])

    def sum(self, *cols):
        return self._simple("sum", cols)

    def avg(self, *cols):
        return self._simple("avg", cols)

    mean = avg

    def min(self, *cols):
        return self._simple("min", cols)

    def max(self, *cols):
        return self._simple("max", cols)


class DataFrameNaFunctions:
    """df.na.fill / df.na.drop as SQL (coalesce; IS NOT NULL counts)."""

    def __init__(self, df):
        self._df = df

    def fill(self, value, subset=None):
        df = self._df
        schema = df.schema
        if isinstance(subset, str):
            subset = [subset]
        if isinstance(value, dict):
            mapping = value
        else:
            mapping = {}
            for f in schema.fields:
                if subset is not None and f.name not in subset:
                    continue
                if _fill_applies(value, f.dataType):
                    mapping[f.name] = value
        items = []
        for f in schema.fields:
            if f.name in mapping:
                v = mapping[f.name]
                if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                        not isinstance(f.dataType, (T.DoubleType, T.FloatType)):
                    lit = "CAST(%s AS %s)" % (lit_sql(v), f.dataType.sqlName())
                else:
                    lit = lit_sql(v)
                items.append("coalesce(%s, %s) AS %s" % (quote_ident(f.name), lit,
                                                         quote_ident(f.name)))
            else:
                items.append(quote_ident(f.name))
        return df._new(df._query(items))

    def drop(self, how="any", thresh=None, subset=None):
        df = self._df
        names = df.columns if subset is None else ([subset] if isinstance(subset, str) else subset)
        if thresh is None:
            thresh = len(names) if how == "any" else 1
        count = " + ".join("CASE WHEN %s IS NOT NULL THEN 1 ELSE 0 END" % quote_ident(n)
                           for n in names) or "0"
        return df._new(df._query(["*"], where=["(%s) >= %d" % (count, thresh)]))

    def replace(self, *args, **kwargs):
        raise NotImplementedError("silt.pyspark: na.replace is not supported")


def _fill_applies(value, dtype):
    if isinstance(value, bool):
        return isinstance(dtype, T.BooleanType)
    if isinstance(value, (int, float)):
        return isinstance(dtype, (T.ByteType, T.ShortType, T.IntegerType, T.LongType,
                                  T.FloatType, T.DoubleType, T.DecimalType))
    if isinstance(value, str):
        return isinstance(dtype, T.StringType)
    return False


__all__ = ["DataFrame", "GroupedData", "PivotedData", "Row", "DataFrameNaFunctions"]
