# More shapes users write: nested CTEs and subqueries, GROUP BY ALL, LIKE ANY, CASE in aggregates,
# HAVING with OR, DISTINCT in subqueries, joins on expressions, window after GROUP BY, literals in ORDER BY.
== group_by_all
SELECT destination, route_id % 2 AS odd, count(*) FROM trips GROUP BY ALL
-- duckdb
SELECT destination, route_id % 2 AS odd, count(*) FROM trips GROUP BY ALL
== like_any
SELECT count(*) FROM trips WHERE destination LIKE ANY ('S%', '%Town')
-- duckdb
SELECT count(*) FROM trips WHERE destination LIKE 'S%' OR destination LIKE '%Town'
== like_all
SELECT count(*) FROM trips WHERE destination LIKE ALL ('%a%', '%r%')
-- duckdb
SELECT count(*) FROM trips WHERE destination LIKE '%a%' AND destination LIKE '%r%'
== case_inside_sum
SELECT route_id, sum(CASE WHEN destination = 'Zoo' THEN fare ELSE 0 END) AS zoo_fare, sum(CASE destination WHEN 'Airport' THEN 1 ELSE 0 END) AS airport FROM trips GROUP BY route_id
== having_or
SELECT route_id, count(*) AS n FROM trips GROUP BY route_id HAVING count(*) > 690 OR max(fare) < 59.9
== having_on_key
SELECT route_id, avg(fare) FROM trips GROUP BY route_id HAVING route_id IN (3, 5, 8)
== nested_cte_subquery
WITH a AS (SELECT route_id, destination, count(*) AS n FROM trips GROUP BY 1, 2), b AS (SELECT route_id, max(n) AS m FROM a GROUP BY route_id) SELECT a.route_id, a.destination, a.n FROM a JOIN b ON a.route_id = b.route_id AND a.n = b.m ORDER BY a.route_id, a.destination
== top_destination_per_route
SELECT route_id, destination FROM (SELECT route_id, destination, rank() OVER (PARTITION BY route_id ORDER BY count(*) DESC) AS rk FROM trips WHERE destination IS NOT NULL GROUP BY route_id, destination) WHERE rk = 1
== distinct_in_subquery_count
SELECT count(*) FROM (SELECT DISTINCT route_id, destination FROM trips WHERE fare > 30)
== join_on_expression_both_sides
SELECT count(*) FROM trips a JOIN routes r ON a.route_id % 25 + 1 = r.route_id
== join_on_or
SELECT count(*) FROM routes a JOIN routes b ON a.route_id = b.route_id + 1 OR a.route_id = b.route_id - 1
== order_by_literal_expression
SELECT destination, count(*) AS n FROM trips GROUP BY destination ORDER BY n * -1, destination
== select_same_column_twice
SELECT route_id, route_id AS r2, route_id + 0 AS r3 FROM routes ORDER BY route_id LIMIT 3
== union_then_aggregate
SELECT k, count(*) FROM (SELECT 'a' AS k FROM trips WHERE route_id = 1 UNION ALL SELECT 'b' FROM trips WHERE route_id = 2) GROUP BY k
== where_in_cte
WITH zoo AS (SELECT * FROM trips WHERE destination = 'Zoo') SELECT count(*) FROM trips WHERE route_id IN (SELECT route_id FROM zoo WHERE fare > 59.5)
== scalar_subquery_in_projection_arith
SELECT route_id, count(*) * 100.0 / (SELECT count(*) FROM trips) AS pct FROM trips GROUP BY route_id
== coalesce_multi
SELECT coalesce(CASE WHEN fare > 50 THEN destination END, CASE WHEN fare > 40 THEN 'forty' END, 'low') AS c, count(*) FROM trips GROUP BY 1
== nullif_division
SELECT route_id, sum(fare) / nullif(count(fare), 0) AS m FROM trips GROUP BY route_id
== between_strings
SELECT DISTINCT destination FROM trips WHERE destination BETWEEN 'H' AND 'T'
== in_list_strings_and_null_results
SELECT destination IN ('Zoo', 'Harbor') AS hit, count(*) FROM trips GROUP BY 1
== not_in_null_semantics_projection
SELECT destination NOT IN ('Zoo', NULL) AS x, count(*) FROM trips GROUP BY 1
== is_true_false
SELECT (fare > 30) IS TRUE AS t, (fare > 30) IS NOT FALSE AS nf, count(*) FROM trips GROUP BY 1, 2
== date_diff_group
SELECT datediff(to_date(tstamp), DATE '2024-01-01') DIV 7 AS week, count(*) FROM trips GROUP BY 1
-- duckdb
SELECT date_diff('day', DATE '2024-01-01', CAST(tstamp AS DATE)) // 7 AS week, count(*) FROM trips GROUP BY 1
== month_names
SELECT date_format(tstamp, 'MMM') AS m, count(*) FROM trips GROUP BY 1
-- duckdb
SELECT strftime(tstamp, '%b') AS m, count(*) FROM trips GROUP BY 1
== window_sum_running_per_day
SELECT d, n, sum(n) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM (SELECT to_date(tstamp) AS d, count(*) AS n FROM trips GROUP BY 1)
-- duckdb
SELECT d, n, sum(n) OVER (ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM (SELECT CAST(tstamp AS DATE) AS d, count(*) AS n FROM trips GROUP BY 1)
== window_lag_growth
SELECT m, n, n - lag(n) OVER (ORDER BY m) AS growth FROM (SELECT month(tstamp) AS m, count(*) AS n FROM trips GROUP BY 1)
== self_join_same_destination_close_in_time
SELECT count(*) FROM trips a JOIN trips b ON a.destination = b.destination AND b.trip_id = a.trip_id + 1 WHERE a.route_id = b.route_id
== exists_with_local_filter_only
SELECT count(*) FROM routes r WHERE EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59.9 AND t.destination LIKE '%a%')
== not_exists_two_keys
SELECT count(*) FROM trips t WHERE NOT EXISTS (SELECT 1 FROM trips u WHERE u.route_id = t.route_id AND u.destination = t.destination AND u.fare > t.fare)
== cast_timestamp_to_long
-- why: Spark casts a timestamp to bigint as seconds since the epoch
SELECT CAST(TIMESTAMP '2024-01-01 00:00:10' AS BIGINT) AS s
-- expect
[1704067210]
== cast_long_to_timestamp
-- why: Spark reads a bigint as seconds since the epoch
SELECT CAST(1704067210 AS TIMESTAMP) AS t
-- expect
["2024-01-01T00:00:10.000000Z"]
== string_compare_mixed_case
SELECT count(*) FROM trips WHERE lower(destination) = 'harbor'
== concat_ws_skips_nulls
SELECT concat_ws('-', 'a', NULL, 'b') AS s
== length_of_null
SELECT length(NULL) AS n, upper(NULL) AS u
-- expect
[null, null]
== limit_in_cte_then_join
WITH top AS (SELECT route_id FROM trips GROUP BY route_id ORDER BY count(*) DESC, route_id LIMIT 3) SELECT r.name FROM routes r JOIN top USING (route_id) ORDER BY r.name
== order_by_two_aggregates
SELECT destination, min(fare) AS lo, max(fare) AS hi FROM trips GROUP BY destination ORDER BY hi - lo DESC, destination
== group_by_case_expression_alias
SELECT CASE WHEN hour(tstamp) < 12 THEN 'am' ELSE 'pm' END AS half, destination, count(*) FROM trips GROUP BY half, destination
== sum_of_booleans_cast
SELECT sum(CAST(fare > 30 AS INT)) AS n FROM trips
== avg_of_int_column
-- why: avg of an int is a double in Spark and DuckDB
SELECT route_id % 3 AS k, avg(route_id) FROM trips GROUP BY 1
== integer_overflow_sum_fits_long
SELECT sum(CAST(trip_id AS INT) * 100000) FROM trips
