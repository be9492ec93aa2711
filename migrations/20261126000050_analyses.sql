-- The analysis of a finished game (issue 26), computed once and shared by every node. Portable SQL.

-- One row per analysed game. A node claims the row (owner, expires_at) to compute it; another
-- node that finds it claimed, and not expired, waits. `result` is the JSON analysis once done.
CREATE TABLE analyses (
    room_id TEXT NOT NULL,
    game BIGINT NOT NULL,
    -- The node computing it; NULL once done.
    owner TEXT,
    -- Unix ms after which another node may take the claim over (renewed with the progress).
    expires_at BIGINT NOT NULL,
    -- Moves analysed and in all: the progress while it runs.
    done BIGINT NOT NULL,
    total BIGINT NOT NULL,
    -- JSON: fugitive_ai::Analysis; NULL while it runs.
    result TEXT,
    -- Each player's accuracy (0-100), for the profile's average.
    fugitive_accuracy DOUBLE PRECISION,
    marshal_accuracy DOUBLE PRECISION,
    finished_at BIGINT,
    PRIMARY KEY (room_id, game)
);
