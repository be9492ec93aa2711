-- Fugitive Online: rooms, their two seats, their games and each game's accepted actions.
-- Portable SQL: the same file runs on SQLite and PostgreSQL. Times are Unix milliseconds.

CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    -- JSON RuleOptions for every game of the room.
    rules TEXT NOT NULL,
    -- Seconds per turn, NULL when the room has no turn clock.
    turn_clock_secs BIGINT,
    -- SHA-256 (hex) of the invitation secret; NULL once the invited seat is claimed.
    invite_hash TEXT,
    created_at BIGINT NOT NULL,
    -- Last accepted action, claim or new game: idle unfinished rooms expire from here.
    touched_at BIGINT NOT NULL
);

-- Seat 0 is the creator's, seat 1 the invited player's. The token is stored only as a hash.
CREATE TABLE seats (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    seat BIGINT NOT NULL,
    token_hash TEXT,
    -- When the seat was claimed: a turn clock runs only once both seats are.
    claimed_at BIGINT,
    PRIMARY KEY (room_id, seat)
);

-- One row per game of a room, numbered from 1: the whole setup of the game.
CREATE TABLE games (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    game BIGINT NOT NULL,
    -- 64 hex digits; never sent to a client before the game is over (R4, R18).
    seed TEXT NOT NULL,
    rules TEXT NOT NULL,
    -- Which seat (0 or 1) plays the Fugitive in this game.
    fugitive_seat BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT,
    PRIMARY KEY (room_id, game)
);

-- The event log: every accepted action, written before anyone is told of it.
CREATE TABLE actions (
    room_id TEXT NOT NULL,
    game BIGINT NOT NULL,
    -- 0, 1, 2, … within the game.
    number BIGINT NOT NULL,
    role TEXT NOT NULL,
    -- JSON Action.
    action TEXT NOT NULL,
    -- The seat and client seq that sent it; NULL for the server's turn clock.
    seat BIGINT,
    client_seq BIGINT,
    at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game, number),
    FOREIGN KEY (room_id, game) REFERENCES games (room_id, game)
);

CREATE INDEX rooms_touched_at ON rooms (touched_at);
