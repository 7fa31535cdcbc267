# UNION [ALL], INTERSECT, EXCEPT, CTEs, subqueries in FROM, scalar, IN / NOT IN (with NULLs), EXISTS.
== union_all
SELECT route_id FROM routes WHERE route_id < 4 UNION ALL SELECT route_id FROM routes WHERE route_id < 3
== union_distinct
SELECT route_id FROM routes WHERE route_id < 4 UNION SELECT route_id FROM routes WHERE route_id < 6
== union_all_count
SELECT count(*) FROM (SELECT trip_id FROM trips UNION ALL SELECT trip_id FROM trips_csv)
== union_type_widening
SELECT route_id FROM routes WHERE route_id = 1 UNION ALL SELECT 2.5 UNION ALL SELECT 3L
-- duckdb
SELECT route_id FROM routes WHERE route_id = 1 UNION ALL SELECT 2.5 UNION ALL SELECT 3
== union_nulls_distinct
SELECT destination FROM trips WHERE route_id = 1 UNION SELECT destination FROM trips WHERE route_id = 2
== union_order_by_limit
SELECT trip_id FROM trips WHERE route_id = 1 UNION ALL SELECT trip_id FROM trips WHERE route_id = 2 ORDER BY trip_id LIMIT 5
== union_three_way
SELECT 'a' AS k, count(*) FROM trips UNION ALL SELECT 'b', count(*) FROM routes UNION ALL SELECT 'c', count(*) FROM stations
== intersect
SELECT route_id FROM trips WHERE destination = 'Zoo' INTERSECT SELECT route_id FROM routes WHERE kind = 'tram'
== intersect_with_nulls
SELECT destination FROM trips WHERE route_id = 1 INTERSECT SELECT destination FROM trips WHERE route_id = 2
== intersect_all
SELECT route_id % 3 FROM routes INTERSECT ALL SELECT route_id % 3 FROM routes WHERE route_id < 10
== except
SELECT route_id FROM trips EXCEPT SELECT route_id FROM routes
== except_all
SELECT route_id % 3 FROM routes EXCEPT ALL SELECT route_id % 3 FROM routes WHERE route_id < 10
== intersect_all_nulls_two_cols
SELECT destination, route_id % 2 FROM trips WHERE route_id < 10 INTERSECT ALL SELECT destination, route_id % 2 FROM trips WHERE route_id > 20
== except_all_counts
SELECT destination, count(*) FROM (SELECT destination FROM trips EXCEPT ALL SELECT destination FROM trips WHERE route_id < 15) GROUP BY destination
== minus_synonym
-- why: MINUS is Spark's synonym of EXCEPT
SELECT route_id FROM routes MINUS SELECT route_id FROM trips WHERE destination = 'Zoo'
-- duckdb
SELECT route_id FROM routes EXCEPT SELECT route_id FROM trips WHERE destination = 'Zoo'
== except_nulls
SELECT destination FROM trips EXCEPT SELECT destination FROM trips WHERE route_id < 30
== setop_precedence
SELECT route_id FROM routes WHERE route_id < 5 UNION SELECT route_id FROM routes WHERE route_id > 20 INTERSECT SELECT route_id FROM routes WHERE route_id % 2 = 0
== cte_simple
WITH z AS (SELECT * FROM trips WHERE destination = 'Zoo') SELECT count(*), max(fare) FROM z
== cte_two
WITH a AS (SELECT route_id, count(*) AS n FROM trips GROUP BY route_id), b AS (SELECT route_id, name FROM routes) SELECT b.name, a.n FROM a JOIN b ON a.route_id = b.route_id ORDER BY a.n DESC, b.name LIMIT 5
== cte_referencing_cte
WITH a AS (SELECT route_id, fare FROM trips WHERE fare > 50), b AS (SELECT route_id, count(*) AS n FROM a GROUP BY route_id) SELECT max(n), min(n) FROM b
== cte_used_twice
WITH c AS (SELECT destination, count(*) AS n FROM trips GROUP BY destination) SELECT x.destination, x.n, y.n FROM c x JOIN c y ON x.destination = y.destination
== cte_column_names
WITH c(d, n) AS (SELECT destination, count(*) FROM trips GROUP BY destination) SELECT d, n FROM c WHERE n > 2400
== cte_shadows_table
WITH trips AS (SELECT * FROM routes) SELECT count(*) FROM trips
== subquery_from
SELECT d, n FROM (SELECT destination AS d, count(*) AS n FROM trips GROUP BY destination) s WHERE n > 2400
== subquery_from_nested
SELECT max(m) FROM (SELECT route_id, max(fare) AS m FROM (SELECT * FROM trips WHERE destination <> 'Zoo') GROUP BY route_id)
== scalar_subquery_select
SELECT route_id, (SELECT count(*) FROM trips) AS total FROM routes WHERE route_id < 3
== scalar_subquery_where
SELECT count(*) FROM trips WHERE fare > (SELECT avg(fare) FROM trips)
== scalar_subquery_empty_is_null
SELECT (SELECT max(fare) FROM trips WHERE trip_id < 0) AS m
== scalar_subquery_correlated
SELECT r.route_id, (SELECT count(*) FROM trips t WHERE t.route_id = r.route_id) AS n FROM routes r
== scalar_subquery_correlated_agg
SELECT trip_id FROM trips t WHERE fare > (SELECT avg(fare) * 1.9 FROM trips t2 WHERE t2.route_id = t.route_id) ORDER BY trip_id LIMIT 20
== scalar_subquery_correlated_expr_select
SELECT r.route_id, (SELECT round(avg(t.fare), 2) - 1 FROM trips t WHERE t.route_id = r.route_id AND t.destination = 'Zoo') AS v FROM routes r
== scalar_subquery_correlated_coalesce
-- why: coalesce over an aggregate is not NULL on no rows: an unmatched route reads the subquery's value over no rows (0)
SELECT r.route_id, (SELECT coalesce(max(t.fare), 0) FROM trips t WHERE t.route_id = r.route_id) AS v FROM routes r
== scalar_subquery_correlated_count_bug
-- why: count over no rows is 0, so count(*) + 1 is 1 for a route without such trips (the count bug of decorrelation)
SELECT r.route_id, (SELECT count(*) + 1 FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59.9) AS n FROM routes r
== scalar_subquery_correlated_coalesce_sum_two_keys
SELECT r.route_id, (SELECT coalesce(sum(t.fare), -1) FROM trips t WHERE t.route_id = r.route_id AND t.destination = r.name) AS v FROM routes r
== scalar_subquery_correlated_in_where_of_aggregate
SELECT r.kind, count(*) FROM routes r WHERE (SELECT count(*) FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59) = 0 GROUP BY r.kind
== exists_correlated_in_select_list
SELECT r.route_id, EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59.9) AS e, NOT EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id) AS none FROM routes r
== not_exists_correlated_under_or
SELECT count(*) FROM routes r WHERE r.kind = 'bus' OR NOT EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59.9)
== exists_correlated_under_or_grouped
SELECT r.kind, count(*) FROM routes r WHERE r.route_id < 5 OR EXISTS (SELECT * FROM trips t WHERE t.route_id = r.route_id AND t.destination = 'Zoo' AND t.fare > 59) GROUP BY r.kind
== exists_correlated_null_outer_key
-- why: a NULL outer key matches nothing: EXISTS is false, NOT EXISTS true
SELECT count(*), count_if(NOT EXISTS (SELECT 1 FROM routes r WHERE r.name = t.destination)) FROM trips t WHERE t.destination IS NULL OR EXISTS (SELECT 1 FROM routes r WHERE r.name = t.destination)
-- duckdb
SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM routes r WHERE r.name = t.destination)) FROM trips t WHERE t.destination IS NULL OR EXISTS (SELECT 1 FROM routes r WHERE r.name = t.destination)
== exists_non_equality_correlation
SELECT count(*) FROM trips t WHERE EXISTS (SELECT 1 FROM trips u WHERE u.route_id = t.route_id AND u.fare > t.fare + 50)
== scalar_subquery_correlated_not_aggregated
SELECT r.route_id, (SELECT t.fare FROM trips t WHERE t.route_id = r.route_id) AS f FROM routes r
-- error: this correlated scalar subquery is not supported yet: the subquery's value is not an aggregate
-- error: column 20
== scalar_subquery_correlated_non_equality
SELECT r.route_id, (SELECT count(*) FROM trips t WHERE t.route_id > r.route_id) AS n FROM routes r
== scalar_subquery_correlated_equality_and_range
SELECT r.route_id, r.name, (SELECT coalesce(max(t.fare), 0) FROM trips t WHERE t.route_id = r.route_id AND t.fare < r.route_id + 1.5) AS v FROM routes r
== scalar_subquery_correlated_range_in_where
SELECT count(*) FROM routes r WHERE (SELECT count(*) FROM routes q WHERE q.route_id < r.route_id AND q.kind = r.kind) >= 2
== exists_under_or_non_equality
SELECT count(*) FROM routes r WHERE r.kind = 'tram' OR EXISTS (SELECT 1 FROM trips t WHERE t.fare > r.route_id * 2.5)
== exists_non_equality_only
SELECT r.route_id FROM routes r WHERE EXISTS (SELECT 1 FROM routes q WHERE q.route_id > r.route_id + 30) ORDER BY r.route_id
== not_exists_non_equality_only
SELECT r.route_id FROM routes r WHERE NOT EXISTS (SELECT 1 FROM routes q WHERE q.route_id > r.route_id + 30) ORDER BY r.route_id
== exists_non_equality_in_select_list
SELECT r.route_id, EXISTS (SELECT 1 FROM routes q WHERE q.route_id < r.route_id - 35 AND q.kind <> r.kind) AS e FROM routes r
== in_subquery
SELECT count(*) FROM trips WHERE route_id IN (SELECT route_id FROM routes WHERE kind = 'tram')
== not_in_subquery
SELECT count(*) FROM trips WHERE route_id NOT IN (SELECT route_id FROM routes)
== not_in_subquery_with_null
-- why: x NOT IN (a set holding NULL) is never true
SELECT count(*) FROM routes WHERE name NOT IN (SELECT destination FROM trips)
== not_in_subquery_null_probe
SELECT count(*) FROM trips WHERE destination NOT IN (SELECT name FROM routes)
== in_subquery_with_null_probe
SELECT count(*) FROM trips WHERE destination IN (SELECT destination FROM trips WHERE route_id = 1)
== in_subquery_multi_col
SELECT count(*) FROM trips WHERE (route_id, destination) IN (SELECT route_id, 'Zoo' FROM routes WHERE kind = 'tram')
== in_subquery_multi_col_correlated_free_nulls
SELECT count(*) FROM trips WHERE (destination, route_id) IN (SELECT destination, route_id FROM trips WHERE fare > 59.5)
== exists
SELECT count(*) FROM routes r WHERE EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id AND t.fare > 59.8)
== not_exists
SELECT count(*) FROM trips t WHERE NOT EXISTS (SELECT 1 FROM routes r WHERE r.route_id = t.route_id)
== exists_uncorrelated
SELECT count(*) FROM routes WHERE EXISTS (SELECT 1 FROM trips WHERE fare > 1000)
== in_subquery_in_select
SELECT route_id, route_id IN (SELECT route_id FROM trips WHERE destination = 'Zoo' AND fare > 59) AS hit FROM routes ORDER BY route_id
== subquery_in_having
SELECT route_id, count(*) FROM trips GROUP BY route_id HAVING count(*) > (SELECT count(*) / 30 FROM trips)
== subquery_in_case
SELECT CASE WHEN route_id IN (SELECT route_id FROM routes WHERE kind = 'tram') THEN 'tram' ELSE 'other' END AS k, count(*) FROM trips GROUP BY 1
== union_in_subquery
SELECT count(*) FROM (SELECT route_id FROM routes UNION SELECT route_id FROM trips)
== lateral_view_free_correlated_exists_or
SELECT count(*) FROM routes r WHERE r.kind = 'tram' OR EXISTS (SELECT 1 FROM trips t WHERE t.route_id = r.route_id AND t.destination = 'Zoo' AND t.fare > 59.5)
