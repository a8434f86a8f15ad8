"""The semantic checks `rulecraft validate` runs after the schema."""
