"""Research apart from the product: nothing under ``services/`` imports it (import-linter)."""
