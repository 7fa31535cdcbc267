#!/bin/sh
# Runs one tests/python script with the peers' venv Python when it exists
# (it has pyarrow, pandas, Polars, DuckDB and pyspark), else with the Python
# the extension was built for. The venv is made by `make peers`, which runs
# after the first configure on a fresh machine, so the choice is made here,
# at test time, not when CMake ran. The extension is abi3 and the venv is
# made from the same interpreter, so either loads it.
venv="$SILT_SOURCE_DIR/.peers/venv/bin/python"
if [ -x "$venv" ]; then
    exec "$venv" "$@"
fi
exec "$SILT_FALLBACK_PYTHON" "$@"
