# Errors name the problem and where it is: malformed SQL, unknown names, types, runtime errors.
== err_syntax_missing_expr
SELECT trip_id FROM trips WHERE
-- error: [PARSE_SYNTAX_ERROR]
-- error: (line 1, column 32)
== err_syntax_bad_token
SELECT trip_id, FROM trips
-- error: [PARSE_SYNTAX_ERROR]
-- error: 'FROM'
-- error: (line 1, column 17)
== err_syntax_second_line
SELECT trip_id
FROM trips
WHERE trip_id = = 3
-- error: [PARSE_SYNTAX_ERROR]
-- error: (line 3, column 17)
== err_unclosed_paren
SELECT count(* FROM trips
-- error: [PARSE_SYNTAX_ERROR]
-- error: (line 1
== err_unclosed_string
SELECT 'abc FROM trips
-- error: (line 1, column 8)
== err_misspelled_keyword
SELEC trip_id FROM trips
-- error: [PARSE_SYNTAX_ERROR]
-- error: (line 1, column 1)
== err_unknown_column
SELECT trip_idd FROM trips
-- error: [UNRESOLVED_COLUMN.WITH_SUGGESTION]
-- error: `trip_idd`
-- error: `trip_id`
-- error: (line 1, column 8)
== err_unknown_qualified_column
SELECT t.nope FROM trips t
-- error: [UNRESOLVED_COLUMN
-- error: `t`.`nope`
-- error: (line 1, column 8)
== err_unknown_column_in_where
SELECT trip_id FROM trips
WHERE fair > 3
-- error: `fair`
-- error: (line 2, column 7)
== err_unknown_column_in_group_by
SELECT count(*) FROM trips GROUP BY destinaton
-- error: `destinaton`
-- error: (line 1, column 37)
== err_unknown_table
SELECT * FROM trip
-- error: [TABLE_OR_VIEW_NOT_FOUND]
-- error: `trip`
-- error: (line 1, column 15)
== err_unknown_table_in_join
SELECT * FROM trips t JOIN rutes r ON t.route_id = r.route_id
-- error: [TABLE_OR_VIEW_NOT_FOUND]
-- error: `rutes`
-- error: (line 1, column 28)
== err_unknown_database
SELECT * FROM nodb.trips
-- error: [TABLE_OR_VIEW_NOT_FOUND]
-- error: `nodb`.`trips`
== err_missing_delta_path
SELECT * FROM delta.`/nonexistent/table`
-- error: /nonexistent/table
-- error: (line 1, column 15)
== err_delta_version_too_new
SELECT count(*) FROM delta.`{W}/trips_delta` VERSION AS OF 99
-- error: [DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version 99. Available versions: [0, 2].
-- error: in the delta source at line 1, column 22
== err_unknown_function
SELECT nosuch(trip_id) FROM trips
-- error: [UNRESOLVED_ROUTINE]
-- error: nosuch
-- error: (line 1, column 8)
== err_ambiguous_column
SELECT route_id FROM trips t JOIN routes r ON t.route_id = r.route_id
-- error: [AMBIGUOUS_REFERENCE]
-- error: `route_id`
-- error: (line 1, column 8)
== err_not_in_group_by
SELECT destination, trip_id, count(*) FROM trips GROUP BY destination
-- error: [MISSING_AGGREGATION]
-- error: "trip_id"
-- error: (line 1, column 21)
== err_aggregate_in_where
SELECT trip_id FROM trips WHERE max(fare) > 3
-- error: [WHERE_CLAUSE_CANNOT_CONTAIN_AGGREGATE]
== err_filter_not_boolean
SELECT trip_id FROM trips WHERE destination
-- error: [DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN]
== err_type_string_plus_int
-- why: ANSI mode: 'Harbor' cannot be cast to a number
SELECT destination + 1 FROM trips WHERE destination = 'Harbor'
-- error: [CAST_INVALID_INPUT]
== err_type_compare_date_bool
SELECT trip_id FROM trips WHERE tstamp = true
-- error: [DATATYPE_MISMATCH
== err_type_sum_string
-- why: Spark casts the strings to double for sum, and 'Airport' does not cast (Spark 4.1)
SELECT sum(destination) FROM trips
-- error: [CAST_INVALID_INPUT]
== err_type_function_arg
SELECT sqrt(DATE '2024-01-01')
-- error: [DATATYPE_MISMATCH
== err_divide_by_zero
SELECT trip_id / (route_id - route_id) FROM trips
-- error: [DIVIDE_BY_ZERO]
== err_divide_by_zero_literal
SELECT 1 / 0
-- error: [DIVIDE_BY_ZERO]
== err_divide_by_zero_position
SELECT trip_id,
       fare / 0 AS x FROM trips
-- error: [DIVIDE_BY_ZERO]
-- error: (line 2, column 8)
== err_mod_zero
SELECT pmod(trip_id, 0) FROM trips
-- error: [DIVIDE_BY_ZERO]
== err_cast_invalid
SELECT CAST(destination AS INT) FROM trips
-- error: [CAST_INVALID_INPUT]
== err_cast_overflow
SELECT CAST(3000000000 AS INT)
-- error: [CAST_OVERFLOW]
== err_order_by_position
SELECT trip_id FROM trips ORDER BY 3
-- error: [ORDER_BY_POS_OUT_OF_RANGE]
== err_group_by_position
SELECT trip_id FROM trips GROUP BY 2
-- error: [GROUP_BY_POS_OUT_OF_RANGE]
== err_union_column_count
SELECT trip_id FROM trips UNION SELECT trip_id, route_id FROM trips
-- error: [NUM_COLUMNS_MISMATCH]
== err_scalar_subquery_rows
SELECT (SELECT trip_id FROM trips) AS x
-- error: [SCALAR_SUBQUERY_TOO_MANY_ROWS]
== err_negative_limit
SELECT trip_id FROM trips LIMIT -1
-- error: [INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE]
== err_window_in_where
SELECT trip_id FROM trips WHERE row_number() OVER (ORDER BY trip_id) = 1
-- error: window
== err_star_in_sum
SELECT sum(*) FROM trips
-- error: [INVALID_USAGE_OF_STAR_OR_REGEX]
== err_wrong_arg_count
SELECT upper(destination, 1) FROM trips
-- error: [WRONG_NUM_ARGS]
== err_statement_position_second
SELECT 1; SELECT nope FROM trips
-- error: `nope`
-- error: (line 1, column 18)
== err_csv_missing_file
SELECT * FROM csv.`{W}/no_such.csv`
-- error: no_such.csv
-- error: (line 1, column 15)
== err_bad_timestamp_literal
SELECT TIMESTAMP '2024-13-45 99:00:00'
-- error: 2024-13-45
== err_bad_date_literal
SELECT DATE 'yesterday'
-- error: yesterday
