"""silt.pyspark.sql: PySpark's SQL API over silt (docs/python.md).

    from silt.pyspark.sql import SparkSession, functions as F
    spark = SparkSession.builder.appName("app").getOrCreate()
"""

from . import functions, types, window
from .column import Column
from .dataframe import DataFrame, DataFrameNaFunctions, GroupedData, Row
from .readwriter import DataFrameReader, DataFrameWriter
from .session import SparkConf, SparkSession
from .utils import AnalysisException
from .window import Window, WindowSpec

SQLContext = None

__all__ = ["SparkSession", "DataFrame", "Column", "Row", "GroupedData", "Window", "WindowSpec",
           "DataFrameReader", "DataFrameWriter", "DataFrameNaFunctions", "functions", "types",
           "AnalysisException", "SparkConf"]
