"""silt.delta: delta-spark's Python API (delta.tables) over silt's SQL."""
