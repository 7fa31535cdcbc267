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


collect_list = _missing("collect_list", "collect_list")
collect_set = _missing("collect_set", "collect_set")


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


# -- needing SQL functions silt does not have yet (another change adds them)
array = _missing("array", "array")
create_map = _missing("map", "create_map")
struct = _missing("named_struct", "struct")
sequence = _missing("sequence", "sequence")
str_to_map = _missing("str_to_map", "str_to_map")


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
