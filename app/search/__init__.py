"""Search over the text folded at import, on SQLite FTS5 or PostgreSQL pg_trgm."""
