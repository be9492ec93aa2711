-- Casual games (issue 25): a room made from a casual seek is never rated, whoever sits in it.
-- 1 for casual; NULL otherwise (rated when the rules of rating say so).
ALTER TABLE rooms ADD COLUMN casual BIGINT;
