# ORDER BY (ASC/DESC, NULLS FIRST/LAST, ordinals, expressions), LIMIT/OFFSET, DISTINCT.
== order_asc_default_nulls_first
-- why: Spark puts NULLs first on ASC and last on DESC (DuckDB is set to the same)
SELECT fare FROM trips WHERE route_id = 3 ORDER BY fare LIMIT 12
== order_desc_default_nulls_last
SELECT fare FROM trips WHERE route_id = 3 ORDER BY fare DESC LIMIT 5
== order_desc_nulls_last_tail
SELECT fare FROM trips WHERE route_id = 3 ORDER BY fare DESC OFFSET 620
-- duckdb
SELECT fare FROM trips WHERE route_id = 3 ORDER BY fare DESC OFFSET 620
== order_nulls_last
SELECT destination, trip_id FROM trips WHERE trip_id < 400 ORDER BY destination NULLS LAST, trip_id
== order_desc_nulls_first
SELECT destination, trip_id FROM trips WHERE trip_id < 400 ORDER BY destination DESC NULLS FIRST, trip_id DESC
== order_by_ordinal
SELECT route_id, count(*) FROM trips GROUP BY route_id ORDER BY 2 DESC, 1
== order_by_alias
SELECT trip_id AS id, fare * 2 AS f FROM trips WHERE fare IS NOT NULL ORDER BY f DESC, id LIMIT 10
== order_by_expression_not_selected
SELECT trip_id FROM trips ORDER BY trip_id % 100, trip_id LIMIT 15
== order_by_column_not_selected
SELECT trip_id FROM trips WHERE route_id = 2 ORDER BY tstamp, trip_id LIMIT 10
== order_by_string_desc
SELECT DISTINCT destination FROM trips ORDER BY destination DESC
== order_by_multi_mixed
SELECT route_id, destination, trip_id FROM trips WHERE trip_id < 500 ORDER BY route_id DESC, destination ASC NULLS LAST, trip_id DESC
== order_by_timestamp
SELECT trip_id, tstamp FROM trips ORDER BY tstamp DESC, trip_id LIMIT 10
== order_by_case
SELECT destination FROM trips GROUP BY destination ORDER BY CASE WHEN destination = 'Zoo' THEN 0 ELSE 1 END, destination
== limit_only_count
SELECT count(*) FROM (SELECT * FROM trips LIMIT 77)
== limit_zero
SELECT trip_id FROM trips LIMIT 0
== limit_larger_than_input
SELECT count(*) FROM (SELECT trip_id FROM trips WHERE route_id = 1 LIMIT 100000)
== offset_without_limit
SELECT trip_id FROM trips ORDER BY trip_id OFFSET 19995
== limit_offset
SELECT trip_id FROM trips ORDER BY trip_id DESC LIMIT 5 OFFSET 10
== top_n_big
SELECT trip_id, fare FROM trips ORDER BY fare DESC NULLS LAST, trip_id LIMIT 300
== distinct_single
SELECT DISTINCT route_id FROM trips
== distinct_multi
SELECT DISTINCT destination, route_id % 3 FROM trips
== distinct_with_nulls
SELECT DISTINCT destination FROM trips WHERE route_id < 3
== distinct_order_limit
SELECT DISTINCT route_id FROM trips ORDER BY route_id DESC LIMIT 4
== distinct_star_subquery
SELECT count(*) FROM (SELECT DISTINCT destination, route_id FROM trips)
== distinct_expression
SELECT DISTINCT upper(substr(destination, 1, 1)) AS c FROM trips
== order_by_in_subquery_then_limit
SELECT * FROM (SELECT trip_id FROM trips ORDER BY trip_id LIMIT 10) ORDER BY trip_id DESC
== order_by_double_nan_free
SELECT round(fare / 7, 3) AS r FROM trips WHERE trip_id < 30 ORDER BY r NULLS LAST
