# Window functions: ranking, lag/lead, aggregates over partitions and frames.
== row_number_partition
SELECT trip_id, route_id, row_number() OVER (PARTITION BY route_id ORDER BY trip_id) AS rn FROM trips WHERE trip_id < 500
== row_number_top1
SELECT route_id, trip_id FROM (SELECT route_id, trip_id, row_number() OVER (PARTITION BY route_id ORDER BY fare DESC NULLS LAST, trip_id) AS rn FROM trips) WHERE rn = 1
== rank_dense_rank_ties
SELECT destination, route_id, rank() OVER (PARTITION BY destination ORDER BY route_id) AS rk, dense_rank() OVER (PARTITION BY destination ORDER BY route_id) AS drk FROM trips WHERE trip_id < 300
== rank_no_partition
SELECT route_id, n, rank() OVER (ORDER BY n DESC) AS rk FROM (SELECT route_id, count(*) AS n FROM trips GROUP BY route_id)
== lag_lead
SELECT trip_id, lag(trip_id) OVER (ORDER BY trip_id) AS prev, lead(trip_id) OVER (ORDER BY trip_id) AS next FROM trips WHERE trip_id < 20
== lag_offset_default
SELECT trip_id, lag(fare, 2, 0.0) OVER (PARTITION BY route_id ORDER BY trip_id) AS p2, lead(destination, 1, 'end') OVER (PARTITION BY route_id ORDER BY trip_id) AS nd FROM trips WHERE trip_id < 400
== sum_over_partition
SELECT trip_id, route_id, sum(fare) OVER (PARTITION BY route_id) AS total FROM trips WHERE trip_id < 300
== running_sum_default_frame
-- why: with ORDER BY the default frame is RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers included)
SELECT route_id, trip_id, sum(route_id) OVER (ORDER BY route_id) AS s FROM trips WHERE trip_id < 60
== running_count_rows_frame
SELECT trip_id, count(*) OVER (ORDER BY trip_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c FROM trips WHERE trip_id < 30
== moving_avg_rows
SELECT trip_id, avg(fare) OVER (ORDER BY trip_id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS m FROM trips WHERE trip_id < 100
== rows_following_unbounded
SELECT trip_id, sum(trip_id) OVER (ORDER BY trip_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM trips WHERE trip_id < 25
== range_frame_numeric
SELECT trip_id, count(*) OVER (ORDER BY route_id RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c FROM trips WHERE trip_id < 200
== min_max_over
SELECT trip_id, min(fare) OVER (PARTITION BY destination) AS lo, max(fare) OVER (PARTITION BY destination ORDER BY trip_id) AS hi FROM trips WHERE trip_id < 200
== count_over_whole
SELECT trip_id, count(*) OVER () AS n, count(destination) OVER () AS nd FROM trips WHERE trip_id < 50
== window_over_aggregate
SELECT destination, count(*) AS n, sum(count(*)) OVER () AS total, rank() OVER (ORDER BY count(*) DESC) AS rk FROM trips GROUP BY destination
== percent_of_total
SELECT route_id, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM trips GROUP BY route_id
== named_window
SELECT trip_id, row_number() OVER w AS rn, sum(fare) OVER w AS s FROM trips WHERE trip_id < 100 WINDOW w AS (PARTITION BY route_id ORDER BY trip_id)
== window_order_by_desc_nulls
SELECT trip_id, fare, row_number() OVER (ORDER BY fare DESC, trip_id) AS rn FROM trips WHERE trip_id < 120
== qualify
SELECT trip_id, route_id FROM trips QUALIFY row_number() OVER (PARTITION BY route_id ORDER BY trip_id DESC) <= 2
== window_partition_two_keys
SELECT trip_id, dense_rank() OVER (PARTITION BY route_id, destination ORDER BY fare) AS d FROM trips WHERE trip_id < 1000
== first_last_value
SELECT trip_id, first_value(trip_id) OVER (PARTITION BY route_id ORDER BY trip_id) AS f, last_value(trip_id) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l FROM trips WHERE trip_id < 300
== ntile_percent_rank
SELECT trip_id, ntile(4) OVER (ORDER BY trip_id) AS q, percent_rank() OVER (ORDER BY trip_id) AS pr, cume_dist() OVER (ORDER BY trip_id) AS cd FROM trips WHERE trip_id <= 20
== window_in_order_by
SELECT trip_id FROM trips WHERE trip_id < 50 ORDER BY row_number() OVER (ORDER BY fare DESC NULLS LAST, trip_id), trip_id LIMIT 10
== window_then_filter
SELECT * FROM (SELECT trip_id, fare, avg(fare) OVER (PARTITION BY route_id) AS a FROM trips) WHERE fare > 2 * a ORDER BY trip_id LIMIT 20
== lag_over_timestamps
SELECT trip_id, tstamp, lag(tstamp) OVER (PARTITION BY route_id ORDER BY tstamp, trip_id) AS prev FROM trips WHERE route_id = 5 ORDER BY tstamp, trip_id LIMIT 15
== window_string_max
SELECT trip_id, max(destination) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS m FROM trips WHERE trip_id < 150
== first_last_ignore_nulls_frames
SELECT trip_id, first_value(fare) IGNORE NULLS OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS f, last_value(fare, true) OVER (PARTITION BY route_id ORDER BY trip_id) AS l, first_value(fare) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS f2 FROM trips WHERE trip_id < 400
-- duckdb
SELECT trip_id, first_value(fare IGNORE NULLS) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS f, last_value(fare IGNORE NULLS) OVER (PARTITION BY route_id ORDER BY trip_id) AS l, first_value(fare) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS f2 FROM trips WHERE trip_id < 400
== first_last_aggregate_names_over_window
-- why: first and last (the aggregates) take a window frame too, as first_value and last_value
SELECT trip_id, first(destination) OVER (PARTITION BY route_id ORDER BY trip_id) AS f, last(destination) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS l FROM trips WHERE trip_id < 300
-- duckdb
SELECT trip_id, first_value(destination) OVER (PARTITION BY route_id ORDER BY trip_id) AS f, last_value(destination) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS l FROM trips WHERE trip_id < 300
== nth_value_frames
SELECT trip_id, nth_value(fare, 3) OVER (PARTITION BY route_id ORDER BY trip_id) AS n3, nth_value(fare, 2) IGNORE NULLS OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n2, nth_value(trip_id, 2) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS m FROM trips WHERE trip_id < 400
-- duckdb
SELECT trip_id, nth_value(fare, 3) OVER (PARTITION BY route_id ORDER BY trip_id) AS n3, nth_value(fare, 2 IGNORE NULLS) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n2, nth_value(trip_id, 2) OVER (PARTITION BY route_id ORDER BY trip_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS m FROM trips WHERE trip_id < 400
== first_value_range_offset
SELECT trip_id, first_value(route_id) OVER (ORDER BY route_id RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS f, last_value(route_id) OVER (ORDER BY route_id RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS l FROM trips WHERE trip_id < 200
== ntile_distribution_partitions
SELECT trip_id, ntile(3) OVER (PARTITION BY route_id ORDER BY trip_id) AS q, percent_rank() OVER (PARTITION BY destination ORDER BY route_id) AS pr, cume_dist() OVER (PARTITION BY destination ORDER BY route_id DESC) AS cd FROM trips WHERE trip_id < 500
== ntile_more_buckets_than_rows
SELECT trip_id, ntile(50) OVER (ORDER BY trip_id) AS q, ntile(7) OVER (PARTITION BY route_id % 2 ORDER BY trip_id DESC) AS r FROM trips WHERE trip_id < 20
== ranking_without_over_fails
SELECT row_number() FROM trips
-- error: WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE
== ranking_without_order_by_fails
SELECT trip_id, ntile(2) OVER (PARTITION BY route_id) FROM trips
-- error: requires the window to be ordered
== ntile_zero_fails
SELECT ntile(0) OVER (ORDER BY trip_id) FROM trips
-- error: VALUE_OUT_OF_RANGE
== lag_with_frame_fails
SELECT lag(trip_id) OVER (ORDER BY trip_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM trips
-- error: cannot specify a window frame
