-- Raw histogram bucket counts as int4 instead of int8: a bucket of one host's 10 s interval never nears 2^31 (ingest
-- refuses a count above 2147483647), and the counts array was the largest column of the largest table. The rollups
-- keep int8, since they sum many intervals and hosts. Rewrites every partition of latency_samples; a count above
-- int4's range, which ingest never accepted, would fail the migration rather than change.
ALTER TABLE "latency_samples" ALTER COLUMN "counts" TYPE INTEGER[];
