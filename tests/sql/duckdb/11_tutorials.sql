# Every Spark SQL statement that reads data in ../shared/tutorials, verbatim; the
# tables they name hold generated data of the same shape (sql_suite.py: tutorial_setup).
# 001: trips {trip_id, tstamp, route_id, destination} at versions 0-3
# (write; append; update Syracuse -> Philadelphia; delete New Jersey).
== t001_count
SELECT count(*) FROM temp_trip_table
== t001_limit_5
SELECT * FROM temp_trip_table LIMIT 5
-- rowcount
== t001_max
SELECT max(trip_id) FROM temp_trip_table
== t001_catalog_count
select count(*) from my_delta_db.delta_spark_table
== t001_catalog_max
select max(trip_id) from my_delta_db.delta_spark_table
== t001_catalog_limit
select destination, route_id, trip_id, tstamp from my_delta_db.delta_spark_table limit 10
-- rowcount
== t001_catalog_distinct
select distinct route_id from my_delta_db.delta_spark_table order by route_id
== t001_new_rows
SELECT * FROM temp_trip_table WHERE trip_id > 1999996 ORDER BY trip_id
== t001_count_syracuse
SELECT count(*) AS Count_Syracuse FROM temp_trip_table WHERE destination = 'Syracuse'
== t001_count_philadelphia
SELECT count(*) AS Count_Philadelphia FROM temp_trip_table WHERE destination = 'Philadelphia'
== t001_count_total
SELECT count(*) as Count_total FROM temp_trip_table
== t001_count_nj
SELECT count(*) as Count_NJ FROM temp_trip_table WHERE destination = 'New Jersey'
== t001_after_2000014
SELECT * FROM temp_trip_table WHERE trip_id > 2000014 ORDER BY trip_id
== t001_after_2000010
SELECT * FROM temp_trip_table WHERE trip_id > 2000010 ORDER BY trip_id
== t001_v0_new_rows
SELECT * FROM temp_trip_table_v0 WHERE trip_id >= 2000000 ORDER BY trip_id
== t001_v2_new_rows
SELECT * FROM temp_trip_table_v2 WHERE trip_id >= 2000000 ORDER BY trip_id
== t001_v1_syracuse
SELECT count(*) AS Count_Syracuse FROM temp_trip_table_v1 WHERE destination = 'Syracuse'
== t001_v1_philadelphia
SELECT count(*) AS Count_Philadelphia FROM temp_trip_table_v1 WHERE destination = 'Philadelphia'
== t001_v2_syracuse
SELECT count(*) AS Count_Syracuse FROM temp_trip_table_v2 WHERE destination = 'Syracuse'
== t001_v2_philadelphia
SELECT count(*) AS Count_Philadelphia FROM temp_trip_table_v2 WHERE destination = 'Philadelphia'
== t001_v2_total
SELECT count(*) as Count_total FROM temp_trip_table_v2
== t001_v2_nj
SELECT count(*) as Count_NJ FROM temp_trip_table_v2 WHERE destination = 'New Jersey'
== t001_v3_total
SELECT count(*) as Count_total FROM temp_trip_table_v3
== t001_v3_nj
SELECT count(*) as Count_NJ FROM temp_trip_table_v3 WHERE destination = 'New Jersey'
# 002: NYC film permits read from a multi-line JSON array, copied into a table by CTAS.
== t002_permits_src_by_borough
SELECT borough, count(*) permit_cnt
FROM permits_src
GROUP BY borough
== t002_permits_by_borough
SELECT borough, count(*) permit_cnt FROM rmoff.permits GROUP BY borough
== t002_permits_at_main
SELECT borough, count(*) permit_cnt FROM rmoff.`permits@main` GROUP BY borough
-- duckdb
SELECT borough, count(*) permit_cnt FROM rmoff.permits GROUP BY borough
== t002_distinct_boroughs
SELECT DISTINCT borough FROM rmoff.permits
# 003: a catalog table over a Delta location (CREATE TABLE ... LOCATION is part of the cell).
== t003_create_and_count
-- create a new catalog table
CREATE TABLE IF NOT EXISTS spotifyStreamData
USING DELTA
LOCATION '{W}/spotify_delta';
-- select number of records from the table
SELECT COUNT(1) as Computed 
FROM spotifyStreamData;
-- duckdb
SELECT COUNT(1) as Computed FROM spotifyStreamData
== t003_justice
SELECT * FROM DeltaDataSQL WHERE artist_name = 'Justice'
# 004: AdventureWorks products (external and managed tables) and IoT readings.
== t004_products_external
USE AdventureWorks;

 SELECT * FROM ProductsExternal;
-- duckdb
SELECT * FROM adventureworks.ProductsExternal
== t004_products_managed
USE AdventureWorks;

 SELECT * FROM ProductsManaged;
-- duckdb
SELECT * FROM adventureworks.ProductsManaged
== t004_products
USE AdventureWorks;

 SELECT * FROM Products;
-- duckdb
SELECT * FROM adventureworks.Products
== t004_iot
SELECT * FROM IotDeviceData;
-- duckdb
SELECT * FROM adventureworks.IotDeviceData
