# Projections, expressions, WHERE with three-valued logic, literals.
== star_limit
SELECT * FROM trips ORDER BY trip_id LIMIT 5
== qualified_star
SELECT t.* FROM trips t WHERE t.trip_id <= 3 ORDER BY t.trip_id
== star_and_expr
SELECT *, trip_id * 2 AS d FROM trips WHERE trip_id < 4 ORDER BY trip_id
== alias_expr
SELECT trip_id AS id, route_id + 1 AS r1, fare * 2 AS f2 FROM trips WHERE trip_id BETWEEN 10 AND 14 ORDER BY id
== backtick_ident
SELECT `trip_id`, `destination` AS `dest name` FROM trips WHERE trip_id = 7
== case_insensitive_names
SELECT TRIP_ID, Destination FROM TRIPS WHERE Trip_Id = 9
== arith_precedence
SELECT trip_id + route_id * 2 - 1 AS a, (trip_id + route_id) * 2 AS b FROM trips WHERE trip_id < 5 ORDER BY trip_id
== int_division_double
-- why: `/` on integers gives a double in Spark (DuckDB agrees since 0.8)
SELECT trip_id / 4 AS q FROM trips WHERE trip_id IN (1, 2, 7) ORDER BY trip_id
== div_operator
-- why: Spark's `div` is integral division; DuckDB spells it //
SELECT trip_id div 4 AS q FROM trips WHERE trip_id IN (1, 2, 7, 9) ORDER BY trip_id
-- duckdb
SELECT trip_id // 4 AS q FROM trips WHERE trip_id IN (1, 2, 7, 9) ORDER BY trip_id
== modulo
SELECT trip_id % 7 AS m, count(*) FROM trips GROUP BY 1 ORDER BY 1
== negative_modulo
SELECT -7 % 3 AS a, 7 % -3 AS b, -7.5 % 2 AS c
== unary_minus
SELECT -trip_id AS n, -fare AS f FROM trips WHERE trip_id < 3 ORDER BY trip_id
== where_eq_string
SELECT count(*) FROM trips WHERE destination = 'Airport'
== where_neq_null_excluded
SELECT count(*) FROM trips WHERE destination <> 'Airport'
== where_not_eq
SELECT count(*) FROM trips WHERE NOT destination = 'Airport'
== where_is_null
SELECT count(*) FROM trips WHERE destination IS NULL
== where_is_not_null
SELECT count(*) FROM trips WHERE fare IS NOT NULL AND destination IS NOT NULL
== where_or_null
SELECT count(*) FROM trips WHERE destination = 'Zoo' OR fare > 50
== where_and_or_paren
SELECT count(*) FROM trips WHERE (destination = 'Zoo' OR destination = 'Harbor') AND route_id < 10
== where_not_or
SELECT count(*) FROM trips WHERE NOT (destination = 'Zoo' OR fare > 30)
== three_valued_truth_table
SELECT a, b, a AND b AS x, a OR b AS o, NOT a AS n FROM VALUES (true, true), (true, false), (true, NULL), (false, NULL), (NULL, NULL), (false, false) AS t(a, b)
-- duckdb
SELECT a, b, a AND b AS x, a OR b AS o, NOT a AS n FROM (VALUES (true, true), (true, false), (true, NULL), (false, NULL), (NULL::BOOLEAN, NULL::BOOLEAN), (false, false)) AS t(a, b)
== null_comparison_is_null
SELECT count(*) FROM trips WHERE fare = NULL
== is_distinct_from
SELECT count(*) FROM trips WHERE destination IS DISTINCT FROM 'Zoo'
== is_not_distinct_from
SELECT count(*) FROM trips WHERE destination IS NOT DISTINCT FROM NULL
== null_safe_eq
-- why: <=> is Spark's null-safe equality
SELECT count(*) FROM trips WHERE destination <=> NULL
-- duckdb
SELECT count(*) FROM trips WHERE destination IS NOT DISTINCT FROM NULL
== in_list
SELECT count(*) FROM trips WHERE route_id IN (1, 3, 5, 7)
== not_in_list
SELECT count(*) FROM trips WHERE destination NOT IN ('Zoo', 'Airport')
== not_in_list_with_null
SELECT count(*) FROM trips WHERE destination NOT IN ('Zoo', NULL)
== in_list_with_null_true
SELECT count(*) FROM trips WHERE destination IN ('Zoo', NULL)
== between
SELECT count(*) FROM trips WHERE fare BETWEEN 10 AND 20
== not_between
SELECT count(*) FROM trips WHERE fare NOT BETWEEN 10 AND 20
== between_timestamps
SELECT count(*) FROM trips WHERE tstamp BETWEEN TIMESTAMP '2024-02-01 00:00:00' AND TIMESTAMP '2024-02-15 12:00:00'
== compare_date_literal
SELECT count(*) FROM trips WHERE tstamp >= DATE '2024-03-01'
== compare_string_to_timestamp
SELECT count(*) FROM trips WHERE tstamp < '2024-01-10'
== case_searched
SELECT CASE WHEN fare IS NULL THEN 'none' WHEN fare < 10 THEN 'cheap' WHEN fare < 30 THEN 'mid' ELSE 'dear' END AS band, count(*) FROM trips GROUP BY 1
== case_simple
SELECT CASE route_id WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS r, count(*) FROM trips GROUP BY 1
== case_no_else_null
SELECT CASE WHEN route_id = 1 THEN 'one' END AS r, count(*) FROM trips GROUP BY 1
== case_in_where
SELECT count(*) FROM trips WHERE CASE WHEN destination = 'Zoo' THEN fare > 20 ELSE route_id = 3 END
== coalesce
SELECT coalesce(destination, 'unknown') AS d, count(*) FROM trips GROUP BY 1
== nvl_ifnull
SELECT nvl(fare, 0) AS a, ifnull(destination, '-') AS b FROM trips WHERE trip_id < 50 ORDER BY trip_id
-- duckdb
SELECT coalesce(fare, 0) AS a, ifnull(destination, '-') AS b FROM trips WHERE trip_id < 50 ORDER BY trip_id
== nullif
SELECT nullif(route_id, 3) AS r, count(*) FROM trips GROUP BY 1
== literals
SELECT 1 AS i, 2.5 AS d, 'x' AS s, true AS b, NULL AS n, DATE '2024-02-29' AS dt, TIMESTAMP '2024-02-29 13:14:15' AS ts
== literal_decimal_arith
SELECT 1.10 + 2.205 AS a, 3 * 1.5 AS b, 10.0 / 4 AS c
== literal_bigint
SELECT 9223372036854775807 AS m, -2147483648 AS n, 3000000000 AS l
== literal_double_exp
SELECT 1.5e3 AS a, 2E-2 AS b
== literal_typed_suffix
-- why: Spark's 10L / 2S / 1.5D suffixes
SELECT 10L + 1 AS a, 2S * 3 AS b, 1.5D AS c, 7Y AS d
-- expect
[11, 6, 1.5, 7]
== literal_escaped_quote
-- why: a doubled quote is a quote in Spark 4 (checked with Spark 4.1), and so is a backslash escape
SELECT 'it''s' AS a, length('it''s') AS n, 'it\'s' AS b
-- expect
["it's", 4, "it's"]
== cast_int_to_string
SELECT CAST(trip_id AS STRING) AS s FROM trips WHERE trip_id < 4 ORDER BY trip_id
-- duckdb
SELECT CAST(trip_id AS VARCHAR) AS s FROM trips WHERE trip_id < 4 ORDER BY trip_id
== cast_double_to_int_truncates
-- why: Spark truncates toward zero when casting a double to an integer, DuckDB rounds
SELECT CAST(2.7 AS INT) AS a, CAST(-2.7 AS INT) AS b, CAST(2.5D AS BIGINT) AS c
-- expect
[2, -2, 2]
== cast_fare_to_int
-- why: Spark truncates toward zero, DuckDB rounds
SELECT CAST(fare AS INT) AS f, count(*) FROM trips WHERE fare < 5 GROUP BY 1 ORDER BY 1
-- duckdb
SELECT trunc(fare)::INT AS f, count(*) FROM trips WHERE fare < 5 GROUP BY 1 ORDER BY 1
== cast_colon_colon
SELECT route_id::string AS r, '42'::int + 1 AS n FROM trips WHERE trip_id = 1
-- duckdb
SELECT route_id::varchar AS r, '42'::int + 1 AS n FROM trips WHERE trip_id = 1
== cast_string_to_number
SELECT CAST('12' AS INT) AS a, CAST(' 7 ' AS INT) AS b, CAST('1.5' AS DOUBLE) AS c
-- expect
[12, 7, 1.5]
== cast_bad_string_errors
-- why: ANSI mode (Spark 4 default): an invalid string cast fails
SELECT CAST('abc' AS INT)
-- error: CAST_INVALID_INPUT
== try_cast_bad_string
SELECT try_cast('abc' AS INT) AS a, try_cast('5' AS INT) AS b
== cast_timestamp_to_date
SELECT CAST(tstamp AS DATE) AS d, count(*) FROM trips GROUP BY 1 ORDER BY 1 LIMIT 5
== cast_date_to_string
SELECT CAST(DATE '2024-01-05' AS STRING) AS s, CAST(TIMESTAMP '2024-01-05 10:00:00' AS STRING) AS t
-- expect
["2024-01-05", "2024-01-05 10:00:00"]
== cast_bool
SELECT CAST(1 AS BOOLEAN) AS a, CAST(0 AS BOOLEAN) AS b, CAST('true' AS BOOLEAN) AS c
== cast_decimal
SELECT CAST(fare AS DECIMAL(10, 1)) AS d FROM trips WHERE trip_id IN (1, 2, 3) ORDER BY trip_id
== select_no_from
SELECT 1 + 1 AS two, upper('a') AS u
== values_table
SELECT a, b FROM VALUES (1, 'x'), (2, 'y'), (3, NULL) AS t(a, b) ORDER BY a
-- duckdb
SELECT a, b FROM (VALUES (1, 'x'), (2, 'y'), (3, NULL)) AS t(a, b) ORDER BY a
== range_table
SELECT count(*), sum(id) FROM range(1000)
-- duckdb
SELECT count(*), sum(range) FROM range(1000)
== range_start_end_step
SELECT id FROM range(5, 20, 5) ORDER BY id
-- duckdb
SELECT range AS id FROM range(5, 20, 5) ORDER BY id
== where_on_alias_subquery
SELECT * FROM (SELECT trip_id, fare * 2 AS f2 FROM trips) WHERE f2 > 119 ORDER BY trip_id
== expression_in_where_both_sides
SELECT count(*) FROM trips WHERE trip_id % 10 = route_id % 10
== bool_column_projection
SELECT trip_id, fare > 30 AS dear, destination IS NULL AS nodest FROM trips WHERE trip_id < 6 ORDER BY trip_id
== greatest_least
SELECT greatest(route_id, 10) AS g, least(route_id, 10, trip_id) AS l FROM trips WHERE trip_id < 6 ORDER BY trip_id
== greatest_with_null
-- why: Spark's greatest/least skip nulls, as DuckDB's do
SELECT greatest(fare, 20) AS g, least(fare, 20) AS l FROM trips WHERE trip_id < 40 ORDER BY trip_id
