# Smoke: the sources line up in both engines.
== count_trips
SELECT count(*) FROM trips
== count_delta_v0
SELECT count(*) FROM delta.`{W}/trips_delta` VERSION AS OF 0
== count_delta_v1
SELECT count(*), count(destination) FROM delta.`{W}/trips_delta`@v1
== count_delta
SELECT count(*), sum(trip_id) FROM trips_delta
== bikes_head
SELECT * FROM bikes ORDER BY ride_id LIMIT 3
== trips_csv_head
SELECT * FROM trips_csv ORDER BY trip_id LIMIT 3
== trips_json_head
SELECT * FROM trips_json ORDER BY trip_id LIMIT 3
== stations_json_head
SELECT * FROM stations_json ORDER BY station_id LIMIT 3
== err
SELECT nope FROM trips
-- error: UNRESOLVED_COLUMN
