"""delta.tables for silt: DeltaTable's calls as silt SQL statements
(DELETE, UPDATE, MERGE INTO, RESTORE, VACUUM, OPTIMIZE, GENERATE, DESCRIBE
HISTORY / DETAIL). Conditions and values are Columns or SQL text."""

from ..pyspark.sql.column import Column, _sql_string, quote_ident, lit_sql, render, plain
from ..pyspark.sql.dataframe import DataFrame


def _cond(c):
    if c is None:
        return None
    if isinstance(c, str):
        return c
    if isinstance(c, Column):
        return render(c._sql, plain)
    raise TypeError("silt.delta: a condition is a Column or SQL text")


def _val(v):
    if isinstance(v, str):
        return v  # SQL text, as delta-spark takes it
    if isinstance(v, Column):
        return render(v._sql, plain)
    return lit_sql(v)


def _sets(mapping):
    return ", ".join("%s = %s" % (_target_col(k), _val(v)) for k, v in mapping.items())


def _target_col(name):
    return ".".join(quote_ident(p) for p in name.split(".")) if "`" not in name else name


class DeltaTable:
    def __init__(self, spark, target, alias=None):
        self._spark = spark
        self._target = target  # delta.`path` or a table name
        self._alias = alias

    @classmethod
    def forPath(cls, sparkSession, path, hadoopConf=None):
        if hadoopConf:
            raise NotImplementedError("silt.delta: forPath(hadoopConf=...) is not supported")
        target = "delta.`%s`" % str(path).replace("`", "``")
        if not cls._is_delta(sparkSession, target):
            from ..pyspark.sql.utils import AnalysisException
            raise AnalysisException("[DELTA_MISSING_DELTA_TABLE] `%s` is not a Delta table."
                                    % path)
        return cls(sparkSession, target)

    @classmethod
    def forName(cls, sparkSession, tableOrViewName):
        if not cls._is_delta(sparkSession, tableOrViewName):
            from ..pyspark.sql.utils import AnalysisException
            raise AnalysisException("[DELTA_MISSING_DELTA_TABLE] %s is not a Delta table."
                                    % tableOrViewName)
        return cls(sparkSession, tableOrViewName)

    @staticmethod
    def _is_delta(spark, target):
        try:
            spark._conn.execute("DESCRIBE DETAIL %s" % target).fetchall()
            return True
        except Exception:  # noqa: BLE001 - not a Delta table
            return False

    @classmethod
    def isDeltaTable(cls, sparkSession, identifier):
        return cls._is_delta(sparkSession, "delta.`%s`" % str(identifier).replace("`", "``"))

    def _run(self, sql):
        rel = self._spark._conn.execute(sql)
        if not rel._desc[4]:
            return DataFrame(self._spark, None)
        return self._spark._materialize(rel.arrow())

    def _aliased(self):
        return self._target + (" AS %s" % quote_ident(self._alias) if self._alias else "")

    def toDF(self):
        text = "SELECT * FROM %s" % self._target
        return DataFrame(self._spark, text, alias=self._alias)

    def alias(self, aliasName):
        return DeltaTable(self._spark, self._target, aliasName)

    def history(self, limit=None):
        sql = "DESCRIBE HISTORY %s" % self._target
        if limit is not None:
            sql += " LIMIT %d" % int(limit)
        return self._run(sql)

    def detail(self):
        return self._run("DESCRIBE DETAIL %s" % self._target)

    def delete(self, condition=None):
        sql = "DELETE FROM %s" % self._aliased()
        if condition is not None:
            sql += " WHERE %s" % _cond(condition)
        self._spark._conn.execute(sql).fetchall()

    def update(self, condition=None, set=None):
        if set is None and isinstance(condition, dict):
            condition, set = None, condition
        if not set:
            raise ValueError("silt.delta: update() needs set={column: value}")
        sql = "UPDATE %s SET %s" % (self._aliased(), _sets(set))
        if condition is not None:
            sql += " WHERE %s" % _cond(condition)
        self._spark._conn.execute(sql).fetchall()

    def updateExpr(self, condition=None, set=None):
        self.update(condition, set)

    def merge(self, source, condition):
        return DeltaMergeBuilder(self, source, _cond(condition))

    def restoreToVersion(self, version):
        return self._run("RESTORE TABLE %s TO VERSION AS OF %d" % (self._target, int(version)))

    def restoreToTimestamp(self, timestamp):
        return self._run("RESTORE TABLE %s TO TIMESTAMP AS OF %s" % (self._target,
                                                                    _sql_string(str(timestamp))))

    def vacuum(self, retentionHours=None):
        sql = "VACUUM %s" % self._target
        if retentionHours is not None:
            sql += " RETAIN %s HOURS" % retentionHours
        return self._run(sql)

    def optimize(self):
        return DeltaOptimizeBuilder(self)

    def generate(self, mode):
        self._spark._conn.execute("GENERATE %s FOR TABLE %s" % (mode, self._target)).fetchall()

    def upgradeTableProtocol(self, readerVersion, writerVersion):
        self._spark._conn.execute(
            "ALTER TABLE %s SET TBLPROPERTIES ('delta.minReaderVersion' = '%d', "
            "'delta.minWriterVersion' = '%d')" % (self._target, readerVersion, writerVersion))

    def addFeatureSupport(self, featureName):
        self._spark._conn.execute("ALTER TABLE %s SET TBLPROPERTIES ('delta.feature.%s' = "
                                  "'supported')" % (self._target, featureName))

    @classmethod
    def create(cls, sparkSession=None):
        raise NotImplementedError("silt.delta: DeltaTable.create() builders are not supported; "
                                  "use spark.sql('CREATE TABLE ... USING DELTA')")

    createIfNotExists = create
    replace = create
    createOrReplace = create

    @classmethod
    def convertToDelta(cls, sparkSession, identifier, partitionSchema=None):
        sql = "CONVERT TO DELTA %s" % identifier
        if partitionSchema is not None:
            sql += " PARTITIONED BY (%s)" % (partitionSchema if isinstance(partitionSchema, str)
                                             else partitionSchema.ddl())
        sparkSession._conn.execute(sql).fetchall()
        target = identifier if not identifier.lower().startswith("parquet.") else \
            "delta." + identifier[len("parquet."):]
        return cls(sparkSession, target)


class DeltaOptimizeBuilder:
    def __init__(self, table):
        self._t = table
        self._where = None

    def where(self, partitionFilter):
        self._where = partitionFilter
        return self

    def _sql(self):
        sql = "OPTIMIZE %s" % self._t._target
        if self._where:
            sql += " WHERE %s" % self._where
        return sql

    def executeCompaction(self):
        return self._t._run(self._sql())

    def executeZOrderBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        return self._t._run("%s ZORDER BY (%s)" % (self._sql(), ", ".join(
            quote_ident(c) for c in cols)))


class DeltaMergeBuilder:
    """MERGE INTO target USING (source) ON condition WHEN ... as one statement."""

    def __init__(self, table, source, condition):
        self._t = table
        self._source = source
        self._condition = condition
        self._clauses = []
        self._evolve = False

    def _add(self, text):
        self._clauses.append(text)
        return self

    @staticmethod
    def _when(kind, condition):
        return "WHEN %s%s THEN" % (kind, " AND %s" % _cond(condition) if condition is not None
                                   else "")

    def whenMatchedUpdate(self, condition=None, set=None):
        return self._add("%s UPDATE SET %s" % (self._when("MATCHED", condition), _sets(set)))

    def whenMatchedUpdateAll(self, condition=None):
        return self._add("%s UPDATE SET *" % self._when("MATCHED", condition))

    def whenMatchedDelete(self, condition=None):
        return self._add("%s DELETE" % self._when("MATCHED", condition))

    def whenNotMatchedInsert(self, condition=None, values=None):
        cols = ", ".join(_target_col(k) for k in values)
        vals = ", ".join(_val(v) for v in values.values())
        return self._add("%s INSERT (%s) VALUES (%s)" % (self._when("NOT MATCHED", condition),
                                                         cols, vals))

    def whenNotMatchedInsertAll(self, condition=None):
        return self._add("%s INSERT *" % self._when("NOT MATCHED", condition))

    def whenNotMatchedBySourceUpdate(self, condition=None, set=None):
        return self._add("%s UPDATE SET %s" % (self._when("NOT MATCHED BY SOURCE", condition),
                                               _sets(set)))

    def whenNotMatchedBySourceDelete(self, condition=None):
        return self._add("%s DELETE" % self._when("NOT MATCHED BY SOURCE", condition))

    def withSchemaEvolution(self):
        self._evolve = True
        return self

    def execute(self):
        src = self._source
        alias = quote_ident(src._alias_name) if src._alias_name else "source"
        sql = "MERGE%s INTO %s USING (%s) AS %s ON %s %s" % (
            " WITH SCHEMA EVOLUTION" if self._evolve else "", self._t._aliased(), src._sql,
            alias, self._condition, " ".join(self._clauses))
        return self._t._run(sql)


__all__ = ["DeltaTable", "DeltaMergeBuilder", "DeltaOptimizeBuilder"]
