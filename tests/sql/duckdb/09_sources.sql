# Sources: Delta (time travel, partitions), Parquet, CSV and JSON files, globs, read_files, views USING.
== delta_count
SELECT count(*) FROM delta.`{W}/trips_delta`
== delta_version_as_of_0
SELECT count(*), sum(fare) FROM delta.`{W}/trips_delta` VERSION AS OF 0
== delta_version_as_of_1
SELECT destination, count(*) FROM delta.`{W}/trips_delta` VERSION AS OF 1 GROUP BY destination
== delta_at_v_suffix
SELECT count(*) FROM delta.`{W}/trips_delta`@v2 WHERE destination = 'Zoo'
== delta_version_as_of_2_rows
SELECT trip_id, route_id FROM delta.`{W}/trips_delta` VERSION AS OF 2 WHERE trip_id > 100000 ORDER BY trip_id LIMIT 10
== delta_timestamp_as_of
SELECT count(*) FROM delta.`{W}/trips_delta` TIMESTAMP AS OF '{TS1}'
== delta_timestamp_as_of_v0
SELECT count(*) FROM delta.`{W}/trips_delta` TIMESTAMP AS OF '{TS0}'
== delta_versions_union
SELECT 'v0' AS v, count(*) FROM delta.`{W}/trips_delta` VERSION AS OF 0 UNION ALL SELECT 'v1', count(*) FROM delta.`{W}/trips_delta` VERSION AS OF 1 UNION ALL SELECT 'v2', count(*) FROM delta.`{W}/trips_delta`
== delta_versions_except
SELECT trip_id FROM delta.`{W}/trips_delta` VERSION AS OF 0 EXCEPT SELECT trip_id FROM delta.`{W}/trips_delta` VERSION AS OF 1
== delta_view_using
SELECT destination, count(*), round(sum(fare), 2) FROM trips_delta GROUP BY destination
== delta_min_max_stats
SELECT min(trip_id), max(trip_id), count(*) FROM delta.`{W}/trips_delta`
== delta_partitioned_count
SELECT count(*) FROM delta.`{W}/trips_part`
== delta_partition_filter
SELECT count(*), sum(fare) FROM delta.`{W}/trips_part` WHERE route_id = 7
== delta_partition_in
SELECT route_id, count(*) FROM delta.`{W}/trips_part` WHERE route_id IN (1, 2, 30) GROUP BY route_id
== delta_partition_range
SELECT count(*) FROM delta.`{W}/trips_part` WHERE route_id BETWEEN 10 AND 12 AND destination = 'Harbor'
== delta_partition_group
SELECT route_id, count(*), max(tstamp) FROM trips_part GROUP BY route_id
== delta_partition_column_order
SELECT * FROM delta.`{W}/trips_part` WHERE trip_id < 4 ORDER BY trip_id
== delta_string_partition_nulls
SELECT destination, count(*) FROM delta.`{W}/trips_dpart` GROUP BY destination
== delta_string_partition_is_null
SELECT count(*), sum(route_id) FROM delta.`{W}/trips_dpart` WHERE destination IS NULL
== delta_string_partition_eq
SELECT count(*) FROM delta.`{W}/trips_dpart` WHERE destination = 'Old Town'
== delta_join_dimension
SELECT s.district, count(*) FROM bikes b JOIN delta.`{W}/stations_delta` s ON b.start_station_id = s.station_id GROUP BY s.district
== parquet_dir
SELECT count(*), sum(trip_id) FROM parquet.`{W}/trips`
== parquet_glob
SELECT count(*) FROM parquet.`{W}/trips/part-1*.parquet`
-- duckdb
SELECT count(*) FROM read_parquet('{W}/trips/part-1*.parquet')
== parquet_single_file
SELECT count(*) FROM parquet.`{W}/trips/part-0.parquet`
== parquet_row_group_skip
SELECT count(*) FROM parquet.`{W}/trips` WHERE trip_id BETWEEN 100 AND 200
== csv_view_types
SELECT sum(trip_id), sum(route_id), round(sum(fare), 2), min(tstamp), max(tstamp) FROM trips_csv
== csv_view_nulls
SELECT count(*) FROM trips_csv WHERE destination IS NULL OR fare IS NULL
== csv_vs_parquet_same_rows
SELECT count(*) FROM (SELECT trip_id, route_id, destination FROM trips EXCEPT SELECT trip_id, route_id, destination FROM trips_csv)
== csv_read_files
SELECT destination, count(*) FROM read_files('{W}/trips_csv', format => 'csv', header => true) GROUP BY destination
-- duckdb
SELECT destination, count(*) FROM read_csv('{W}/trips_csv/*.csv', header = true) GROUP BY destination
== csv_read_files_glob
SELECT count(*) FROM read_files('{W}/trips_csv/a*.csv', format => 'csv', header => true)
-- duckdb
SELECT count(*) FROM read_csv('{W}/trips_csv/a*.csv', header = true)
== csv_path_no_header
-- why: csv.`path` reads without a header (Spark's default): columns _c0.., all strings, the header is a row
SELECT _c0, _c1 FROM csv.`{W}/routes.csv` ORDER BY _c0 LIMIT 3
-- expect
["1", "Line 1"]
["10", "Line 10"]
["11", "Line 11"]
== csv_routes_view
SELECT kind, count(*), sum(length_km) FROM routes_csv GROUP BY kind
== json_view
SELECT destination, count(*), round(sum(fare), 2) FROM trips_json GROUP BY destination
== json_path
SELECT count(*), max(trip_id) FROM json.`{W}/trips.json`
-- duckdb
SELECT count(*), max(trip_id) FROM trips_json
== json_timestamp_is_string
-- why: Spark's JSON inference keeps timestamps as strings (inferTimestamp defaults to false)
SELECT tstamp FROM trips_json ORDER BY trip_id LIMIT 2
== json_read_files
SELECT count(*) FROM read_files('{W}/stations.json', format => 'json')
-- duckdb
SELECT count(*) FROM stations_json
== json_columns_sorted
-- why: Spark orders inferred JSON columns by name
SELECT * FROM stations_json ORDER BY station_id LIMIT 2
== json_join_parquet
SELECT j.district, count(*) FROM stations_json j JOIN stations p ON j.station_id = p.station_id AND j.name = p.name GROUP BY j.district
== view_as_select
CREATE OR REPLACE TEMPORARY VIEW zoo AS SELECT * FROM trips WHERE destination = 'Zoo'; SELECT count(*), max(fare) FROM zoo
-- duckdb
SELECT count(*), max(fare) FROM trips WHERE destination = 'Zoo'
== view_using_csv_options
CREATE OR REPLACE TEMPORARY VIEW r2 USING csv OPTIONS (path '{W}/routes.csv', header 'true', inferSchema 'true'); SELECT name FROM r2 WHERE length_km > 20 ORDER BY name
-- duckdb
SELECT name FROM read_csv('{W}/routes.csv', header = true) WHERE length_km > 20 ORDER BY name
== csv_infer_off_strings
-- why: without inferSchema every CSV column is a string, so the comparison is textual
SELECT max(route_id) FROM read_files('{W}/routes.csv', format => 'csv', header => true, inferSchema => false)
-- expect
["9"]
== csv_mode_permissive
-- why: Spark 4.1's answers (n is inferred as a string because of 'x'; a short record gets NULLs)
CREATE OR REPLACE TEMPORARY VIEW bad USING csv OPTIONS (path '{W}/bad.csv', header 'true', inferSchema 'true', mode 'PERMISSIVE'); SELECT * FROM bad ORDER BY id
-- expect
[1, "10", "a"]
[2, "x", "b"]
[3, "30", null]
[4, "40", "d"]
[5, "50", "e"]
== csv_mode_dropmalformed
-- why: Spark 4.1 drops the records with too few or too many fields
CREATE OR REPLACE TEMPORARY VIEW bad USING csv OPTIONS (path '{W}/bad.csv', header 'true', inferSchema 'true', mode 'DROPMALFORMED'); SELECT * FROM bad ORDER BY id
-- expect
[1, "10", "a"]
[2, "x", "b"]
[5, "50", "e"]
== csv_mode_failfast
-- why: Spark 4.1 fails on the first malformed record
CREATE OR REPLACE TEMPORARY VIEW bad USING csv OPTIONS (path '{W}/bad.csv', header 'true', inferSchema 'true', mode 'FAILFAST'); SELECT * FROM bad ORDER BY id
-- error: malformed CSV record at line 4
-- error: bad.csv
== json_nested_fields
-- why: Spark 4.1's answers (struct fields by dot, sizes of arrays, NULL structs)
SELECT id, user.name, user.age, size(tags) AS n, CASE WHEN size(tags) > 0 THEN tags[0] END AS t0, score FROM json.`{W}/nested.json` ORDER BY id
-- expect
[1, "ann", 31, 2, "a", 1.5]
[2, "bob", null, 0, null, null]
[3, null, null, 1, "c", null]
== json_nested_star
-- why: Spark 4.1: columns sorted by name, the struct's fields too
SELECT * FROM json.`{W}/nested.json` ORDER BY id
-- expect
[1, 1.5, ["a", "b"], [["age", 31], ["name", "ann"]]]
[2, null, [], [["age", null], ["name", "bob"]]]
[3, null, ["c"], null]
== json_group_by_struct_field
-- why: Spark 4.1's answer
SELECT user.name, count(*) FROM json.`{W}/nested.json` GROUP BY user.name
-- expect
[null, 1]
["ann", 1]
["bob", 1]
== json_array_index_out_of_bounds
-- why: ANSI mode (Spark 4): an index past the end fails
SELECT tags[1] FROM json.`{W}/nested.json`
-- error: [INVALID_ARRAY_INDEX]
== partitioned_join_where_prunes
SELECT r.name, count(*), round(sum(t.fare), 2) FROM trips_part t JOIN routes r ON t.route_id = r.route_id WHERE t.route_id IN (3, 4) AND t.route_id > 3 AND t.fare > 10 GROUP BY r.name
-- duckdb
SELECT r.name, count(*), round(sum(t.fare), 2) FROM trips t JOIN routes r ON t.route_id = r.route_id WHERE t.route_id IN (3, 4) AND t.route_id > 3 AND t.fare > 10 GROUP BY r.name
== partitioned_left_join_where_on_right_is_null
-- why: a WHERE term on the null-supplying side of a LEFT JOIN must not prune that side
SELECT count(*) FROM routes r LEFT JOIN trips_part t ON t.route_id = r.route_id AND t.fare > 59.5 WHERE t.route_id IS NULL OR t.route_id = 2
-- duckdb
SELECT count(*) FROM routes r LEFT JOIN trips t ON t.route_id = r.route_id AND t.fare > 59.5 WHERE t.route_id IS NULL OR t.route_id = 2
== partitioned_left_join_where_on_right_column
SELECT count(*) FROM routes r LEFT JOIN trips_part t ON t.route_id = r.route_id WHERE t.route_id = 2
-- duckdb
SELECT count(*) FROM routes r LEFT JOIN trips t ON t.route_id = r.route_id WHERE t.route_id = 2
== partitioned_comma_join_where_prunes
SELECT count(*) FROM trips_part t, routes r WHERE t.route_id = r.route_id AND t.route_id = 5 AND r.kind IS NOT NULL
-- duckdb
SELECT count(*) FROM trips t, routes r WHERE t.route_id = r.route_id AND t.route_id = 5 AND r.kind IS NOT NULL
== partitioned_right_join_where_left_is_null
SELECT count(*) FROM trips_part t RIGHT JOIN routes r ON t.route_id = r.route_id WHERE t.route_id IS NULL
-- duckdb
SELECT count(*) FROM trips t RIGHT JOIN routes r ON t.route_id = r.route_id WHERE t.route_id IS NULL
