"""Infrastructure: the database object, the bank, migrations, background jobs, logging, tables."""
