-- Puzzles (issue 26): positions where one answer is clearly best, found by the exact notepad
-- (fugitive-ai `puzzle.rs`) in bot games (`fugitive-sim --puzzles`, loaded at start-up) and in
-- finished games of this server (the miner). Portable SQL. Times are Unix milliseconds.

CREATE TABLE puzzles (
    -- 32 hex digits: the SHA-256 of the theme and the view, so the same position is stored once.
    id TEXT PRIMARY KEY,
    -- 'certain', 'finds_all' or 'cover'.
    theme TEXT NOT NULL,
    -- The solver's role: 'marshal' or 'fugitive'.
    role TEXT NOT NULL,
    -- The solver's view (JSON, fugitive-core's View) as the rules let him see it then.
    view TEXT NOT NULL,
    -- The answer's numbers (JSON list): never sent before an attempt is answered.
    answer TEXT NOT NULL,
    -- The answer's figure and the next best choice's (see docs/protocol.md).
    best DOUBLE PRECISION NOT NULL,
    next DOUBLE PRECISION NOT NULL,
    -- 'sim' or 'game ROOM GAME'.
    source TEXT NOT NULL,
    -- Glicko-2, by how often it is solved.
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts BIGINT NOT NULL,
    solved BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX puzzles_rating ON puzzles (rating);

-- One row per puzzle handed out: its attempt token's hash, answered once.
CREATE TABLE puzzle_attempts (
    token_hash TEXT PRIMARY KEY,
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    -- The solver's profile, NULL without one.
    profile_id TEXT,
    created_at BIGINT NOT NULL,
    answered_at BIGINT,
    solved BIGINT
);
CREATE INDEX puzzle_attempts_profile ON puzzle_attempts (profile_id, puzzle_id);

-- A profile's puzzle rating (Glicko-2).
CREATE TABLE puzzle_ratings (
    profile_id TEXT PRIMARY KEY,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- Each finished game the miner looked at, once across every node: the row is the claim.
CREATE TABLE puzzle_mined (
    room_id TEXT NOT NULL,
    game BIGINT NOT NULL,
    node TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game)
);
