-- Concatenates arrays over the rows of a group. The latency rollups gather each host's few histograms of a minute
-- (or minutes of an hour) with it and then sum counts per key inside the group, instead of one GROUP BY over every
-- (host, bucket, key) of the whole range.
CREATE AGGREGATE inferwatch_array_cat_agg(anycompatiblearray) (SFUNC = array_cat, STYPE = anycompatiblearray);
