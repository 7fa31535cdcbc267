"""pyspark.sql.Column for silt: a Column is the text of a silt SQL
expression. Nothing is evaluated in Python; DataFrame operations put the text
into the query they build.

A column taken from a DataFrame (df.x, df["x"]) carries which DataFrame it
came from, as a placeholder in the text, so that a join can say which side it
means (qualifiers _l / _r); elsewhere it is just the column's name."""

import datetime as _dt
import decimal as _decimal
import re as _re

_REF = _re.compile("\x01(\\d+)\x02([^\x03]*)\x03")


def quote_ident(name):
    return "`%s`" % name.replace("`", "``")


def _name_sql(name):
    """col("a"), col("t.a"), col("`a.b`"), col("*"), col("t.*") as SQL."""
    if name == "*":
        return "*"
    if "`" in name:
        return name
    parts = name.split(".")
    return ".".join(p if p == "*" else quote_ident(p) for p in parts)


def _sql_string(s):
    return "'%s'" % s.replace("\\", "\\\\").replace("'", "\\'")


def lit_sql(value):
    """A Python value as a silt SQL literal of the type PySpark's lit() gives it."""
    if isinstance(value, Column):
        return value._sql
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -2 ** 31 <= value < 2 ** 31:
            return str(value)
        return "%dL" % value
    if isinstance(value, float):
        if value != value:
            return "CAST('NaN' AS DOUBLE)"
        if value in (float("inf"), float("-inf")):
            return "CAST('%s' AS DOUBLE)" % ("Infinity" if value > 0 else "-Infinity")
        return "%rD" % value
    if isinstance(value, str):
        return _sql_string(value)
    if isinstance(value, _decimal.Decimal):
        return "%sBD" % format(value, "f")
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            return "TIMESTAMP '%s'" % value.isoformat(sep=" ")
        return "TIMESTAMP '%s'" % value.isoformat(sep=" ")
    if isinstance(value, _dt.date):
        return "DATE '%s'" % value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "X'%s'" % bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return "array(%s)" % ", ".join(lit_sql(v) for v in value)
    if isinstance(value, dict):
        return "map(%s)" % ", ".join("%s, %s" % (lit_sql(k), lit_sql(v))
                                     for k, v in value.items())
    raise TypeError("silt.pyspark: unsupported literal type %s" % type(value).__name__)


def _c(x):
    """A Column of x: a Column as it is, a str as a column name."""
    if isinstance(x, Column):
        return x
    if isinstance(x, str):
        return Column(_name_sql(x))
    raise TypeError("silt.pyspark: expected a Column or a column name, got %s"
                    % type(x).__name__)


def _v(x):
    """A Column of x: a Column as it is, anything else as a literal."""
    if isinstance(x, Column):
        return x
    return Column(lit_sql(x))


def render(sql, resolve):
    """The text with every DataFrame-bound reference resolved by resolve(df_id, name)."""
    return _REF.sub(lambda m: resolve(int(m.group(1)), m.group(2)), sql)


def spark_name(col, fn, *args):
    """Spark's name of fn(col, args...) when col is a bare column (else None: silt's)."""
    bare = col._bare_name() if col._name is None else col._name
    if bare is None:
        return None
    return "%s(%s)" % (fn, ", ".join([bare] + [str(a) for a in args]))


def plain(df_id, name):
    return _name_sql(name)


def _binop(op):
    def f(self, other):
        return Column("(%s %s %s)" % (self._sql, op, _v(other)._sql))
    return f


def _rbinop(op):
    def f(self, other):
        return Column("(%s %s %s)" % (_v(other)._sql, op, self._sql))
    return f


class Column:
    """An expression of silt SQL; see the module's doc."""

    def __init__(self, sql, alias=None, sort=None, name=None):
        self._sql = sql
        self._alias = alias
        self._sort = sort
        # Spark's name for the column where it differs from the name silt gives the SQL
        # text (FLOOR(x), CAST keeping x's name...); used only when nothing aliases it.
        self._name = name

    @classmethod
    def _bound(cls, df_id, name):
        return cls("\x01%d\x02%s\x03" % (df_id, name))

    # arithmetic and comparison
    __add__ = _binop("+")
    __sub__ = _binop("-")
    __mul__ = _binop("*")
    __truediv__ = _binop("/")
    __div__ = __truediv__
    __mod__ = _binop("%")
    __radd__ = _binop("+")  # Spark names 1 + c as (c + 1)
    __rsub__ = _rbinop("-")
    __rmul__ = _binop("*")
    __rtruediv__ = _rbinop("/")
    __rmod__ = _rbinop("%")
    __eq__ = _binop("=")

    def __ne__(self, other):
        return Column("(NOT (%s = %s))" % (self._sql, _v(other)._sql))

    __lt__ = _binop("<")
    __le__ = _binop("<=")
    __gt__ = _binop(">")
    __ge__ = _binop(">=")
    __and__ = _binop("AND")
    __or__ = _binop("OR")
    __rand__ = _rbinop("AND")
    __ror__ = _rbinop("OR")
    bitwiseAND = _binop("&")
    bitwiseOR = _binop("|")
    bitwiseXOR = _binop("^")
    eqNullSafe = _binop("<=>")

    def __pow__(self, other):
        return Column("POWER(%s, %s)" % (self._sql, _v(other)._sql))

    def __neg__(self):
        return Column("negative(%s)" % self._sql)

    def __invert__(self):
        return Column("(NOT %s)" % self._sql)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise ValueError(
            "Cannot convert column into bool: please use '&' for 'and', '|' for 'or', '~' for "
            "'not' when building DataFrame boolean expressions.")

    __nonzero__ = __bool__

    def __iter__(self):
        raise TypeError("Column is not iterable")

    def __repr__(self):
        return "Column<'%s'>" % render(self._sql, plain)

    # predicates
    def isNull(self):
        return Column("(%s IS NULL)" % self._sql)

    def isNotNull(self):
        return Column("(%s IS NOT NULL)" % self._sql)

    def isNaN(self):
        return Column("isnan(%s)" % self._sql)

    def isin(self, *values):
        if len(values) == 1 and isinstance(values[0], (list, tuple, set)):
            values = tuple(values[0])
        return Column("(%s IN (%s))" % (self._sql, ", ".join(_v(v)._sql for v in values)))

    def between(self, lower, upper):
        return Column("((%s >= %s) AND (%s <= %s))" % (self._sql, _v(lower)._sql, self._sql,
                                                     _v(upper)._sql))

    def like(self, pattern):
        return Column("%s LIKE %s" % (self._sql, _v(pattern)._sql))

    def ilike(self, pattern):
        return Column("%s ILIKE %s" % (self._sql, _v(pattern)._sql))

    def rlike(self, pattern):
        return Column("RLIKE(%s, %s)" % (self._sql, _v(pattern)._sql))

    def startswith(self, other):
        return Column("startswith(%s, %s)" % (self._sql, _v(other)._sql))

    def endswith(self, other):
        return Column("endswith(%s, %s)" % (self._sql, _v(other)._sql))

    def contains(self, other):
        return Column("contains(%s, %s)" % (self._sql, _v(other)._sql))

    def substr(self, startPos, length):
        return Column("substr(%s, %s, %s)" % (self._sql, _v(startPos)._sql, _v(length)._sql))

    def getItem(self, key):
        return Column("%s[%s]" % (self._sql, _v(key)._sql))

    def getField(self, name):
        # Spark names a field of a bare column "s.f" (silt's SQL names it f)
        base = self._bare_name() or self._name
        return Column("%s.%s" % (self._sql, quote_ident(name)),
                      name="%s.%s" % (base, name) if base else None)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self.substr(key.start, key.stop)
        return self.getItem(key)

    def __getattr__(self, item):
        if item.startswith("__") or item.startswith("_"):
            raise AttributeError(item)
        return self.getField(item)

    # types and names
    def cast(self, dataType):
        if not isinstance(dataType, str):
            dataType = dataType.sqlName()
        return Column("CAST(%s AS %s)" % (self._sql, dataType.upper()),
                      name=self._bare_name() or self._name)

    astype = cast

    def try_cast(self, dataType):
        if not isinstance(dataType, str):
            dataType = dataType.sqlName()
        return Column("TRY_CAST(%s AS %s)" % (self._sql, dataType.upper()))

    def alias(self, *alias, **kwargs):
        if kwargs.get("metadata"):
            raise NotImplementedError("silt.pyspark: Column.alias(metadata=...) is not supported")
        if len(alias) != 1:
            raise NotImplementedError("silt.pyspark: alias() of several names (a generator's "
                                      "columns) is not supported")
        return Column(self._sql, alias[0], self._sort, self._name)

    name = alias

    # ordering
    def asc(self):
        return Column(self._sql, self._alias, "ASC NULLS FIRST", self._name)

    def asc_nulls_first(self):
        return Column(self._sql, self._alias, "ASC NULLS FIRST", self._name)

    def asc_nulls_last(self):
        return Column(self._sql, self._alias, "ASC NULLS LAST", self._name)

    def desc(self):
        return Column(self._sql, self._alias, "DESC NULLS LAST", self._name)

    def desc_nulls_first(self):
        return Column(self._sql, self._alias, "DESC NULLS FIRST", self._name)

    def desc_nulls_last(self):
        return Column(self._sql, self._alias, "DESC NULLS LAST", self._name)

    # CASE WHEN and windows
    def when(self, condition, value):
        if not self._sql.startswith("CASE WHEN") or " ELSE " in self._sql:
            raise ValueError("when() can only be applied on a Column previously generated by "
                             "when() function")
        return Column("%s WHEN %s THEN %s END" % (self._sql[:-4], _c(condition)._sql,
                                                  _v(value)._sql))

    def otherwise(self, value):
        if not self._sql.startswith("CASE WHEN") or " ELSE " in self._sql:
            raise ValueError("otherwise() can only be applied on a Column previously generated "
                             "by when() function")
        return Column("%s ELSE %s END" % (self._sql[:-4], _v(value)._sql))

    def over(self, window=None):
        from .window import WindowSpec
        spec = window._spec_sql() if isinstance(window, WindowSpec) else ""
        return Column("%s OVER (%s)" % (self._sql, spec))

    # sql helpers for DataFrame
    def _select_sql(self, resolve=plain):
        text = render(self._sql, resolve)
        if self._alias is not None:
            return "%s AS %s" % (text, quote_ident(self._alias))
        if self._name is not None:
            return "%s AS %s" % (text, quote_ident(self._name))
        return text

    def _order_sql(self, resolve=plain, ascending=True):
        text = render(self._sql, resolve)
        sort = self._sort or ("ASC NULLS FIRST" if ascending else "DESC NULLS LAST")
        return "%s %s" % (text, sort)

    def _bare_name(self):
        """The column's name when it is a bare reference (no alias needed), else None."""
        m = _REF.fullmatch(self._sql)
        if m:
            return m.group(2)
        m = _re.fullmatch(r"`((?:[^`]|``)*)`", self._sql)
        if m:
            return m.group(1).replace("``", "`")
        return None


__all__ = ["Column"]
