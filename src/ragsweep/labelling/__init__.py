"""Building and keeping the labelled set: sample questions from a scrubbed query log, pool
candidates, pre-label, measure agreement, audit, import judged sheets."""
