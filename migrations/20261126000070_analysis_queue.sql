-- The analyses' queue (issue 26): a node computes at most `--analysis-workers` analyses at once
-- (by default its cores less one) and queues the rest; while one waits, its row says how many
-- analyses are ahead of it on that node. NULL once it computes (and for rows from before).
ALTER TABLE analyses ADD COLUMN ahead BIGINT;
