"""Rule files in: YAML loaded into located nodes (includes, safety limits), and the JSON Schema check."""
