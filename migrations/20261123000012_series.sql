-- A series of games in a room (issue 13): "best of 3" or "best of 5" chosen at creation, or NULL
-- for an open series. The score itself is not stored: it is counted from the finished games'
-- action logs, which are already durable.
ALTER TABLE rooms ADD COLUMN series_best_of BIGINT;
