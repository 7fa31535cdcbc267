SELECT TOP (10) [a]]b], x[0] FROM [db].[dbo].[t] ORDER BY a
GO
SELECT * FROM OPENROWSET(BULK N'/p/**', FORMAT = 'CSV', HEADER_ROW = TRUE) WITH (a nvarchar(max) COLLATE Latin1_General_100_BIN2_UTF8, b datetime2(3)) AS [r]
