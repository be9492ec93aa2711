-- Expiry keeps a room's finished games readable (their replays), and rematch offers are stored.
-- When the room expired: it is gone for play (404, 4004, never loaded again); only its finished
-- games remain, for GET /api/rooms/{room}/games/{n}. NULL while the room lives.
ALTER TABLE rooms ADD COLUMN expired_at BIGINT;
-- The number of the finished game after which this seat offered a rematch; NULL for none. An
-- offer for an earlier game than the room's latest is spent.
ALTER TABLE seats ADD COLUMN rematch_game BIGINT;
