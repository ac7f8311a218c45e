"""Dagster assets. They are thin: the work lives in the modules they call."""
