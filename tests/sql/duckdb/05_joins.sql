# Joins: INNER, LEFT, RIGHT, FULL OUTER, CROSS, LEFT SEMI, LEFT ANTI; ON and USING; several keys; expressions.
== inner_on
SELECT r.name, count(*) FROM trips t JOIN routes r ON t.route_id = r.route_id GROUP BY r.name
== inner_keyword
SELECT count(*) FROM trips t INNER JOIN routes r ON t.route_id = r.route_id
== inner_using
SELECT route_id, count(*) FROM trips JOIN routes USING (route_id) GROUP BY route_id
== using_star_columns
SELECT * FROM routes JOIN (SELECT route_id, count(*) AS n FROM trips GROUP BY route_id) USING (route_id) ORDER BY route_id LIMIT 3
== left_join
SELECT t.route_id, count(r.name), count(*) FROM trips t LEFT JOIN routes r ON t.route_id = r.route_id GROUP BY t.route_id
== left_outer_join_nulls
SELECT t.trip_id, r.name FROM trips t LEFT OUTER JOIN routes r ON t.route_id = r.route_id WHERE t.trip_id < 40 ORDER BY t.trip_id
== right_join
SELECT r.route_id, count(t.trip_id) FROM trips t RIGHT JOIN routes r ON t.route_id = r.route_id AND t.destination = 'Zoo' GROUP BY r.route_id
== right_join_unmatched
SELECT s.station_id, b.n FROM (SELECT start_station_id, count(*) AS n FROM bikes GROUP BY start_station_id) b RIGHT OUTER JOIN stations s ON b.start_station_id = s.station_id WHERE s.station_id > 110
== full_outer
SELECT coalesce(a.route_id, b.route_id) AS k, a.n, b.name FROM (SELECT route_id, count(*) AS n FROM trips WHERE route_id > 20 GROUP BY route_id) a FULL OUTER JOIN (SELECT route_id, name FROM routes WHERE route_id < 24) b ON a.route_id = b.route_id
== full_join_using
SELECT route_id, n, name FROM (SELECT route_id, count(*) AS n FROM trips WHERE route_id > 22 GROUP BY route_id) FULL JOIN (SELECT route_id, name FROM routes WHERE route_id BETWEEN 18 AND 24) USING (route_id)
== cross_join
SELECT count(*), sum(a.route_id * b.route_id) FROM routes a CROSS JOIN routes b
== comma_join
SELECT count(*) FROM routes a, routes b WHERE a.route_id < b.route_id
== left_semi
SELECT count(*) FROM trips t LEFT SEMI JOIN routes r ON t.route_id = r.route_id AND r.kind = 'tram'
-- duckdb
SELECT count(*) FROM trips t SEMI JOIN routes r ON t.route_id = r.route_id AND r.kind = 'tram'
== left_anti
SELECT count(*) FROM trips t LEFT ANTI JOIN routes r ON t.route_id = r.route_id
-- duckdb
SELECT count(*) FROM trips t ANTI JOIN routes r ON t.route_id = r.route_id
== semi_keyword
SELECT r.route_id FROM routes r SEMI JOIN trips t ON r.route_id = t.route_id AND t.fare > 59.9
-- duckdb
SELECT r.route_id FROM routes r SEMI JOIN trips t ON r.route_id = t.route_id AND t.fare > 59.9
== anti_join_null_keys
SELECT count(*) FROM trips a LEFT ANTI JOIN (SELECT DISTINCT destination FROM trips WHERE route_id = 1) b ON a.destination = b.destination
-- duckdb
SELECT count(*) FROM trips a ANTI JOIN (SELECT DISTINCT destination FROM trips WHERE route_id = 1) b ON a.destination = b.destination
== join_two_keys
SELECT count(*) FROM trips a JOIN (SELECT route_id, destination, max(fare) AS m FROM trips GROUP BY 1, 2) b ON a.route_id = b.route_id AND a.destination = b.destination AND a.fare = b.m
== join_using_two_keys
SELECT count(*), sum(m) FROM trips JOIN (SELECT route_id, destination, max(fare) AS m FROM trips GROUP BY 1, 2) USING (route_id, destination)
== join_on_expression
SELECT count(*) FROM trips t JOIN routes r ON t.route_id = r.route_id + 1
== join_non_equi
SELECT r.route_id, count(*) FROM routes r JOIN routes s ON r.route_id < s.route_id AND s.route_id <= r.route_id + 3 GROUP BY r.route_id
== join_equi_and_range
SELECT count(*) FROM trips t JOIN routes r ON t.route_id = r.route_id AND t.fare > r.length_km * 2
== left_join_with_condition_on_right
SELECT r.route_id, count(t.trip_id) FROM routes r LEFT JOIN trips t ON r.route_id = t.route_id AND t.fare > 59 GROUP BY r.route_id
== left_join_where_right_null
SELECT count(*) FROM trips t LEFT JOIN routes r ON t.route_id = r.route_id WHERE r.route_id IS NULL
== three_way_join
SELECT r.kind, t.destination, count(*) FROM trips t JOIN routes r ON t.route_id = r.route_id JOIN (SELECT DISTINCT destination FROM trips WHERE destination LIKE '%a%') d ON t.destination = d.destination GROUP BY 1, 2
== self_join
SELECT a.trip_id, b.trip_id FROM trips a JOIN trips b ON a.trip_id + 1 = b.trip_id WHERE a.trip_id < 6 ORDER BY a.trip_id
== join_null_keys_never_match
SELECT count(*) FROM trips a JOIN trips b ON a.destination = b.destination WHERE a.trip_id < 100 AND b.trip_id < 100
== join_null_safe_key
SELECT count(*) FROM trips a JOIN trips b ON a.destination <=> b.destination WHERE a.trip_id < 100 AND b.trip_id < 100
-- duckdb
SELECT count(*) FROM trips a JOIN trips b ON a.destination IS NOT DISTINCT FROM b.destination WHERE a.trip_id < 100 AND b.trip_id < 100
== join_different_int_types
SELECT count(*) FROM trips t JOIN stations s ON t.trip_id = s.legacy_id
== join_string_key
SELECT s.district, count(*) FROM stations s JOIN (SELECT 'Frogner' AS d UNION ALL SELECT 'Sentrum') x ON s.district = x.d GROUP BY 1
== bikes_join_stations_both_ends
SELECT ss.name AS start_name, es.name AS end_name, count(*) AS n FROM bikes b JOIN stations ss ON b.start_station_id = ss.station_id JOIN stations es ON b.end_station_id = es.station_id GROUP BY 1, 2 ORDER BY n DESC, start_name, end_name LIMIT 10
== bikes_left_join_missing_station
SELECT count(*), count(s.name) FROM bikes b LEFT JOIN stations s ON b.start_station_id = s.station_id
== join_then_window
SELECT r.name, t.trip_id, row_number() OVER (PARTITION BY r.name ORDER BY t.fare DESC NULLS LAST, t.trip_id) AS rn FROM trips t JOIN routes r ON t.route_id = r.route_id QUALIFY rn <= 2
-- duckdb
SELECT r.name, t.trip_id, row_number() OVER (PARTITION BY r.name ORDER BY t.fare DESC NULLS LAST, t.trip_id) AS rn FROM trips t JOIN routes r ON t.route_id = r.route_id QUALIFY rn <= 2
== join_subquery_aggregates
SELECT a.destination, a.n, b.m FROM (SELECT destination, count(*) AS n FROM trips GROUP BY 1) a JOIN (SELECT destination, max(fare) AS m FROM trips GROUP BY 1) b ON a.destination = b.destination
== cross_join_values
SELECT r.route_id, v.x FROM routes r CROSS JOIN (SELECT 1 AS x UNION ALL SELECT 2) v WHERE r.route_id < 3
== natural_join
SELECT count(*) FROM trips NATURAL JOIN routes
== full_outer_all_columns
SELECT * FROM (SELECT route_id, kind FROM routes WHERE route_id < 3) a FULL OUTER JOIN (SELECT route_id, name FROM routes WHERE route_id BETWEEN 2 AND 4) b ON a.route_id = b.route_id
== where_pushdown_left_join_left_side
SELECT t.trip_id, r.name FROM trips t LEFT JOIN routes r ON t.route_id = r.route_id WHERE t.trip_id < 30 AND r.kind IS NULL
== where_pushdown_right_join
SELECT r.route_id, t.trip_id FROM trips t RIGHT JOIN routes r ON t.route_id = r.route_id AND t.trip_id < 2000 WHERE r.route_id > 22 AND (t.fare > 40 OR t.fare IS NULL)
== where_pushdown_full_join
SELECT a.route_id, b.route_id FROM (SELECT route_id FROM routes WHERE route_id < 5) a FULL JOIN (SELECT route_id FROM routes WHERE route_id > 2 AND route_id < 8) b ON a.route_id = b.route_id WHERE a.route_id IS NULL OR b.route_id IS NULL
== where_pushdown_nested_joins
SELECT count(*), sum(t.fare) FROM trips t JOIN routes r ON t.route_id = r.route_id LEFT JOIN stations s ON t.route_id = s.station_id WHERE t.destination = 'Harbor' AND r.kind = 'bus' AND s.capacity IS NULL
== where_pushdown_comma_join
SELECT count(*) FROM trips a, trips b WHERE a.trip_id < 50 AND b.trip_id < 40 AND a.destination = b.destination
== on_filter_left_join_right_only
SELECT r.route_id, count(t.trip_id) FROM routes r LEFT JOIN trips t ON r.route_id = t.route_id AND t.destination = 'Zoo' AND r.kind = 'tram' GROUP BY r.route_id
== on_filter_anti_join_left_term
SELECT count(*) FROM routes r LEFT ANTI JOIN trips t ON r.route_id = t.route_id AND r.kind = 'tram'
-- duckdb
SELECT count(*) FROM routes r ANTI JOIN trips t ON r.route_id = t.route_id AND r.kind = 'tram'
== on_filter_semi_join_left_term
SELECT count(*) FROM routes r LEFT SEMI JOIN trips t ON r.route_id = t.route_id AND r.kind = 'tram'
-- duckdb
SELECT count(*) FROM routes r SEMI JOIN trips t ON r.route_id = t.route_id AND r.kind = 'tram'
