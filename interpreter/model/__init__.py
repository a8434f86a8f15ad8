"""The ruleset model and how it is built from a rule file."""
