"""The state of a game: units, sides, statuses, space, and the built-in actions on them."""
