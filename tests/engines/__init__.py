"""Stand-alone programs that the engine tests seat as players; they never import abstractgames."""
