"""pyspark.sql.Window for silt: a window specification as the text of an
OVER (...) clause."""

import sys as _sys

from .column import _c, render, plain


def _bound(value, preceding):
    if value == Window.currentRow:
        return "CURRENT ROW"
    if value <= Window.unboundedPreceding:
        return "UNBOUNDED PRECEDING"
    if value >= Window.unboundedFollowing:
        return "UNBOUNDED FOLLOWING"
    return "%d %s" % (abs(value), "PRECEDING" if value < 0 else "FOLLOWING")


class WindowSpec:
    def __init__(self, partition=(), order=(), frame=None):
        self._partition = list(partition)
        self._order = list(order)
        self._frame = frame

    def partitionBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        return WindowSpec([_c(c) for c in cols], self._order, self._frame)

    def orderBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        return WindowSpec(self._partition, [_c(c) for c in cols], self._frame)

    def rowsBetween(self, start, end):
        return WindowSpec(self._partition, self._order,
                          "ROWS BETWEEN %s AND %s" % (_bound(start, True), _bound(end, False)))

    def rangeBetween(self, start, end):
        return WindowSpec(self._partition, self._order,
                          "RANGE BETWEEN %s AND %s" % (_bound(start, True), _bound(end, False)))

    def _spec_sql(self):
        parts = []
        if self._partition:
            parts.append("PARTITION BY " + ", ".join(c._sql for c in self._partition))
        if self._order:
            parts.append("ORDER BY " + ", ".join("%s %s" % (c._sql, c._sort or "ASC NULLS FIRST") for c in self._order))
        if self._frame:
            parts.append(self._frame)
        return " ".join(parts)

    def __repr__(self):
        return "WindowSpec(%s)" % render(self._spec_sql(), plain)


class Window:
    unboundedPreceding = -_sys.maxsize - 1
    unboundedFollowing = _sys.maxsize
    currentRow = 0

    @staticmethod
    def partitionBy(*cols):
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols):
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start, end):
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start, end):
        return WindowSpec().rangeBetween(start, end)


__all__ = ["Window", "WindowSpec"]
