# Aggregates, GROUP BY by ordinal and alias, HAVING, FILTER, GROUPING SETS / ROLLUP / CUBE.
== count_star_and_col
SELECT count(*), count(destination), count(fare), count(1) FROM trips
== count_distinct
SELECT count(DISTINCT destination), count(DISTINCT route_id) FROM trips
== count_distinct_multi
-- why: Spark counts distinct (a, b) pairs where neither is null (240 here, Spark 4.1); DuckDB has no multi-argument count(DISTINCT)
SELECT count(DISTINCT destination, route_id) FROM trips
-- duckdb
SELECT count(*) FROM (SELECT DISTINCT destination, route_id FROM trips WHERE destination IS NOT NULL)
== sum_avg_min_max
SELECT sum(fare), avg(fare), min(fare), max(fare) FROM trips
== sum_int_avg_int
SELECT sum(route_id), avg(route_id), min(route_id), max(route_id) FROM trips
== min_max_string
SELECT min(destination), max(destination) FROM trips
== min_max_timestamp
SELECT min(tstamp), max(tstamp) FROM trips
== agg_empty_input
SELECT count(*), sum(fare), avg(fare), max(destination) FROM trips WHERE trip_id < 0
== group_by_col
SELECT destination, count(*), round(sum(fare), 2) FROM trips GROUP BY destination
== group_by_two
SELECT destination, route_id, count(*) FROM trips GROUP BY destination, route_id
== group_by_ordinal
SELECT route_id % 5 AS m, destination, count(*) FROM trips GROUP BY 1, 2
== group_by_alias
SELECT route_id % 5 AS m, count(*) AS n FROM trips GROUP BY m
== group_by_expression
SELECT upper(destination), count(*) FROM trips GROUP BY upper(destination)
== group_by_not_selected
SELECT count(*) FROM trips GROUP BY route_id
== group_by_null_group
SELECT destination, count(fare) FROM trips WHERE route_id = 3 GROUP BY destination
== having_count
SELECT route_id, count(*) AS n FROM trips GROUP BY route_id HAVING count(*) > 670
== having_alias
SELECT route_id, count(*) AS n FROM trips GROUP BY route_id HAVING n < 640
== having_agg_not_selected
SELECT destination FROM trips GROUP BY destination HAVING avg(fare) > 30.8
== having_without_group
SELECT count(*) FROM trips HAVING count(*) > 10
== agg_expression_args
SELECT sum(fare * route_id), max(trip_id - route_id), avg(CASE WHEN fare > 30 THEN 1 ELSE 0 END) FROM trips
== agg_of_agg_arith
SELECT destination, max(fare) - min(fare) AS spread, sum(fare) / count(fare) AS mean FROM trips GROUP BY destination
== filter_clause
SELECT destination, count(*) FILTER (WHERE fare > 30) AS dear, sum(fare) FILTER (WHERE route_id < 10) AS s FROM trips GROUP BY destination
== filter_clause_global
SELECT count(*) FILTER (WHERE destination IS NULL), avg(fare) FILTER (WHERE destination = 'Zoo') FROM trips
== filter_count_distinct
SELECT count(DISTINCT route_id) FILTER (WHERE destination = 'Zoo') FROM trips
== sum_distinct
SELECT sum(DISTINCT route_id), avg(DISTINCT route_id) FROM trips
== stddev_variance
SELECT stddev(fare), variance(fare), stddev_samp(fare), var_samp(fare), stddev_pop(fare), var_pop(fare) FROM trips
== stddev_grouped
SELECT destination, stddev(fare), var_pop(fare) FROM trips GROUP BY destination
== stddev_single_row
-- why: Spark's sample stddev of one row is NULL (legacy statisticalAggregate off), as DuckDB's
SELECT stddev(fare) FROM trips WHERE trip_id = 5
== first_last_ordered_input
-- why: first/last depend on input order; over one value per group they are exact
SELECT route_id, first(route_id), last(route_id) FROM trips GROUP BY route_id
== first_ignore_nulls
SELECT first(fare, true) IS NOT NULL AS a, last(destination, true) IS NOT NULL AS b FROM trips
-- expect
[true, true]
== collect_list_sorted
SELECT route_id, sort_array(collect_list(destination)) AS l FROM trips WHERE trip_id < 300 GROUP BY route_id
-- duckdb
SELECT route_id, list_sort(list(destination) FILTER (WHERE destination IS NOT NULL)) AS l FROM trips WHERE trip_id < 300 GROUP BY route_id
== collect_set_sorted
SELECT route_id, sort_array(collect_set(destination)) AS l FROM trips WHERE trip_id < 300 GROUP BY route_id
-- duckdb
SELECT route_id, list_sort(list(DISTINCT destination) FILTER (WHERE destination IS NOT NULL)) AS l FROM trips WHERE trip_id < 300 GROUP BY route_id
== size_collect_set
SELECT size(collect_set(route_id)) FROM trips
-- duckdb
SELECT len(list(DISTINCT route_id)) FROM trips
== approx_count_distinct
-- why: Spark's HyperLogLog++ estimates (checked with Spark 4.1 on these files): 31 for 30 ints, 19522 for 20000
SELECT approx_count_distinct(route_id), approx_count_distinct(destination), approx_count_distinct(trip_id), approx_count_distinct(fare), approx_count_distinct(tstamp), approx_count_distinct(trip_id % 300), approx_count_distinct(trip_id % 1000) FROM trips
-- expect
[31, 8, 19522, 5536, 19935, 296, 1026]
== approx_count_distinct_grouped
-- why: Spark 4.1's answers on these files
SELECT destination, approx_count_distinct(route_id), approx_count_distinct(trip_id % 500) FROM trips GROUP BY destination
-- expect
[null, 31, 351]
["Airport", 31, 481]
["Harbor", 31, 481]
["Old Town", 31, 474]
["Stadium", 31, 484]
["Station", 31, 476]
["University", 31, 481]
["Zoo", 31, 484]
["harbor east", 31, 484]
== approx_count_distinct_bigints
-- why: Spark 4.1 gives 30 and 1026 (bigint values hash as 8 bytes)
SELECT approx_count_distinct(id % 30), approx_count_distinct(id % 1000) FROM range(20000)
-- expect
[30, 1026]
== xxhash64_matches_spark
-- why: Spark 4.1's xxhash64 values (the hash behind approx_count_distinct)
SELECT xxhash64(1) a, xxhash64(1L) b, xxhash64('abc') c, xxhash64('a string longer than thirty-two bytes!!') d, xxhash64(1.5D) e, xxhash64(DATE '2024-01-01') f, xxhash64(true) g, xxhash64(1, 'x', NULL) h, xxhash64(CAST(12.34 AS DECIMAL(30,2))) i, xxhash64(CAST(-5 AS DECIMAL(25,0))) j, xxhash64(-0.0D) k, xxhash64(2.5F) l
-- expect
[-6698625589789238999, -7001672635703045582, 1423657621850124518, 4962924184544930924, 7738255526519901366, 3242891694566951137, -6698625589789238999, 8510603489595372987, 804797035677707363, -459432569088617147, -5252525462095825812, -8224967761598873520]
== percentile_approx_spark_ranks
-- why: Spark 4.1's answers on these files
SELECT percentile_approx(route_id, 0.5), percentile_approx(fare, 0.25), percentile_approx(trip_id, 0.9) FROM trips
-- expect
[16, 16.16, 17998]
== percentile_approx_median
-- why: percentile_approx returns an actual input value (the lowest whose rank reaches the percentile)
SELECT percentile_approx(route_id, 0.5) FROM trips
-- duckdb
SELECT quantile_disc(route_id, 0.5) FROM trips
== percentile_approx_grouped
SELECT destination, percentile_approx(trip_id, 0.9) FROM trips WHERE trip_id <= 1000 GROUP BY destination
-- duckdb
SELECT destination, quantile_disc(trip_id, 0.9) FROM trips WHERE trip_id <= 1000 GROUP BY destination
== bool_and_or
SELECT bool_and(fare > 1), bool_or(fare > 59.9), every(route_id > 0) FROM trips
-- duckdb
SELECT bool_and(fare > 1), bool_or(fare > 59.9), bool_and(route_id > 0) FROM trips
== count_if
SELECT count_if(fare > 30), count_if(destination IS NULL) FROM trips
== bool_aggs_grouped
SELECT destination, bool_and(fare > 2), bool_or(fare > 59.9), some(route_id = 30), count_if(route_id < 3) FROM trips GROUP BY destination
-- duckdb
SELECT destination, bool_and(fare > 2), bool_or(fare > 59.9), bool_or(route_id = 30), count_if(route_id < 3) FROM trips GROUP BY destination
== max_by_min_by
SELECT max_by(trip_id, fare), min_by(trip_id, fare) FROM trips WHERE trip_id < 2000
-- duckdb
SELECT arg_max(trip_id, fare), arg_min(trip_id, fare) FROM trips WHERE trip_id < 2000
== grouping_sets
SELECT destination, route_id, count(*) FROM trips WHERE route_id < 4 GROUP BY GROUPING SETS ((destination), (route_id), ())
== rollup
SELECT destination, route_id, count(*), sum(fare) FROM trips WHERE route_id < 4 GROUP BY ROLLUP (destination, route_id)
== rollup_spark_form
SELECT destination, route_id, count(*) FROM trips WHERE route_id < 4 GROUP BY destination, route_id WITH ROLLUP
-- duckdb
SELECT destination, route_id, count(*) FROM trips WHERE route_id < 4 GROUP BY ROLLUP (destination, route_id)
== cube
SELECT destination, route_id % 2 AS odd, count(*) FROM trips WHERE route_id < 6 GROUP BY CUBE (destination, route_id % 2)
== cube_with_grouping
SELECT destination, route_id, grouping(destination) AS gd, grouping(route_id) AS gr, count(*) FROM trips WHERE route_id < 3 GROUP BY CUBE (destination, route_id)
== grouping_id
SELECT destination, route_id, grouping_id() AS g, count(*) FROM trips WHERE route_id < 3 GROUP BY CUBE (destination, route_id)
-- duckdb
SELECT destination, route_id, grouping_id(destination, route_id) AS g, count(*) FROM trips WHERE route_id < 3 GROUP BY CUBE (destination, route_id)
== rollup_order_by
SELECT destination, count(*) AS n FROM trips GROUP BY ROLLUP (destination) ORDER BY destination NULLS LAST, n
== count_distinct_multi_grouped
SELECT route_id % 3 AS k, count(DISTINCT destination, fare > 30) FROM trips GROUP BY 1
-- duckdb
SELECT route_id % 3 AS k, count(DISTINCT (destination, fare > 30)) FILTER (WHERE destination IS NOT NULL AND fare IS NOT NULL) FROM trips GROUP BY 1
== distinct_and_plain_aggs
SELECT destination, count(DISTINCT route_id), count(*), max(fare) FROM trips GROUP BY destination
== group_by_timestamp_parts
SELECT year(tstamp), month(tstamp), count(*) FROM trips GROUP BY 1, 2
== group_by_date
SELECT to_date(tstamp) AS d, count(*) FROM trips GROUP BY d ORDER BY d DESC LIMIT 7
-- duckdb
SELECT CAST(tstamp AS DATE) AS d, count(*) FROM trips GROUP BY d ORDER BY d DESC LIMIT 7
== group_by_many_keys_high_card
SELECT trip_id % 997 AS k, route_id, count(*), sum(fare) FROM trips GROUP BY 1, 2 HAVING count(*) > 1
== agg_in_order_by
SELECT destination FROM trips GROUP BY destination ORDER BY count(*) DESC, destination
== nested_agg_subquery
SELECT max(n), min(n), avg(n) FROM (SELECT route_id, count(*) AS n FROM trips GROUP BY route_id)
== sum_overflow_long
SELECT sum(trip_id * 1000000000) FROM trips WHERE trip_id < 100
== avg_decimal
-- why: Spark's avg of decimal(10,2) is decimal(14,6), so it is rounded to 6 places
SELECT avg(CAST(fare AS DECIMAL(10, 2))) FROM trips WHERE route_id = 7
-- duckdb
SELECT round(avg(CAST(fare AS DECIMAL(10, 2))), 6) FROM trips WHERE route_id = 7
== sum_decimal
SELECT sum(CAST(fare AS DECIMAL(10, 2))) FROM trips
== mean_alias
SELECT mean(fare) FROM trips
-- duckdb
SELECT avg(fare) FROM trips
== any_value
SELECT route_id, any_value(route_id * 2) FROM trips GROUP BY route_id
== median
SELECT median(route_id) FROM trips
== median_percentile_grouped
SELECT destination, median(fare), percentile(route_id, 0.25), percentile(fare, 1.0) FROM trips GROUP BY destination
-- duckdb
SELECT destination, quantile_cont(fare, 0.5), quantile_cont(route_id, 0.25), quantile_cont(fare, 1.0) FROM trips GROUP BY destination
== max_by_min_by_grouped_strings
SELECT route_id, max_by(destination, trip_id), min_by(tstamp, trip_id) FROM trips WHERE route_id < 10 GROUP BY route_id
-- duckdb
SELECT route_id, arg_max(destination, trip_id), arg_min(tstamp, trip_id) FROM trips WHERE route_id < 10 GROUP BY route_id
== max_by_ties_and_nulls
-- why: Spark 4.1's answers: a NULL ordering value is skipped, the value may be NULL, and of equal orderings the last row read wins
SELECT max_by(x, y), min_by(x, y) FROM VALUES (1, 5), (2, 5), (3, 5), (4, 1), (5, 1), (6, 9), (7, 9) AS t(x, y)
UNION ALL SELECT max_by(x, y), min_by(x, y) FROM VALUES (1, NULL), (2, 5), (3, 5), (NULL, 9) AS t(x, y)
-- expect
[7, 5]
[null, 3]
== median_percentile_values
-- why: Spark 4.1's answers: exact percentiles interpolated between neighbours, as doubles; NULL on no rows
SELECT median(x), percentile(x, 0.25), percentile(x, 0.9), max_by(y, x), min_by(y, x) FROM VALUES (1, 'a'), (2, 'b'), (2, 'c'), (NULL, 'd'), (10, 'e') AS t(x, y)
UNION ALL SELECT median(x), percentile(x, 0.5), NULL, NULL, NULL FROM VALUES (1) AS t(x) WHERE x > 5
-- expect
[2.0, 1.75, 7.6000000000000005, "e", "a"]
[null, null, null, null, null]
== percentile_approx_spark_summary
-- why: Spark 4.1's answers (one partition): its summary at accuracy 10000 is exact up to 5000 values and a few ranks off beyond, over several buffers of 50000
SELECT percentile_approx(id, 0.5), percentile_approx(id, 0.25), percentile_approx(id, 0.9), percentile_approx(id, 0.1), percentile_approx(id, 0.999) FROM range(1, 20001)
UNION ALL SELECT percentile_approx(id, 0.5), percentile_approx(id, 0.25), percentile_approx(id, 0.9), percentile_approx(id, 0.1), percentile_approx(id, 0.999) FROM range(1, 5001)
UNION ALL SELECT percentile_approx(x, 0.5), percentile_approx(x, 0.3), percentile_approx(x, 0.9), percentile_approx(x, 0.0), percentile_approx(x, 1.0) FROM (SELECT (id * 7919) % 120000 AS x FROM range(0, 120000))
-- expect
[9999, 4999, 17998, 1999, 19978]
[2500, 1250, 4500, 500, 4995]
[59993, 35996, 107988, 0, 119999]
== percentile_array
SELECT destination, percentile(fare, array(0.1, 0.5, 0.9)), percentile(route_id, array(0.25)) FROM trips GROUP BY destination
-- duckdb
SELECT destination, quantile_cont(fare, [0.1, 0.5, 0.9]), quantile_cont(route_id, [0.25]) FROM trips GROUP BY destination
== percentile_approx_array
-- why: the exact ceil(p * n)-th value below 5000 values per group, as Spark's summary answers
SELECT route_id, percentile_approx(trip_id, array(0.1, 0.5, 0.99)) FROM trips WHERE route_id < 6 GROUP BY route_id
-- duckdb
SELECT route_id, quantile_disc(trip_id, [0.1, 0.5, 0.99]) FROM trips WHERE route_id < 6 GROUP BY route_id
== percentile_array_values
-- why: Spark 4.1's answer
SELECT percentile(x, array(0.1, 0.9)) FROM VALUES (1), (2), (2), (NULL), (10) AS t(x)
-- expect
[[1.3, 7.6000000000000005]]
== percentile_array_out_of_range
SELECT percentile(fare, array(0.1, 1.5)) FROM trips
-- error: [DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE]
-- error: column 36
== percentile_out_of_range
SELECT percentile(fare, 1.5) FROM trips
-- error: [DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE]
== max_by_one_argument
SELECT max_by(fare) FROM trips
-- error: [WRONG_NUM_ARGS] function "max_by" takes 2 arguments, not 1
== max_by_nested_ordering
SELECT max_by(fare, collect_list(fare)) FROM trips
-- error: NESTED_AGGREGATE_FUNCTION
== median_of_string
SELECT median(destination) FROM trips
-- error: [DATATYPE_MISMATCH] function "percentile" cannot take an argument of type "string"
