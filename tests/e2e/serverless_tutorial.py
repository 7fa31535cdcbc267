#!/usr/bin/env python3
"""The serverless SQL (T-SQL) queries of the tutorials 003 ("Query a Delta
Table from the Serverless SQL pool") and 004 (the auto-generated OPENROWSET
query), read from ../shared/tutorials and run verbatim through `silt sql -f`
over local folders of the same shape that this test generates:

  <root>/adlsfs1sd/delta/spotifyStreamData   the streamed Spotify history (11
                                             string columns, 200 rows)
  <root>/files/delta/products-delta          the products table of 004

The only changes to the text: the storage URLs become those folders, and
three spaces the tutorial's text lost ("spotify_track_urivarchar(8000)") are
put back. The database, data source, file format, external table and view
are created by one process and read by later ones (the catalog keeps them).

    serverless_tutorial.py SILT_BIN WORKDIR [SHARED_DIR]
"""
import csv
import random
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPOTIFY_COLUMNS = ["spotify_track_uri", "ts", "platform", "ms_played", "track_name",
                   "artist_name", "album_name", "reason_start", "reason_end", "shuffle",
                   "skipped"]
PRODUCT_COLUMNS = ["ProductID", "ProductName", "Category", "ListPrice"]
ARTISTS = ["Justice", "Daft Punk", "Air", "Phoenix", "M83"]
N_ROWS = 200


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def between(text, start, end, name):
    """The snippet of text from start to end (both included)."""
    at = text.find(start)
    if at < 0:
        fail(f"{name}: the tutorial has no {start!r}")
    stop = text.find(end, at)
    if stop < 0:
        fail(f"{name}: the tutorial has no {end!r} after {start!r}")
    return text[at:stop + len(end)]


def run(silt, wh, script, name, workdir):
    path = workdir / f"{name}.sql"
    path.write_text(script)
    proc = subprocess.run([silt, "sql", "--warehouse", str(wh), "--format", "csv", "-f",
                           str(path)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        fail(f"{name}: exit {proc.returncode}\n{proc.stderr}\n--- script\n{script}")
    return proc.stdout


def csv_blocks(out, headers):
    """The results of a script: lists of rows (header first), split at each of the headers."""
    blocks = []
    for row in csv.reader(out.splitlines()):
        if row in headers or not blocks:
            blocks.append([row])
        else:
            blocks[-1].append(row)
    return blocks


def make_data(silt, root, workdir):
    rng = random.Random(22)
    rows = []
    for idx in range(N_ROWS):
        rows.append([f"spotify:track:{idx:05d}", f"2023-01-{1 + idx % 28:02d} 10:{idx % 60:02d}:00",
                     rng.choice(["android", "iOS", "web"]), str(rng.randint(1000, 300000)),
                     f"track {idx}", ARTISTS[idx % len(ARTISTS)], f"album {idx % 17}",
                     rng.choice(["trackdone", "fwdbtn", "clickrow"]),
                     rng.choice(["trackdone", "endplay"]), rng.choice(["TRUE", "FALSE"]),
                     rng.choice(["TRUE", "FALSE", ""])])
    src = workdir / "spotify.csv"
    with src.open("w", newline="") as f:
        csv.writer(f).writerows([SPOTIFY_COLUMNS] + rows)
    products = workdir / "products.csv"
    with products.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ProductID", "ProductName", "Category", "ListPrice"])
        for pid in range(771, 771 + 30):
            w.writerow([pid, f"Mountain-{pid}", "Mountain Bikes", f"{3399.99 - pid:.2f}"])
    spotify = root / "adlsfs1sd" / "delta" / "spotifyStreamData"
    prod = root / "files" / "delta" / "products-delta"
    script = (f"CREATE TABLE delta.`{spotify}` AS SELECT * FROM read_files('{src}', format => "
              f"'csv', header => true);\n"
              f"CREATE TABLE delta.`{prod}` AS SELECT * FROM read_files('{products}', format => "
              f"'csv', header => true, inferSchema => true);\n")
    proc = subprocess.run([silt, "sql", script], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        fail("generating the tables: " + proc.stderr)
    return rows


def main():
    silt = str(Path(sys.argv[1]).resolve())
    workdir = Path(sys.argv[2]).resolve()
    shared = Path(sys.argv[3]) if len(sys.argv) > 3 else REPO.parent / "shared"
    tutorials = shared / "tutorials"
    t003 = next(tutorials.glob("003_*.txt"), None)
    t004 = next(tutorials.glob("004_*.txt"), None)
    if t003 is None or t004 is None:
        fail(f"tutorials 003 and 004 not found under {tutorials}")
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    root, wh = workdir / "lake", workdir / "wh"
    rows = make_data(silt, root, workdir)
    text3, text4 = t003.read_text(), t004.read_text()
    url3 = "https://adlsacc1sd.blob.core.windows.net/adlsfs1sd/delta/"
    url4 = "https://datalakexxxxxxx.dfs.core.windows.net/files/delta/products-delta/"
    local3, local4 = f"{root}/adlsfs1sd/delta/", f"{root}/files/delta/products-delta/"

    # 1. OPENROWSET with DATA_SOURCE as a location, TOP 10
    q1 = between(text3, "SELECT TOP 10 *\nFROM OPENROWSET(", "as rows;", "openrowset")
    out = run(silt, wh, q1.replace(url3, local3), "q1_openrowset", workdir)
    got = csv_blocks(out, [SPOTIFY_COLUMNS])
    if len(got) != 1 or got[0][0] != SPOTIFY_COLUMNS or got[0][1:] != rows[:10]:
        fail(f"q1: TOP 10 over OPENROWSET gave {got}")
    print("ok   003 OPENROWSET(BULK ..., DATA_SOURCE = ..., FORMAT = 'delta'), TOP 10")

    # 2. database, data source, file format, external table: one process (GO batches)
    ddl = between(text3, "--create a new database", "FILE_FORMAT = DeltaLakeFormat\n);",
                  "external objects")
    for mangled in ("spotify_track_uri", "artist_name", "album_name"):
        ddl = ddl.replace(mangled + "varchar(8000)", mangled + " varchar(8000)")
    run(silt, wh, ddl.replace(url3, local3), "q2_create", workdir)
    print("ok   003 CREATE DATABASE, USE, CREATE EXTERNAL DATA SOURCE / FILE FORMAT / TABLE (GO)")

    # 3. a new process: TOP 10 of the external table, CREATE VIEW, the view (no ';' between)
    rest = between(text3, "-- retrieve data from external table", "SELECT * FROM DeltaDataView",
                   "view")
    out = run(silt, wh, "USE delta_storage\nGO\n" + rest, "q3_view", workdir)
    got = csv_blocks(out, [SPOTIFY_COLUMNS])
    justice = [r for r in rows if r[5] == "Justice"]
    if len(got) != 2 or got[0][1:] != rows[:10] or sorted(got[1][1:]) != sorted(justice):
        fail(f"q3: external table and view gave {got[:1]} ... ({len(got)} results)")
    print(f"ok   003 SELECT TOP 10 FROM the external table, CREATE VIEW, the view "
          f"({len(justice)} Justice rows)")

    # 4. the Spark catalog table through [default].[dbo].[...] (registered as 003's Spark does)
    run(silt, wh, f"CREATE TABLE IF NOT EXISTS spotifyStreamData\nUSING DELTA\nLOCATION "
                  f"'{local3}spotifyStreamData'\n", "q4_register", workdir)
    q4 = between(text3, "SELECT TOP (10) * FROM [default]", "[spotifystreamdata]", "dbo")
    got = csv_blocks(run(silt, wh, q4, "q4_dbo", workdir), [SPOTIFY_COLUMNS])
    if len(got) != 1 or got[0][1:] != rows[:10]:
        fail(f"q4: [default].[dbo].[spotifystreamdata] gave {got}")
    print("ok   003 SELECT TOP (10) * FROM [default].[dbo].[spotifystreamdata]")

    # 5. 004's auto-generated query over the products folder
    q5 = between(text4, "-- This is auto-generated code", "AS [result]", "004")
    got = csv_blocks(run(silt, wh, q5.replace(url4, local4), "q5_products", workdir),
                     [PRODUCT_COLUMNS])
    if len(got) != 1 or got[0][0] != PRODUCT_COLUMNS or \
            len(got[0]) != 31:
        fail(f"q5: 004's OPENROWSET gave {got[:1]}")
    print("ok   004 SELECT TOP 100 * FROM OPENROWSET(BULK '.../products-delta/', FORMAT = "
          "'DELTA') AS [result]")

    # 6. what the catalog kept is still there for yet another process
    got = csv_blocks(run(silt, wh, "USE delta_storage;\nSHOW TABLES;\nSELECT count(*) AS n FROM "
                         "OPENROWSET(BULK 'spotifyStreamData', DATA_SOURCE = 'DeltaLakeStore1', "
                         "FORMAT = 'DELTA') AS r;\n", "q6_catalog", workdir),
                     [["namespace", "tableName", "isTemporary"], ["n"]])
    names = [r[1] for r in got[0][1:]]
    if names != ["deltadatasql", "deltadataview"] or got[1][1:] != [[str(N_ROWS)]]:
        fail(f"q6: the catalog kept {got}")
    print("ok   the external table, the view and the data source outlive their process")
    print("6 passed, 0 failed")


if __name__ == "__main__":
    main()
