"""The scoring layer: measures over ranked lists, per-question rows, TREC files, and the
evaluation of one configuration (`evaluate`) that a notebook calls."""
