"""pyspark.sql.types for silt: Spark's data types, their simpleString/DDL
forms and a DDL parser ("a INT, b STRING" and "struct<a:int>" alike)."""

import datetime as _dt
import decimal as _decimal
import re as _re


class DataType:
    """The base of every type; types compare by their simple string."""

    def simpleString(self):
        return self.typeName()

    @classmethod
    def typeName(cls):
        return cls.__name__[:-4].lower()

    def jsonValue(self):
        return self.typeName()

    def __repr__(self):
        return "%s()" % type(self).__name__

    def __eq__(self, other):
        return isinstance(other, DataType) and self.simpleString() == other.simpleString() and \
            type(self) is type(other)

    def __hash__(self):
        return hash(self.simpleString())

    def needConversion(self):
        return False


class _Atomic(DataType):
    _sql = None

    def sqlName(self):
        return self._sql


class NullType(_Atomic):
    _sql = "VOID"

    def simpleString(self):
        return "void"

    @classmethod
    def typeName(cls):
        return "void"


class StringType(_Atomic):
    _sql = "STRING"


class BinaryType(_Atomic):
    _sql = "BINARY"


class BooleanType(_Atomic):
    _sql = "BOOLEAN"


class DateType(_Atomic):
    _sql = "DATE"


class TimestampType(_Atomic):
    _sql = "TIMESTAMP"


class TimestampNTZType(_Atomic):
    _sql = "TIMESTAMP_NTZ"

    @classmethod
    def typeName(cls):
        return "timestamp_ntz"


class ByteType(_Atomic):
    _sql = "TINYINT"

    def simpleString(self):
        return "tinyint"


class ShortType(_Atomic):
    _sql = "SMALLINT"

    def simpleString(self):
        return "smallint"


class IntegerType(_Atomic):
    _sql = "INT"

    def simpleString(self):
        return "int"


class LongType(_Atomic):
    _sql = "BIGINT"

    def simpleString(self):
        return "bigint"


class FloatType(_Atomic):
    _sql = "FLOAT"


class DoubleType(_Atomic):
    _sql = "DOUBLE"


class DecimalType(_Atomic):
    def __init__(self, precision=10, scale=0):
        self.precision = precision
        self.scale = scale

    def simpleString(self):
        return "decimal(%d,%d)" % (self.precision, self.scale)

    def sqlName(self):
        return "DECIMAL(%d,%d)" % (self.precision, self.scale)

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self):
        return "DecimalType(%d, %d)" % (self.precision, self.scale)


class ArrayType(DataType):
    def __init__(self, elementType, containsNull=True):
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self):
        return "array<%s>" % self.elementType.simpleString()

    def sqlName(self):
        return "ARRAY<%s>" % self.elementType.sqlName()

    def __repr__(self):
        return "ArrayType(%r, %r)" % (self.elementType, self.containsNull)


class MapType(DataType):
    def __init__(self, keyType, valueType, valueContainsNull=True):
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self):
        return "map<%s,%s>" % (self.keyType.simpleString(), self.valueType.simpleString())

    def sqlName(self):
        return "MAP<%s, %s>" % (self.keyType.sqlName(), self.valueType.sqlName())

    def __repr__(self):
        return "MapType(%r, %r, %r)" % (self.keyType, self.valueType, self.valueContainsNull)


class StructField(DataType):
    def __init__(self, name, dataType, nullable=True, metadata=None):
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self):
        return "%s:%s" % (self.name, self.dataType.simpleString())

    def __repr__(self):
        return "StructField(%r, %r, %r)" % (self.name, self.dataType, self.nullable)

    def __eq__(self, other):
        return isinstance(other, StructField) and (self.name, self.dataType, self.nullable) == \
            (other.name, other.dataType, other.nullable)

    def __hash__(self):
        return hash((self.name, self.dataType.simpleString()))


class StructType(DataType):
    def __init__(self, fields=None):
        self.fields = list(fields or [])

    @property
    def names(self):
        return [f.name for f in self.fields]

    def fieldNames(self):
        return self.names

    def add(self, field, data_type=None, nullable=True, metadata=None):
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if isinstance(data_type, str):
                data_type = _parse_type(data_type)
            self.fields.append(StructField(field, data_type, nullable, metadata))
        return self

    def simpleString(self):
        return "struct<%s>" % ",".join(f.simpleString() for f in self.fields)

    def sqlName(self):
        return "STRUCT<%s>" % ", ".join("`%s`: %s" % (f.name.replace("`", "``"), f.dataType.sqlName())
                                        for f in self.fields)

    def ddl(self):
        """"a INT, b STRING": the form silt's schema options take."""
        return ", ".join("`%s` %s%s" % (f.name.replace("`", "``"), f.dataType.sqlName(),
                                       "" if f.nullable else " NOT NULL") for f in self.fields)

    def __iter__(self):
        return iter(self.fields)

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, key):
        if isinstance(key, int):
            return self.fields[key]
        for f in self.fields:
            if f.name == key:
                return f
        raise KeyError("No StructField named %s" % key)

    def __repr__(self):
        return "StructType([%s])" % ", ".join(repr(f) for f in self.fields)

    def __eq__(self, other):
        return isinstance(other, StructType) and self.fields == other.fields

    def __hash__(self):
        return hash(self.simpleString())

    def treeString(self):
        lines = ["root"]
        for f in self.fields:
            _tree(lines, f.name, f.dataType, "nullable", f.nullable, " |")
        return "\n".join(lines) + "\n"


def _tree(lines, name, dtype, flag, value, prefix):
    lines.append("%s-- %s: %s (%s = %s)" % (prefix, name, dtype.typeName() if not isinstance(
        dtype, DecimalType) else dtype.simpleString(), flag, str(value).lower()))
    inner = prefix + "    |"
    if isinstance(dtype, StructType):
        for f in dtype.fields:
            _tree(lines, f.name, f.dataType, "nullable", f.nullable, inner)
    elif isinstance(dtype, ArrayType):
        _tree(lines, "element", dtype.elementType, "containsNull", dtype.containsNull, inner)
    elif isinstance(dtype, MapType):
        lines.append("%s-- key: %s" % (inner, dtype.keyType.typeName()))
        _tree(lines, "value", dtype.valueType, "valueContainsNull", dtype.valueContainsNull, inner)


# --- DDL parsing -----------------------------------------------------------

_SIMPLE = {
    "string": StringType, "varchar": StringType, "char": StringType, "binary": BinaryType,
    "boolean": BooleanType, "bool": BooleanType, "date": DateType, "timestamp": TimestampType,
    "timestamp_ltz": TimestampType, "timestamp_ntz": TimestampNTZType, "tinyint": ByteType,
    "byte": ByteType, "smallint": ShortType, "short": ShortType, "int": IntegerType,
    "integer": IntegerType, "bigint": LongType, "long": LongType, "float": FloatType,
    "real": FloatType, "double": DoubleType, "void": NullType,
}

_TOKEN = _re.compile(r"\s*(`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:]|\S)")


class _Lexer:
    def __init__(self, text):
        self.toks = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                break
            self.toks.append(m.group(1))
            pos = m.end()
        self.pos = 0

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok.lower() != want):
            raise ValueError("DDL: expected %s, found %s" % (want or "more", tok))
        self.pos += 1
        return tok


def _ident(tok):
    if tok.startswith("`"):
        return tok[1:-1].replace("``", "`")
    return tok


def _type(lx):
    name = lx.take().lower()
    if name in ("decimal", "dec", "numeric"):
        if lx.peek() == "(":
            lx.take()
            p = int(lx.take())
            s = 0
            if lx.peek() == ",":
                lx.take()
                s = int(lx.take())
            lx.take(")")
            return DecimalType(p, s)
        return DecimalType(10, 0)
    if name in ("varchar", "char") and lx.peek() == "(":
        lx.take()
        lx.take()
        lx.take(")")
        return StringType()
    if name == "array":
        lx.take("<")
        elem = _type(lx)
        lx.take(">")
        return ArrayType(elem)
    if name == "map":
        lx.take("<")
        k = _type(lx)
        lx.take(",")
        v = _type(lx)
        lx.take(">")
        return MapType(k, v)
    if name == "struct":
        lx.take("<")
        fields = []
        while lx.peek() != ">":
            fname = _ident(lx.take())
            if lx.peek() == ":":
                lx.take()
            fields.append(_field_rest(lx, fname))
            if lx.peek() == ",":
                lx.take()
        lx.take(">")
        return StructType(fields)
    if name in _SIMPLE:
        return _SIMPLE[name]()
    raise ValueError("DDL: unknown type %s" % name)


def _field_rest(lx, fname):
    dtype = _type(lx)
    nullable = True
    if lx.peek() and lx.peek().lower() == "not":
        lx.take()
        lx.take("null")
        nullable = False
    if lx.peek() and lx.peek().lower() == "comment":
        lx.take()
        lx.take()
    return StructField(fname, dtype, nullable)


def _parse_type(text):
    lx = _Lexer(text)
    t = _type(lx)
    if lx.peek() is not None:
        raise ValueError("DDL: unexpected %s in %r" % (lx.peek(), text))
    return t


def _parse_schema(text):
    """A DDL schema: "a INT, b STRING", "a: int, b: string" or "struct<a:int>"."""
    text = text.strip()
    if text.lower().startswith("struct<"):
        return _parse_type(text)
    lx = _Lexer(text)
    fields = []
    while lx.peek() is not None:
        fname = _ident(lx.take())
        if lx.peek() == ":":
            lx.take()
        fields.append(_field_rest(lx, fname))
        if lx.peek() == ",":
            lx.take()
        elif lx.peek() is not None:
            raise ValueError("DDL: unexpected %s in %r" % (lx.peek(), text))
    return StructType(fields)


_parse_datatype_string = _parse_schema


def _from_silt(desc):
    """A silt described type (name, kind, precision, scale, children) as a DataType."""
    _, kind, precision, scale, kids = desc
    simple = {"n": NullType, "b": BooleanType, "c": ByteType, "s": ShortType, "i": IntegerType,
              "l": LongType, "f": FloatType, "g": DoubleType, "u": StringType, "z": BinaryType,
              "D": DateType, "T": TimestampType, "N": TimestampNTZType}
    if kind in simple:
        return simple[kind]()
    if kind == "d":
        return DecimalType(precision, scale)
    if kind == "L":
        return ArrayType(_from_silt(kids[0]))
    if kind == "M":
        entry = kids[0][4]
        return MapType(_from_silt(entry[0]), _from_silt(entry[1]))
    if kind == "S":
        return StructType([StructField(k[0], _from_silt(k)) for k in kids])
    raise ValueError("silt type kind %r has no Spark type" % kind)


def _infer(value):
    """Spark's type of a Python value (createDataFrame's inference)."""
    if value is None:
        return NullType()
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, int):
        return LongType()
    if isinstance(value, float):
        return DoubleType()
    if isinstance(value, str):
        return StringType()
    if isinstance(value, (bytes, bytearray)):
        return BinaryType()
    if isinstance(value, _decimal.Decimal):
        return DecimalType(38, 18)
    if isinstance(value, _dt.datetime):
        return TimestampType()
    if isinstance(value, _dt.date):
        return DateType()
    if isinstance(value, (list, tuple)) and not hasattr(value, "__fields__"):
        elem = NullType()
        for v in value:
            if v is not None:
                elem = _infer(v)
                break
        return ArrayType(elem)
    if isinstance(value, dict):
        for k, v in value.items():
            return MapType(_infer(k), _infer(v))
        return MapType(NullType(), NullType())
    if hasattr(value, "__fields__"):
        return StructType([StructField(n, _infer(v)) for n, v in zip(value.__fields__, value)])
    raise TypeError("not supported type: %s" % type(value))


__all__ = [
    "DataType", "NullType", "StringType", "BinaryType", "BooleanType", "DateType",
    "TimestampType", "TimestampNTZType", "ByteType", "ShortType", "IntegerType", "LongType",
    "FloatType", "DoubleType", "DecimalType", "ArrayType", "MapType", "StructField", "StructType",
]
