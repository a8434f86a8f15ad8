"""The DSL: its syntax tree with canonical text, dice notation, and the parser."""
