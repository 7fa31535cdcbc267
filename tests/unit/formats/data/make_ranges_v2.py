"""Writes ranges_v2.parquet for parquet_ranges.c: data pages v2 with no page
index, small pages (about 40 rows), zstd, three row groups, nulls, a
dictionary column, a column whose dictionary overflows into PLAIN pages.
Run with pyarrow: python3 make_ranges_v2.py (from this folder)."""
import pyarrow as pa
import pyarrow.parquet as pq

N = 3000
ids = list(range(N))
table = pa.table({
    "id": pa.array(ids, pa.int64()),
    "s": pa.array([None if i % 5 == 0 else f"value-{i}-" + "x" * (i % 13) for i in ids]),
    "k": pa.array([["zero", "one", "two"][i % 3] for i in ids]),
    "n": pa.array([None if i % 7 == 0 else i * 3 for i in ids], pa.int32()),
    "d": pa.array([i * 0.5 for i in ids], pa.float64()),
})
pq.write_table(table, "ranges_v2.parquet", row_group_size=1100, data_page_size=300,
               data_page_version="2.0", compression="zstd", write_page_index=False, write_batch_size=20,
               dictionary_pagesize_limit=2000, write_statistics=True)
