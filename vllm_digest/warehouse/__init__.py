"""The warehouse stage: the landed days as stg_*, core_* and the five sets (mart_five_sets, mart_daily_counts), with
their asset checks; the connection resource, SQL files and partition writes it uses are core/sqlmodel/."""
