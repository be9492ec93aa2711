-- The lobby (issue 25): open seeks, games waiting for an opponent. Portable SQL.
-- A seek's room id and its seeker's seat token are chosen when it is made, so whoever takes it,
-- on whichever node, makes that room: the token is stored as its hash, and sealed by the
-- seeker's profile secret for "my games" (as profile_seats does).
CREATE TABLE seeks (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    -- The role the seeker plays: 'fugitive', 'marshal' or 'random'.
    role TEXT NOT NULL,
    -- JSON RuleOptions.
    rules TEXT NOT NULL,
    turn_clock_secs BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    room_id TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    sealed_token TEXT NOT NULL,
    -- The node whose lobby socket keeps a real-time seek alive.
    node TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    -- Correspondence seeks (a day or more per move) live 7 days; NULL for real-time ones, which
    -- die with their seeker's last lobby socket.
    expires_at BIGINT
);
CREATE INDEX seeks_profile ON seeks (profile_id);
