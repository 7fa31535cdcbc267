"""Renders rows in the canonical JSON-lines format of ../shared/conformance/README.md.

The rendering is driven by the Delta schema (the JSON form of a Delta or Spark
StructType), not by the Python value, so that a float column is written with
the shortest digits of a 32-bit float, a decimal with exactly its scale, and a
timestamp with or without the zone suffix. Values are what the peers hand out:
pyspark's collect() (Row, dict, bytearray, naive datetimes in the process's
local time zone, which the callers set to UTC) and pyarrow's to_pylist()
(dict, list of (key, value) tuples, aware datetimes).
"""
import datetime
import decimal
import json
import math
import ctypes

_EPOCH = datetime.datetime(1970, 1, 1)


def js_number(text):
    """Lays out a shortest round-trip decimal ("1.5e-07", "12.0") the way JavaScript's
    Number.prototype.toString does: plain for 1e-6 <= |x| < 1e21, else d.ddde+n."""
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    mant, _, exp = text.partition("e")
    exp = int(exp) if exp else 0
    intpart, _, frac = mant.partition(".")
    all_digits = intpart + frac
    digits = all_digits.lstrip("0")
    # Position of the decimal point relative to the first significant digit.
    point = len(intpart) + exp - (len(all_digits) - len(digits))
    digits = digits.rstrip("0")
    if not digits:
        return sign + "0"
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    e = point - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return sign + mantissa + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def _as_float32(x):
    """x rounded to the nearest 32-bit float (C's conversion; struct.pack refuses
    values just above FLT_MAX that round down to it)."""
    return ctypes.c_float(x).value


def real(x, is_float):
    """A float (32-bit) or double in the canonical layout."""
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    if is_float:
        if _as_float32(x) != x:
            raise ValueError("float column holds %r, which is not a 32-bit float" % x)
        # The correctly rounded p-digit decimal is the closest one; the first p
        # that reads back as the same float is the shortest.
        for prec in range(1, 10):
            text = "%.*e" % (prec - 1, x)
            if _as_float32(float(text)) == x:
                return js_number(text)
        raise AssertionError("no 9-digit decimal identifies float %r" % x)
    return js_number(repr(x))


def _decimal_text(value, scale):
    value = decimal.Decimal(value)
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        ctx.traps[decimal.Inexact] = True  # a value with more digits than its scale is an error
        q = value.quantize(decimal.Decimal(1).scaleb(-scale))
    text = format(q, "f")
    if text.startswith("-") and q == 0:
        text = text[1:]
    return text


def _utc_naive(value):
    """An aware datetime turned into naive UTC; a naive one is taken as is."""
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def _timestamp_text(value):
    value = _utc_naive(value)
    year = "%04d" % value.year
    return year + value.strftime("-%m-%dT%H:%M:%S") + ".%06d" % value.microsecond


def _string(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _field_value(row, name, idx):
    if row is None:
        return None
    if isinstance(row, dict):
        return row.get(name)
    return row[idx]  # pyspark Row: positional, names may repeat case-insensitively


def _map_pairs(value):
    if isinstance(value, dict):
        return list(value.items())
    return [tuple(p) for p in value]


_INTEGERS = ("byte", "short", "integer", "long")


def value(v, dtype):
    """One value of Delta type dtype (a type name string or a nested type dict)."""
    if v is None:
        return "null"
    if isinstance(dtype, dict):
        kind = dtype["type"]
        if kind == "struct":
            parts = []
            for idx, field in enumerate(dtype["fields"]):
                inner = _field_value(v, field["name"], idx)
                parts.append(_string(field["name"]) + ":" + value(inner, field["type"]))
            return "{" + ",".join(parts) + "}"
        if kind == "array":
            return "[" + ",".join(value(x, dtype["elementType"]) for x in v) + "]"
        if kind == "map":
            pairs = [(value(k, dtype["keyType"]), value(x, dtype["valueType"]))
                     for k, x in _map_pairs(v)]
            pairs.sort(key=lambda p: p[0].encode())
            return "[" + ",".join("[" + k + "," + x + "]" for k, x in pairs) + "]"
        raise ValueError("unknown nested type %r" % kind)
    if dtype == "boolean":
        return "true" if v else "false"
    if dtype in _INTEGERS:
        return str(int(v))
    if dtype == "float":
        return real(float(v), True)
    if dtype == "double":
        return real(float(v), False)
    if dtype.startswith("decimal"):
        scale = int(dtype[dtype.index(",") + 1:dtype.index(")")])
        return _string(_decimal_text(v, scale))
    if dtype == "string":
        return _string(v)
    if dtype == "binary":
        return '"' + bytes(v).hex() + '"'
    if dtype == "date":
        return '"%04d-%02d-%02d"' % (v.year, v.month, v.day)
    if dtype == "timestamp":
        return '"' + _timestamp_text(v) + 'Z"'
    if dtype == "timestamp_ntz":
        return '"' + _timestamp_text(v) + '"'
    raise ValueError("unknown type %r" % dtype)


def row(values, schema):
    """One row (dict, Row or sequence) of a struct schema (dict with "fields")."""
    parts = []
    for idx, field in enumerate(schema["fields"]):
        parts.append(_string(field["name"]) + ":" + value(_field_value(values, field["name"], idx), field["type"]))
    return "{" + ",".join(parts) + "}"


def rows(values, schema):
    """Canonical lines of the rows, sorted by the byte order of their UTF-8 text."""
    return sorted((row(v, schema) for v in values), key=lambda line: line.encode())


def self_test():
    """Cases from the README's table; raises AssertionError when one is off."""
    cases = [
        (real(0.1, False), "0.1"), (real(_as_float32(0.1), True), "0.1"),
        (real(_as_float32(35.568), True), "35.568"), (real(0.1 + 0.2, False), "0.30000000000000004"),
        (real(3.0, False), "3"), (real(1e21, False), "1e+21"), (real(1.5e-7, False), "1.5e-7"),
        (real(-0.0, True), "-0"), (real(1e-6, False), "0.000001"), (real(123456789012.0, False), "123456789012"),
        (real(float("nan"), False), '"NaN"'), (real(float("-inf"), True), '"-Infinity"'),
        (real(_as_float32(3.4028234663852886e38), True), "3.4028235e+38"),
        (value(decimal.Decimal("-0.05"), "decimal(5,3)"), '"-0.050"'), (value(12, "decimal(4,0)"), '"12"'),
        (value(bytearray(b"\x00\xff"), "binary"), '"00ff"'), (value("a\"b/\x01é", "string"), '"a\\"b/\\u0001é"'),
        (value(datetime.datetime(2021, 9, 8, 11, 11, 11), "timestamp"), '"2021-09-08T11:11:11.000000Z"'),
        (value(datetime.datetime(2021, 9, 8, 13, 11, 11, tzinfo=datetime.timezone(datetime.timedelta(hours=2))), "timestamp"),
         '"2021-09-08T11:11:11.000000Z"'),
        (value(datetime.datetime(2021, 11, 18, 2, 30, 0, 123456), "timestamp_ntz"), '"2021-11-18T02:30:00.123456"'),
        (value({2: [], 1: [2, 3]}, {"type": "map", "keyType": "integer", "valueType": {"type": "array", "elementType": "integer"}}),
         "[[1,[2,3]],[2,[]]]"),
    ]
    for got, want in cases:
        assert got == want, "canonical %s, expected %s" % (got, want)
