"""What the tests use that is not a test: a toy game, plain references of the rules, programs that
stand for someone else's (they must not import abstractgames), and helpers that a few test modules
share."""
