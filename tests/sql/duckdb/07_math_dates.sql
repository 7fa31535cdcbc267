# Math and date/time functions.
== abs_sign
SELECT abs(-3) AS a, abs(-2.5) AS b, signum(-4) AS c, sign(0.0) AS d
-- duckdb
SELECT abs(-3) AS a, abs(-2.5) AS b, sign(-4) AS c, sign(0.0) AS d
== round_half_up
-- why: Spark rounds half away from zero (HALF_UP), also for doubles
SELECT round(2.5) AS a, round(-2.5) AS b, round(0.125, 2) AS c, round(1234.5678, -2) AS d
-- expect
[3, -3, 0.13, 1200]
== round_column
-- why: Spark rounds a double HALF_UP from its shortest decimal text (1.65 -> 1.7); DuckDB gives 1.6
SELECT round(fare, 1) AS r, count(*) FROM trips WHERE fare < 3 GROUP BY 1 ORDER BY 1
-- duckdb
SELECT round(CAST(fare AS DECIMAL(10, 2)), 1)::DOUBLE AS r, count(*) FROM trips WHERE fare < 3 GROUP BY 1 ORDER BY 1
== bround
-- why: bround is HALF_EVEN rounding
SELECT bround(2.5) AS a, bround(3.5) AS b, bround(0.125, 2) AS c
-- expect
[2, 4, 0.12]
== floor_ceil
SELECT floor(fare) AS f, ceil(fare) AS c FROM trips WHERE trip_id < 20 ORDER BY trip_id
== floor_ceil_negative
SELECT floor(-2.5) AS a, ceil(-2.5) AS b, ceiling(2.1) AS c
== sqrt_exp_ln
SELECT sqrt(16) AS a, exp(1) AS b, ln(10) AS c, log10(1000) AS d, log2(8) AS e
== log_base
-- why: Spark's log(b, x) takes the base first
SELECT log(2, 8) AS a, log(10, 100) AS b
-- expect
[3.0, 2.0]
== pow_power
SELECT pow(2, 10) AS a, power(fare, 2) AS b FROM trips WHERE trip_id = 3
== sqrt_negative_nan
SELECT sqrt(-1) AS a
-- expect
["NaN"]
== mod_pmod
SELECT mod(-7, 3) AS a, pmod(-7, 3) AS b, pmod(7, -3) AS c
-- expect
[-1, 2, 1]
== div_by_zero_error
-- why: ANSI mode (Spark 4 default): division by zero fails
SELECT trip_id / 0 FROM trips
-- error: DIVIDE_BY_ZERO
== mod_by_zero_error
SELECT trip_id % 0 FROM trips
-- error: DIVIDE_BY_ZERO
== try_divide
SELECT try_divide(10, 0) AS a, try_divide(10, 4) AS b
-- expect
[null, 2.5]
== greatest_double_int
SELECT greatest(1, 2.5, 2) AS g
== int_overflow_error
-- why: ANSI mode: integer overflow fails
SELECT 2147483647 + CAST(1 AS INT)
-- error: ARITHMETIC_OVERFLOW
== long_arith
SELECT max(trip_id) * 1000000 AS a, min(trip_id) - 5 AS b FROM trips
== float_math_agg
SELECT sum(fare * fare), avg(sqrt(fare)) FROM trips
== year_month_day
SELECT year(tstamp) AS y, month(tstamp) AS m, day(tstamp) AS d, count(*) FROM trips GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LIMIT 10
== hour_minute_second
SELECT hour(tstamp), minute(tstamp), second(tstamp) FROM trips WHERE trip_id < 10 ORDER BY trip_id
== dayofweek
-- why: Spark's dayofweek is 1 = Sunday .. 7 = Saturday (DuckDB's dayofweek is 0 = Sunday)
SELECT dayofweek(tstamp) AS w, count(*) FROM trips GROUP BY 1
-- duckdb
SELECT dayofweek(tstamp) + 1 AS w, count(*) FROM trips GROUP BY 1
== dayofmonth_dayofyear
SELECT dayofmonth(tstamp) AS a, dayofyear(tstamp) AS b FROM trips WHERE trip_id < 8 ORDER BY trip_id
== weekofyear
SELECT weekofyear(tstamp) AS w, count(*) FROM trips GROUP BY 1
-- duckdb
SELECT weekofyear(tstamp) AS w, count(*) FROM trips GROUP BY 1
== quarter
SELECT quarter(tstamp) AS q, count(*) FROM trips GROUP BY 1
== date_trunc_units
SELECT date_trunc('month', tstamp) AS m, count(*) FROM trips GROUP BY 1
== date_trunc_hour
SELECT date_trunc('HOUR', tstamp) AS h FROM trips WHERE trip_id < 10 ORDER BY trip_id
== date_trunc_week
SELECT date_trunc('week', tstamp) AS w, count(*) FROM trips GROUP BY 1
== trunc_date
SELECT trunc(DATE '2024-05-17', 'MM') AS a, trunc(DATE '2024-05-17', 'YEAR') AS b
-- expect
["2024-05-01", "2024-01-01"]
== to_date
SELECT to_date(tstamp) AS d, count(*) FROM trips GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5
-- duckdb
SELECT CAST(tstamp AS DATE) AS d, count(*) FROM trips GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5
== to_date_string
SELECT to_date('2024-03-05') AS a, to_date('05/03/2024', 'dd/MM/yyyy') AS b
-- expect
["2024-03-05", "2024-03-05"]
== to_timestamp_string
SELECT to_timestamp('2024-03-05 10:11:12') AS a, to_timestamp('05.03.2024 10:11', 'dd.MM.yyyy HH:mm') AS b
-- expect
["2024-03-05T10:11:12.000000Z", "2024-03-05T10:11:00.000000Z"]
== date_format
SELECT date_format(tstamp, 'yyyy-MM-dd HH:mm') AS s FROM trips WHERE trip_id < 6 ORDER BY trip_id
-- duckdb
SELECT strftime(tstamp, '%Y-%m-%d %H:%M') AS s FROM trips WHERE trip_id < 6 ORDER BY trip_id
== date_format_names
SELECT date_format(TIMESTAMP '2024-03-05 14:07:09', 'EEE, d MMM yyyy hh:mm:ss a') AS s
-- expect
["Tue, 5 Mar 2024 02:07:09 PM"]
== date_add_sub
SELECT date_add(DATE '2024-02-28', 2) AS a, date_sub(DATE '2024-03-01', 1) AS b, DATE '2024-01-31' + 1 AS c
-- expect
["2024-03-01", "2024-02-29", "2024-02-01"]
== date_add_column
SELECT date_add(to_date(tstamp), 7) AS d FROM trips WHERE trip_id < 6 ORDER BY trip_id
-- duckdb
SELECT CAST(tstamp AS DATE) + 7 AS d FROM trips WHERE trip_id < 6 ORDER BY trip_id
== datediff
SELECT datediff(DATE '2024-03-01', DATE '2024-02-01') AS a, datediff(to_date(tstamp), DATE '2024-01-01') AS b FROM trips WHERE trip_id = 1
-- duckdb
SELECT date_diff('day', DATE '2024-02-01', DATE '2024-03-01') AS a, date_diff('day', DATE '2024-01-01', CAST(tstamp AS DATE)) AS b FROM trips WHERE trip_id = 1
== add_months_months_between
SELECT add_months(DATE '2024-01-31', 1) AS a, last_day(DATE '2024-02-10') AS b
-- expect
["2024-02-29", "2024-02-29"]
== current_date_sane
SELECT current_date() >= DATE '2026-01-01' AS a, current_timestamp() > TIMESTAMP '2026-01-01 00:00:00' AS b
-- expect
[true, true]
== current_date_no_parens
SELECT current_date >= DATE '2026-01-01' AS a
-- expect
[true]
== from_utc_timestamp
SELECT from_utc_timestamp(TIMESTAMP '2024-07-01 12:00:00', 'Europe/Oslo') AS a, from_utc_timestamp(TIMESTAMP '2024-01-01 12:00:00', 'America/New_York') AS b
-- why: the shifted wall-clock time, shown as an instant in UTC
-- expect
["2024-07-01T14:00:00.000000Z", "2024-01-01T07:00:00.000000Z"]
== to_utc_timestamp
SELECT to_utc_timestamp(TIMESTAMP '2024-07-01 14:00:00', 'Europe/Oslo') AS a
-- expect
["2024-07-01T12:00:00.000000Z"]
== utc_shift_gaps_overlaps_lmt
-- why: Spark 4.1's answers: a local time in the spring gap moves on, one in the autumn overlap takes the earlier offset, 1900 is local mean time
SELECT to_utc_timestamp(TIMESTAMP '2024-03-31 02:30:00', 'Europe/Oslo') AS gap, to_utc_timestamp(TIMESTAMP '2024-10-27 02:30:00', 'Europe/Oslo') AS overlap, from_utc_timestamp(TIMESTAMP '1900-01-01 00:00:00', 'Asia/Kolkata') AS lmt
-- expect
["2024-03-31T01:30:00.000000Z", "2024-10-27T00:30:00.000000Z", "1900-01-01T05:21:10.000000Z"]
== utc_shift_after_2037
SELECT from_utc_timestamp(TIMESTAMP '2050-07-01 00:00:00', 'Europe/Oslo') AS future
-- expect
["2050-07-01T02:00:00.000000Z"]
== utc_shift_after_2037_zones
-- why: Spark 4.1's answers (the zones' rules after their last listed transition: EDT in July, AEDT in January, JST always)
SELECT from_utc_timestamp(TIMESTAMP '2050-07-01 12:00:00', 'America/New_York') AS ny, from_utc_timestamp(TIMESTAMP '2050-01-15 00:00:00', 'Australia/Sydney') AS syd, from_utc_timestamp(TIMESTAMP '2060-07-01 00:00:00', 'Asia/Tokyo') AS tokyo, to_utc_timestamp(TIMESTAMP '2050-07-01 02:00:00', 'Europe/Oslo') AS back
-- expect
["2050-07-01T08:00:00.000000Z", "2050-01-15T11:00:00.000000Z", "2060-07-01T09:00:00.000000Z", "2050-07-01T00:00:00.000000Z"]
== from_utc_timestamp_column_hours
-- why: Spark 4.1's answer on these files
SELECT hour(from_utc_timestamp(tstamp, 'Europe/Oslo')) h, count(*) FROM trips GROUP BY 1
-- expect
[0, 857]
[1, 798]
[2, 846]
[3, 800]
[4, 812]
[5, 843]
[6, 824]
[7, 847]
[8, 855]
[9, 860]
[10, 859]
[11, 867]
[12, 859]
[13, 836]
[14, 844]
[15, 805]
[16, 856]
[17, 791]
[18, 828]
[19, 879]
[20, 815]
[21, 818]
[22, 812]
[23, 789]
== interval_arith
SELECT TIMESTAMP '2024-01-01 00:00:00' + INTERVAL 90 MINUTES AS a, DATE '2024-01-31' + INTERVAL 1 DAY AS b
-- expect
["2024-01-01T01:30:00.000000Z", "2024-02-01"]
== interval_in_where
SELECT count(*) FROM trips WHERE tstamp < TIMESTAMP '2024-01-01 00:00:00' + INTERVAL 3 DAYS
== interval_on_column
SELECT trip_id, tstamp + INTERVAL 36 HOURS AS t1, tstamp - INTERVAL 1 MONTH AS t2, to_date(tstamp) + INTERVAL 2 WEEKS AS d FROM trips WHERE trip_id < 8 ORDER BY trip_id
-- duckdb
SELECT trip_id, tstamp + INTERVAL 36 HOURS AS t1, tstamp - INTERVAL 1 MONTH AS t2, CAST(CAST(tstamp AS DATE) + INTERVAL 14 DAYS AS DATE) AS d FROM trips WHERE trip_id < 8 ORDER BY trip_id
== interval_group_window
SELECT date_trunc('day', tstamp + INTERVAL 12 HOURS) AS d, count(*) FROM trips GROUP BY 1 ORDER BY 1 LIMIT 5
== binary_literal
SELECT X'0AFF' AS a, length(X'0AFF') AS n
-- why: Spark's X'..' literal (DuckDB spells it '\x0A\xFF'::BLOB); binary prints as hex
-- expect
["0aff", 2]
== timestamp_diff_seconds
SELECT unix_timestamp(TIMESTAMP '2024-01-01 00:01:00') - unix_timestamp(TIMESTAMP '2024-01-01 00:00:00') AS s
-- expect
[60]
== unix_timestamp_col
SELECT unix_timestamp(tstamp) AS u FROM trips WHERE trip_id < 5 ORDER BY trip_id
-- duckdb
SELECT epoch(tstamp)::BIGINT AS u FROM trips WHERE trip_id < 5 ORDER BY trip_id
== from_unixtime
SELECT from_unixtime(0) AS a, from_unixtime(86400, 'yyyy-MM-dd') AS b
-- expect
["1970-01-01 00:00:00", "1970-01-02"]
== make_date
SELECT make_date(2024, 2, 29) AS d
== extract
SELECT extract(YEAR FROM tstamp) AS y, extract(HOUR FROM tstamp) AS h FROM trips WHERE trip_id < 5 ORDER BY trip_id
== timestamp_literal_iso_t
SELECT TIMESTAMP '2024-01-02T03:04:05' AS t
== date_compare_group
SELECT CASE WHEN tstamp < TIMESTAMP '2024-02-15 00:00:00' THEN 'early' ELSE 'late' END AS p, count(*) FROM trips GROUP BY 1
== cast_string_timestamp_where
SELECT count(*) FROM trips WHERE tstamp >= CAST('2024-04-01 00:00:00' AS TIMESTAMP)
