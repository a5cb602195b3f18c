"""houseapp: a small model layer that follows (and, on purpose, breaks) its house rules."""
