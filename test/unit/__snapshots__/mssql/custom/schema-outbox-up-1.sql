IF SCHEMA_ID(N'messaging') IS NULL EXEC sys.sp_executesql N'CREATE SCHEMA [messaging]'
