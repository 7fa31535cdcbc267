"""pyspark.sql.functions for silt: each function returns a Column whose text
is the silt SQL function of the same meaning, written so that silt names the
column as Spark names it. A function that needs a SQL function silt does not
have raises NotImplementedError naming it."""

import builtins as _builtins

from .column import Column, _c, _v, lit_sql, _name_sql, quote_ident, _sql_string, spark_name


def col(name):
    return Column(_name_sql(name))


column = col


def lit(value):
    if isinstance(value, Column):
        return value
    return Column(lit_sql(value))


def expr(text):
    """SQL text as a Column (silt parses it when the query runs)."""
    return Column(text)


def _fn(name, *cols):
    return Column("%s(%s)" % (name, ", ".join(_c(c)._sql for c in cols)))


def _missing(sql_name, py_name):
    def f(*args, **kwargs):
        raise NotImplementedError(
            "silt.pyspark: functions.%s needs the SQL function %s(), which silt does not have "
            "yet" % (py_name, sql_name))
    f.__name__ = py_name
    return f


# -- conditional
def when(condition, value):
    return Column("CASE WHEN %s THEN %s END" % (_c(condition)._sql, _v(value)._sql))


def coalesce(*cols):
    return _fn("coalesce", *cols)


def isnull(c):
    return Column("(%s IS NULL)" % _c(c)._sql)


def isnotnull(c):
    return Column("(%s IS NOT NULL)" % _c(c)._sql)


def isnan(c):
    return _fn("isnan", c)


def nvl(c1, c2):
    return _fn("nvl", c1, c2)


def ifnull(c1, c2):
    return _fn("ifnull", c1, c2)


def nullif(c1, c2):
    return _fn("nullif", c1, c2)


def greatest(*cols):
    return _fn("greatest", *cols)


def least(*cols):
    return _fn("least", *cols)


# -- math
def rand(seed=None):
    if seed is None:
        return Column("rand()")
    return Column("rand(%d)" % seed)


def randn(seed=None):
    if seed is None:
        return Column("randn()")
    return Column("randn(%d)" % seed)


def round(c, scale=0):
    return Column("round(%s, %s)" % (_c(c)._sql, lit_sql(scale)))


def bround(c, scale=0):
    return Column("bround(%s, %s)" % (_c(c)._sql, lit_sql(scale)))


def abs(c):
    return _fn("abs", c)


def _upper_fn(name, c):
    c = _c(c)
    return Column("%s(%s)" % (name.lower(), c._sql), name=spark_name(c, name))


def sqrt(c):
    return _upper_fn("SQRT", c)


def exp(c):
    return _upper_fn("EXP", c)


def log(arg1, arg2=None):
    if arg2 is None:
        return Column("ln(%s)" % _c(arg1)._sql)
    return Column("LOG(%s, %s)" % (lit_sql(arg1), _c(arg2)._sql))


def pow(c1, c2):
    a = _c(c1) if isinstance(c1, str) else _v(c1)
    b = _c(c2) if isinstance(c2, str) else _v(c2)
    name = None
    if a._bare_name() is not None and not isinstance(c2, (str, Column)):
        name = "POWER(%s, %s)" % (a._bare_name(), c2)
    return Column("power(%s, %s)" % (a._sql, b._sql), name=name)


power = pow


def floor(c):
    return _upper_fn("FLOOR", c)


def ceil(c):
    return _upper_fn("CEIL", c)


def signum(c):
    return _upper_fn("SIGNUM", c)


# -- aggregates
def count(c):
    if isinstance(c, str) and c == "*":
        return Column("count(1)")
    return _fn("count", c)


def sum(c):
    return _fn("sum", c)


def avg(c):
    return _fn("avg", c)


def mean(c):
    return Column("avg(%s)" % _c(c)._sql)


def max(c):
    return _fn("max", c)


def min(c):
    return _fn("min", c)


def first(c, ignorenulls=False):
    if ignorenulls:
        return Column("first(%s, true)" % _c(c)._sql)
    return _fn("first", c)


def last(c, ignorenulls=False):
    if ignorenulls:
        return Column("last(%s, true)" % _c(c)._sql)
    return _fn("last", c)


def countDistinct(c, *cols):
    return Column("count(DISTINCT %s)" % ", ".join(_c(x)._sql for x in (c,) + cols))


count_distinct = countDistinct


def sumDistinct(c):
    return Column("sum(DISTINCT %s)" % _c(c)._sql)


sum_distinct = sumDistinct


def approx_count_distinct(c, rsd=None):
    if rsd is None:
        return _fn("approx_count_distinct", c)
    return Column("approx_count_distinct(%s, %s)" % (_c(c)._sql, lit_sql(rsd)))


def stddev(c):
    return _fn("stddev", c)


def stddev_samp(c):
    return _fn("stddev_samp", c)


def stddev_pop(c):
    return _fn("stddev_pop", c)


def variance(c):
    return _fn("variance", c)


def var_samp(c):
    return _fn("var_samp", c)


def var_pop(c):
    return _fn("var_pop", c)


def collect_list(c):
    return _fn("collect_list", c)


def collect_set(c):
    return _fn("collect_set", c)


def max_by(c, ord):
    return _fn("max_by", c, ord)


def min_by(c, ord):
    return _fn("min_by", c, ord)


def bool_and(c):
    return _fn("bool_and", c)


def bool_or(c):
    return _fn("bool_or", c)


every = bool_and
some = bool_or


def count_if(c):
    return _fn("count_if", c)


def any_value(c, ignoreNulls=None):
    if ignoreNulls:
        return Column("any_value(%s, true)" % _c(c)._sql)
    return _fn("any_value", c)


def percentile_approx(c, percentage, accuracy=10000):
    pct = _v(list(percentage)) if isinstance(percentage, (list, tuple)) else _v(percentage)
    return Column("percentile_approx(%s, %s, %s)" % (_c(c)._sql, pct._sql, _v(accuracy)._sql))


def median(c):
    return _fn("median", c)


# -- strings
def concat(*cols):
    return _fn("concat", *cols)


def concat_ws(sep, *cols):
    return Column("concat_ws(%s, %s)" % (_sql_string(sep), ", ".join(_c(c)._sql for c in cols)))


def upper(c):
    return _fn("upper", c)


def lower(c):
    return _fn("lower", c)


def trim(c):
    return _fn("trim", c)


def ltrim(c):
    return _fn("ltrim", c)


def rtrim(c):
    return _fn("rtrim", c)


def length(c):
    return _fn("length", c)


def initcap(c):
    return _fn("initcap", c)


def reverse(c):
    return _fn("reverse", c)


def substring(c, pos, len):
    return Column("substring(%s, %s, %s)" % (_c(c)._sql, lit_sql(pos), lit_sql(len)))


def split(c, pattern, limit=-1):
    if limit != -1:
        raise NotImplementedError("silt.pyspark: split() with a limit needs the 3-argument SQL "
                                  "split(), which silt does not have yet")
    c = _c(c)
    return Column("split(%s, %s)" % (c._sql, _sql_string(pattern)),
                  name=spark_name(c, "split", pattern, -1))


def regexp_replace(string, pattern, replacement):
    p = _v(pattern)._sql
    r = _v(replacement)._sql
    c = _c(string)
    name = None
    if not isinstance(pattern, Column) and not isinstance(replacement, Column):
        name = spark_name(c, "regexp_replace", pattern, replacement, 1)
    return Column("regexp_replace(%s, %s, %s)" % (c._sql, p, r), name=name)


def regexp_extract(c, pattern, idx):
    return Column("regexp_extract(%s, %s, %d)" % (_c(c)._sql, _sql_string(pattern), idx))


def lpad(c, len, pad):
    return Column("lpad(%s, %d, %s)" % (_c(c)._sql, len, _sql_string(pad)))


def rpad(c, len, pad):
    return Column("rpad(%s, %d, %s)" % (_c(c)._sql, len, _sql_string(pad)))


def instr(c, substr):
    return Column("instr(%s, %s)" % (_c(c)._sql, _sql_string(substr)))


def repeat(c, n):
    return Column("repeat(%s, %d)" % (_c(c)._sql, n))


def translate(c, matching, replace):
    return Column("translate(%s, %s, %s)" % (_c(c)._sql, _sql_string(matching),
                                             _sql_string(replace)))


def format_string(fmt, *cols):
    return Column("format_string(%s, %s)" % (_sql_string(fmt), ", ".join(_c(c)._sql for c in cols)))


def md5(c):
    return _fn("md5", c)


def sha1(c):
    return _fn("sha1", c)


def sha2(c, numBits):
    return Column("sha2(%s, %d)" % (_c(c)._sql, numBits))


def hash(*cols):
    return _fn("hash", *cols)


# -- dates and times
def current_timestamp():
    return Column("current_timestamp()")


def current_date():
    return Column("current_date()")


def now():
    return Column("now()")


def year(c):
    return _fn("year", c)


def month(c):
    return _fn("month", c)


def dayofmonth(c):
    return _fn("dayofmonth", c)


def dayofweek(c):
    return _fn("dayofweek", c)


def dayofyear(c):
    return _fn("dayofyear", c)


def quarter(c):
    return _fn("quarter", c)


def weekofyear(c):
    return _fn("weekofyear", c)


def hour(c):
    return _fn("hour", c)


def minute(c):
    return _fn("minute", c)


def second(c):
    return _fn("second", c)


def to_timestamp(c, format=None):
    if format is None:
        return _fn("to_timestamp", c)
    return Column("to_timestamp(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def to_date(c, format=None):
    if format is None:
        return _fn("to_date", c)
    return Column("to_date(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def date_format(c, format):
    return Column("date_format(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def date_add(c, days):
    return Column("date_add(%s, %s)" % (_c(c)._sql, _v(days)._sql))


def date_sub(c, days):
    return Column("date_sub(%s, %s)" % (_c(c)._sql, _v(days)._sql))


def datediff(end, start):
    return _fn("datediff", end, start)


def add_months(c, months):
    return Column("add_months(%s, %s)" % (_c(c)._sql, _v(months)._sql))


def months_between(date1, date2, roundOff=True):
    return Column("months_between(%s, %s, %s)" % (_c(date1)._sql, _c(date2)._sql,
                                                  lit_sql(roundOff)))


def date_trunc(format, c):
    return Column("date_trunc(%s, %s)" % (_sql_string(format), _c(c)._sql))


def trunc(c, format):
    return Column("trunc(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def unix_timestamp(c=None, format="yyyy-MM-dd HH:mm:ss"):
    if c is None:
        return Column("unix_timestamp(current_timestamp(), %s)" % _sql_string(format))
    return Column("unix_timestamp(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def from_unixtime(c, format="yyyy-MM-dd HH:mm:ss"):
    return Column("from_unixtime(%s, %s)" % (_c(c)._sql, _sql_string(format)))


def last_day(c):
    return _fn("last_day", c)


# -- ordering
def asc(c):
    return _c(c).asc()


def desc(c):
    return _c(c).desc()


def asc_nulls_first(c):
    return _c(c).asc_nulls_first()


def asc_nulls_last(c):
    return _c(c).asc_nulls_last()


def desc_nulls_first(c):
    return _c(c).desc_nulls_first()


def desc_nulls_last(c):
    return _c(c).desc_nulls_last()


# -- window functions
def row_number():
    return Column("row_number()")


def rank():
    return Column("rank()")


def dense_rank():
    return Column("dense_rank()")


def percent_rank():
    return Column("percent_rank()")


def cume_dist():
    return Column("cume_dist()")


def ntile(n):
    return Column("ntile(%d)" % n)


def lag(c, offset=1, default=None):
    if default is None:
        return Column("lag(%s, %d)" % (_c(c)._sql, offset)) if offset != 1 else _fn("lag", c)
    return Column("lag(%s, %d, %s)" % (_c(c)._sql, offset, lit_sql(default)))


def lead(c, offset=1, default=None):
    if default is None:
        return Column("lead(%s, %d)" % (_c(c)._sql, offset)) if offset != 1 else _fn("lead", c)
    return Column("lead(%s, %d, %s)" % (_c(c)._sql, offset, lit_sql(default)))


# -- misc
def monotonically_increasing_id():
    return Column("monotonically_increasing_id()")


def spark_partition_id():
    return Column("spark_partition_id()")


def input_file_name():
    return Column("input_file_name()")


def uuid():
    return Column("uuid()")


def broadcast(df):
    """A hint in Spark; silt plans joins itself, so the DataFrame as it is."""
    return df


# -- arrays, maps and structs (the engine's, docs/functions.md "Added in session 12")
def _cols(cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple, set)):
        return list(cols[0])
    return list(cols)


def array(*cols):
    return _fn("array", *_cols(cols))


def create_map(*cols):
    return _fn("map", *_cols(cols))


def struct(*cols):
    """named_struct with Spark's field names: a column's name, an alias, else colN."""
    cols = _cols(cols)
    parts, names = [], []
    for i, c in enumerate(cols):
        col_ = _c(c)
        field = col_._alias or col_._bare_name() or col_._name
        shown = col_._bare_name() or col_._name
        if col_._alias:
            shown = "%s AS %s" % (shown, col_._alias) if shown else None
        names.append(shown)
        parts.append("%s, %s" % (_sql_string(field or "col%d" % (i + 1)), col_._sql))
    name = "struct(%s)" % ", ".join(names) if all(n is not None for n in names) else None
    return Column("named_struct(%s)" % ", ".join(parts), name=name)


def named_struct(*cols):
    return _fn("named_struct", *cols)


def sequence(start, stop, step=None):
    if step is None:
        return _fn("sequence", start, stop)
    return _fn("sequence", start, stop, step)


def str_to_map(text, pairDelim=None, keyValueDelim=None):
    return Column("str_to_map(%s, %s, %s)" % (
        _c(text)._sql, _v(pairDelim if pairDelim is not None else ",")._sql,
        _v(keyValueDelim if keyValueDelim is not None else ":")._sql))


def _col_fn(name, n_cols=1):
    """fn(col..., value...): the first n_cols arguments are columns (names), the rest values."""
    def f(*args):
        parts = [_c(a) for a in args[:n_cols]] + [_v(a) for a in args[n_cols:]]
        return Column("%s(%s)" % (name, ", ".join(p._sql for p in parts)))
    f.__name__ = name
    return f


for _n in ("array_distinct", "array_compact", "flatten", "array_max", "array_min",
           "map_keys", "map_values", "map_entries", "map_from_entries", "cardinality",
           "array_size"):
    globals()[_n] = _col_fn(_n)
for _n in ("array_union", "array_intersect", "array_except", "arrays_overlap",
           "map_from_arrays"):
    globals()[_n] = _col_fn(_n, 2)
for _n in ("array_position", "array_remove", "array_append", "array_prepend",
           "map_contains_key", "try_element_at", "get"):
    globals()[_n] = _col_fn(_n)
del _n


def array_insert(arr, pos, value):
    return Column("array_insert(%s, %s, %s)" % (_c(arr)._sql, _v(pos)._sql, _v(value)._sql))


def array_repeat(c, count):
    return Column("array_repeat(%s, %s)" % (_c(c)._sql, _v(count)._sql))


def slice(x, start, length):
    return Column("slice(%s, %s, %s)" % (_c(x)._sql, _v(start)._sql, _v(length)._sql))


def array_join(c, delimiter, null_replacement=None):
    if null_replacement is None:
        return Column("array_join(%s, %s)" % (_c(c)._sql, _v(delimiter)._sql))
    return Column("array_join(%s, %s, %s)" % (_c(c)._sql, _v(delimiter)._sql,
                                              _v(null_replacement)._sql))


def sort_array(c, asc=True):
    return Column("sort_array(%s, %s)" % (_c(c)._sql, "true" if asc else "false"))


def map_concat(*cols):
    return _fn("map_concat", *_cols(cols))


def udf(f=None, returnType=None, useArrow=None):
    raise NotImplementedError("silt.pyspark: Python UDFs are not supported: a silt DataFrame "
                              "runs as one SQL query in the engine, with no Python code per "
                              "row (write the logic with functions/expr)")


def pandas_udf(f=None, returnType=None, functionType=None):
    raise NotImplementedError("silt.pyspark: pandas UDFs are not supported: a silt DataFrame "
                              "runs as one SQL query in the engine, with no Python code per "
                              "row (write the logic with functions/expr)")


def window(timeColumn, windowDuration, slideDuration=None, startTime=None):
    """Spark's time window: silt's window() of streaming aggregations (docs/streaming.md)."""
    args = [_c(timeColumn)._sql, _sql_string(windowDuration)]
    if slideDuration is not None or startTime is not None:
        args.append(_sql_string(slideDuration or windowDuration))
    if startTime is not None:
        args.append(_sql_string(startTime))
    return Column("window(%s)" % ", ".join(args), name="window")


def _passthrough(name):
    def f(*cols):
        return _fn(name, *cols)
    f.__name__ = name
    return f


explode = _passthrough("explode")
explode_outer = _passthrough("explode_outer")
size = _passthrough("size")
array_contains_ = None


def array_contains(c, value):
    return Column("array_contains(%s, %s)" % (_c(c)._sql, _v(value)._sql))


def element_at(c, extraction):
    return Column("element_at(%s, %s)" % (_c(c)._sql, _v(extraction)._sql))


def typeof(c):
    return _fn("typeof", c)


del array_contains_
