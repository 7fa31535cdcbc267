"""The trips tutorial's data (../shared/tutorials/001_7f61e7eb7ca43da3.txt), in
one place for the tutorial test (tests/e2e/trips_tutorial.py) and the write
benchmark (bench/write_bench.py).

Row i is {trip_id: i, tstamp: TSTAMP, route_id: chr(65 + i % 10),
destination: dest[i % 10]} (and origin[i % 10] when given). JSON lines keep
the tutorial's key order (trip_id, tstamp, route_id, destination); Spark's
inference sorts the columns by name.
"""
import json
import os

N_ROWS = 2_000_000
DEST = ["Seattle", "New York", "New Jersey", "Los Angeles", "Las Vagas",
        "Tucson", "Washinton DC", "Philadelphia", "Miami", "San Francisco"]
MERGE_DEST = ["Avon", "Simsbury", "Farmington", "Windsor", "Ellington",
              "Vernon", "Winsted", "Westport", "Fairfield", "Stamford"]
TSTAMP = "2022-01-31 05:49:39"


def write_rows(path, start, count, dest, origin=None):
    """JSON lines of rows start .. start + count - 1."""
    # Formatted by hand: json.dumps per row would take most of the time.
    tail = [f'"route_id":"{chr(65 + k)}","destination":{json.dumps(dest[k])}'
            + (f',"origin":{json.dumps(origin[k])}' if origin is not None else "") + "}\n"
            for k in range(10)]
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f'{{"trip_id":{i},"tstamp":"{TSTAMP}",{tail[i % 10]}'
                     for i in range(start, start + count))


def write_csv_rows(path, start, count, dest):
    """The same rows as CSV with a header (no value needs quoting)."""
    tail = [f",{chr(65 + k)},{dest[k]}\n" for k in range(10)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("trip_id,tstamp,route_id,destination\n")
        f.writelines(f"{i},{TSTAMP}{tail[i % 10]}" for i in range(start, start + count))


def write_inputs(work, n_rows=N_ROWS):
    """The tutorial's three inputs in folder work: trips.json (the ingest), insert.json
    (20 rows with an origin column) and merge.json (10 rows, 5 of them new)."""
    write_rows(os.path.join(work, "trips.json"), 0, n_rows, DEST)
    write_rows(os.path.join(work, "insert.json"), n_rows, 20, ["Syracuse"] * 10, DEST)
    write_rows(os.path.join(work, "merge.json"), n_rows + 15, 10, MERGE_DEST, ["Seattle"] * 10)
