# LIKE / ILIKE / RLIKE and string functions.
== like_prefix
SELECT count(*) FROM trips WHERE destination LIKE 'S%'
== like_suffix
SELECT count(*) FROM trips WHERE destination LIKE '%n'
== like_contains
SELECT DISTINCT destination FROM trips WHERE destination LIKE '%ar%'
== like_underscore
SELECT DISTINCT destination FROM trips WHERE destination LIKE 'Z_o'
== not_like
SELECT count(*) FROM trips WHERE destination NOT LIKE '%o%'
== like_case_sensitive
SELECT count(*) FROM trips WHERE destination LIKE 'harbor%'
== ilike
SELECT count(*) FROM trips WHERE destination ILIKE 'harbor%'
== not_ilike
SELECT count(*) FROM trips WHERE destination NOT ILIKE '%A%'
== like_escape_default
SELECT 'a_b' LIKE 'a\\_b' AS a, 'axb' LIKE 'a\\_b' AS b, '50%' LIKE '50\\%' AS c
-- why: Spark's default LIKE escape is the backslash
-- expect
[true, false, true]
== rlike
SELECT DISTINCT destination FROM trips WHERE destination RLIKE '^[A-S][a-z]+$'
-- duckdb
SELECT DISTINCT destination FROM trips WHERE regexp_full_match(destination, '^[A-S][a-z]+$')
== regexp_partial
SELECT count(*) FROM trips WHERE destination RLIKE 'or'
-- duckdb
SELECT count(*) FROM trips WHERE regexp_matches(destination, 'or')
== upper_lower
SELECT DISTINCT upper(destination), lower(destination) FROM trips
== length
SELECT destination, length(destination) FROM trips GROUP BY destination
== substring_forms
SELECT DISTINCT destination, substring(destination, 2, 3), substr(destination, 3), substring(destination, -3) FROM trips
== substring_zero_start
-- why: Spark treats position 0 as 1
SELECT substring('Harbor', 0, 3) AS a, substr('Harbor', 1, 0) AS b
-- expect
["Har", ""]
== concat
SELECT concat(destination, '-', route_id) AS c FROM trips WHERE trip_id < 20 ORDER BY trip_id
-- duckdb
SELECT CASE WHEN destination IS NULL THEN NULL ELSE concat(destination, '-', route_id) END AS c FROM trips WHERE trip_id < 20 ORDER BY trip_id
== concat_null_is_null
-- why: Spark's concat returns NULL when any argument is NULL (DuckDB skips NULLs)
SELECT concat('a', NULL, 'b') AS c
-- expect
[null]
== concat_pipes
SELECT destination || '/' || route_id AS c FROM trips WHERE trip_id < 10 ORDER BY trip_id
== concat_ws
SELECT concat_ws('|', destination, CAST(route_id AS STRING), 'x') AS c FROM trips WHERE trip_id < 20 ORDER BY trip_id
-- duckdb
SELECT concat_ws('|', destination, CAST(route_id AS VARCHAR), 'x') AS c FROM trips WHERE trip_id < 20 ORDER BY trip_id
== trim_family
SELECT trim('  a b  ') AS t, ltrim('  a ') AS l, rtrim(' a  ') AS r, length(trim('   ')) AS e
== trim_chars
SELECT trim(BOTH 'x' FROM 'xxaxx') AS a, trim(LEADING 'x' FROM 'xxaxx') AS b, trim(TRAILING 'x' FROM 'xxaxx') AS c
-- expect
["a", "axx", "xxa"]
== replace
SELECT DISTINCT replace(destination, 'a', 'A') FROM trips
== replace_two_args
-- why: Spark's replace with two arguments deletes the search string
SELECT replace('banana', 'an') AS r
-- expect
["ba"]
== split
SELECT split('a,b,,c', ',') AS s
-- expect
[["a", "b", "", "c"]]
== split_regex
SELECT split('a1b22c', '[0-9]+') AS s
-- expect
[["a", "b", "c"]]
== regexp_extract
SELECT DISTINCT destination, regexp_extract(destination, '([A-Za-z]+) ?([A-Za-z]*)', 1) AS w FROM trips WHERE destination IS NOT NULL
-- duckdb
SELECT DISTINCT destination, regexp_extract(destination, '([A-Za-z]+) ?([A-Za-z]*)', 1) AS w FROM trips WHERE destination IS NOT NULL
== regexp_extract_no_match
SELECT regexp_extract('abc', '(x+)', 1) AS a, regexp_extract('abc', 'b', 0) AS b
== regexp_replace
SELECT DISTINCT regexp_replace(destination, '[aeiou]', '_') AS r FROM trips
-- duckdb
SELECT DISTINCT regexp_replace(destination, '[aeiou]', '_', 'g') AS r FROM trips
== lpad_rpad
SELECT lpad(CAST(route_id AS STRING), 4, '0') AS l, rpad(destination, 9, '.') AS r FROM trips WHERE trip_id < 15 ORDER BY trip_id
-- duckdb
SELECT lpad(CAST(route_id AS VARCHAR), 4, '0') AS l, rpad(destination, 9, '.') AS r FROM trips WHERE trip_id < 15 ORDER BY trip_id
== lpad_truncates
SELECT lpad('abcdef', 3, '0') AS a, rpad('abcdef', 2, 'x') AS b
== format_string
SELECT format_string('%s has %d trips', destination, count(*)) AS s FROM trips GROUP BY destination
-- duckdb
SELECT printf('%s has %d trips', coalesce(destination, 'null'), count(*)) AS s FROM trips GROUP BY destination
== format_string_float
SELECT format_string('%.2f|%5d|%-4s|', 3.14159, 42, 'ab') AS s
-- duckdb
SELECT printf('%.2f|%5d|%-4s|', 3.14159, 42, 'ab') AS s
== string_compare_order
SELECT min(destination), max(destination) FROM trips WHERE destination > 'Harbor'
== group_by_substring
SELECT substring(destination, 1, 1) AS c, count(*) FROM trips GROUP BY 1
== upper_in_where
SELECT count(*) FROM trips WHERE upper(destination) = 'HARBOR'
== initcap_reverse_repeat
-- why: DuckDB has no initcap; Spark 4.1's answer
SELECT initcap('hello wORLD') AS a, reverse('abc') AS b, repeat('ab', 3) AS c
-- expect
["Hello World", "cba", "ababab"]
== instr_locate
SELECT instr('harbor', 'r') AS a, locate('r', 'harbor') AS b, locate('r', 'harbor', 4) AS c
-- expect
[3, 3, 6]
== left_right
SELECT left('harbor', 3) AS a, right('harbor', 2) AS b
== ascii_chr
SELECT ascii('A') AS a, chr(66) AS b
== string_to_number_in_arith
-- why: Spark 4 reads a string beside an integer as a bigint, beside a decimal or double as a double (checked with Spark 4.1)
SELECT '3' + 1 AS a, '2.5' * 2.0 AS b, '2.5' * 2D AS c
-- expect
[4, 5.0, 5.0]
== string_decimal_text_times_int_fails
-- why: '2.5' cannot be cast to bigint (Spark 4.1: CAST_INVALID_INPUT)
SELECT '2.5' * 2
-- error: [CAST_INVALID_INPUT]
== string_functions_on_columns
SELECT destination, left(destination, 2), right(destination, 3), reverse(destination), instr(destination, 'a'), ascii(destination), repeat(substr(destination, 1, 1), 3) FROM trips GROUP BY destination
-- duckdb
SELECT destination, left(destination, 2), right(destination, 3), reverse(destination), instr(destination, 'a'), ascii(destination), repeat(substr(destination, 1, 1), 3) FROM trips GROUP BY destination
== locate_from_position
SELECT DISTINCT destination, locate('o', destination, 3) FROM trips WHERE destination IS NOT NULL
-- duckdb
SELECT DISTINCT destination, CASE WHEN instr(substr(destination, 3), 'o') = 0 THEN 0 ELSE instr(substr(destination, 3), 'o') + 2 END FROM trips WHERE destination IS NOT NULL
== empty_string_vs_null
SELECT count(*) FROM trips WHERE destination = ''
