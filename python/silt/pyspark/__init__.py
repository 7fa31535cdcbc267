"""silt.pyspark: the PySpark-compatible face of silt (docs/python.md).

Code written for PySpark runs with its imports changed:

    from pyspark.sql import SparkSession          ->  from silt.pyspark.sql import SparkSession
    import pyspark.sql.functions as F             ->  import silt.pyspark.sql.functions as F
    from delta.tables import DeltaTable           ->  from silt.delta.tables import DeltaTable

Every DataFrame is a silt SQL query built lazily; no row is processed in Python.
"""

from .sql.session import SparkConf, SparkContext


def display(df, *args, **kwargs):
    """The notebooks' display(df): df.show() for a DataFrame, print otherwise."""
    from .sql.dataframe import DataFrame
    if isinstance(df, DataFrame):
        df.show(truncate=False)
    else:
        print(df)


__all__ = ["SparkConf", "SparkContext", "display"]
