"""readStream / writeStream for silt.

silt's streams run through the C API's silt_stream_start (docs/streaming.md),
which the Python extension does not expose yet; until it does, every
streaming call that would start a stream raises NotImplementedError naming
what is missing. The reader's settings are kept so that the error can say
which SQL statement the stream would be."""


def _missing(what):
    return NotImplementedError(
        "silt.pyspark: %s is not supported yet: the Python extension does not expose silt's "
        "streaming C API (silt_stream_start); run the stream with `silt stream` or CREATE "
        "STREAMING TABLE in SQL" % what)


class DataStreamReader:
    def __init__(self, session):
        self._session = session
        self._format = None
        self._options = {}
        self._schema = None

    def format(self, source):
        self._format = source
        return self

    def option(self, key, value):
        self._options[key] = value
        return self

    def options(self, **options):
        self._options.update(options)
        return self

    def schema(self, schema):
        self._schema = schema
        return self

    def load(self, path=None, format=None, schema=None, **options):
        raise _missing("spark.readStream.load (format %r)" % (format or self._format))

    def csv(self, path, **kwargs):
        raise _missing("spark.readStream.csv")

    def json(self, path, **kwargs):
        raise _missing("spark.readStream.json")

    def parquet(self, path, **kwargs):
        raise _missing("spark.readStream.parquet")

    def table(self, tableName):
        raise _missing("spark.readStream.table")


class DataStreamWriter:
    def __init__(self, df):
        self._df = df

    def __getattr__(self, name):
        raise _missing("df.writeStream.%s" % name)


class StreamingQueryManager:
    def __init__(self, session):
        self._session = session

    @property
    def active(self):
        return []
