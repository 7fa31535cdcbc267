# Bike trips from CSV: inferred timestamps, coordinates, station ids with gaps, a station dimension.
== bikes_count
SELECT count(*), count(start_station_id), count(end_lat) FROM bikes
== bikes_types
SELECT rideable_type, member_casual, count(*) FROM bikes GROUP BY 1, 2
== bikes_minmax_time
SELECT min(started_at), max(ended_at) FROM bikes
== bikes_by_day
SELECT to_date(started_at) AS d, count(*) AS n FROM bikes GROUP BY 1 ORDER BY 1
-- duckdb
SELECT CAST(started_at AS DATE) AS d, count(*) AS n FROM bikes GROUP BY 1 ORDER BY 1
== bikes_by_hour
SELECT hour(started_at) AS h, count(*), round(avg(duration_s), 3) FROM bikes GROUP BY 1
== bikes_year_month_columns
SELECT year(started_at) AS start_year, month(started_at) AS start_month, count(*) FROM bikes GROUP BY 1, 2
== bikes_duration_from_timestamps
SELECT count(*) FROM bikes WHERE unix_timestamp(ended_at) - unix_timestamp(started_at) <> duration_s
-- duckdb
SELECT count(*) FROM bikes WHERE epoch(ended_at) - epoch(started_at) <> duration_s
== bikes_long_rides
SELECT ride_id, duration_s FROM bikes WHERE duration_s > 10700 ORDER BY duration_s DESC, ride_id
== bikes_null_stations
SELECT count(*) FROM bikes WHERE start_station_id IS NULL OR end_station_id IS NULL
== bikes_round_trip
SELECT count(*) FROM bikes WHERE start_station_id = end_station_id
== bikes_coordinates_box
SELECT count(*) FROM bikes WHERE start_lat BETWEEN 59.92 AND 59.94 AND start_lng > 10.75
== bikes_distance_approx
SELECT ride_id, round(sqrt(pow((end_lat - start_lat) * 111.0, 2) + pow((end_lng - start_lng) * 55.6, 2)), 3) AS km FROM bikes WHERE end_lat IS NOT NULL ORDER BY km DESC, ride_id LIMIT 10
== bikes_avg_coords_by_station
SELECT start_station_id, round(avg(start_lat), 6), round(avg(start_lng), 6) FROM bikes GROUP BY 1 ORDER BY 1 NULLS FIRST LIMIT 10
== bikes_top_stations
SELECT s.name, count(*) AS n FROM bikes b JOIN stations s ON b.start_station_id = s.station_id GROUP BY s.name ORDER BY n DESC, s.name LIMIT 10
== bikes_station_capacity_nulls
SELECT s.capacity IS NULL AS nocap, count(*) FROM bikes b JOIN stations s ON b.end_station_id = s.station_id GROUP BY 1
== bikes_unknown_stations
SELECT count(DISTINCT start_station_id) FROM bikes WHERE start_station_id NOT IN (SELECT station_id FROM stations)
== bikes_member_share
-- why: avg of decimal(2,1) is decimal(6,5) in Spark, so the share has 5 places before round(.., 6)
SELECT rideable_type, round(avg(CASE WHEN member_casual = 'member' THEN 1.0 ELSE 0.0 END), 6) AS share FROM bikes GROUP BY 1
-- duckdb
SELECT rideable_type, round(avg(CASE WHEN member_casual = 'member' THEN 1.0 ELSE 0.0 END), 5) AS share FROM bikes GROUP BY 1
== bikes_window_per_station
SELECT ride_id, start_station_id, row_number() OVER (PARTITION BY start_station_id ORDER BY started_at, ride_id) AS k FROM bikes WHERE start_station_id < 4
== bikes_busiest_hour_per_day
SELECT d, h, n FROM (SELECT to_date(started_at) AS d, hour(started_at) AS h, count(*) AS n, rank() OVER (PARTITION BY to_date(started_at) ORDER BY count(*) DESC, hour(started_at)) AS rk FROM bikes GROUP BY 1, 2) WHERE rk = 1
-- duckdb
SELECT d, h, n FROM (SELECT CAST(started_at AS DATE) AS d, hour(started_at) AS h, count(*) AS n, rank() OVER (PARTITION BY CAST(started_at AS DATE) ORDER BY count(*) DESC, hour(started_at)) AS rk FROM bikes GROUP BY 1, 2) WHERE rk = 1
== bikes_time_window_filter
SELECT count(*) FROM bikes WHERE started_at >= '2024-05-10' AND started_at < '2024-05-11'
== bikes_date_format_group
SELECT date_format(started_at, 'yyyy-MM') AS ym, count(*) FROM bikes GROUP BY 1
-- duckdb
SELECT strftime(started_at, '%Y-%m') AS ym, count(*) FROM bikes GROUP BY 1
== bikes_legacy_id_join
-- the city-bike tutorial maps legacy station ids through a dimension table, for both ends
SELECT count(*) FROM bikes b JOIN stations s1 ON b.start_station_id + 1000 = s1.legacy_id JOIN stations s2 ON b.end_station_id + 1000 = s2.legacy_id
== bikes_read_files_csv
SELECT member_casual, count(*) FROM read_files('{W}/bikes.csv', format => 'csv', header => true, inferSchema => true) GROUP BY 1
-- duckdb
SELECT member_casual, count(*) FROM bikes GROUP BY 1
== bikes_csv_path_header_option
SELECT count(*) FROM csv.`{W}/bikes.csv`
-- why: csv.`path` has no header, so the header line is one more row
-- expect
[6001]
== bikes_stations_cube
SELECT s.district, b.member_casual, count(*) FROM bikes b JOIN stations s ON b.start_station_id = s.station_id GROUP BY CUBE (s.district, b.member_casual)
