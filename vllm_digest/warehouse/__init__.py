"""The DuckDB warehouse: connection resource, SQL files, partition writes."""
