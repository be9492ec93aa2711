-- Ratings per role (issue 25): Glicko-2, as the Fugitive and as the Marshal. Portable SQL.

-- A profile's current rating in one role ('fugitive' or 'marshal').
CREATE TABLE ratings (
    profile_id TEXT NOT NULL,
    role TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    -- Rated games played in this role.
    games BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (profile_id, role)
);

-- Every rated game, written in the same transaction as the game's last action: the key makes a
-- game rated once, however often its last write is tried. Each side's rating before and after.
CREATE TABLE rated_games (
    room_id TEXT NOT NULL,
    game BIGINT NOT NULL,
    fugitive_profile TEXT NOT NULL,
    marshal_profile TEXT NOT NULL,
    winner TEXT NOT NULL,
    reason TEXT NOT NULL,
    fugitive_before DOUBLE PRECISION NOT NULL,
    fugitive_after DOUBLE PRECISION NOT NULL,
    marshal_before DOUBLE PRECISION NOT NULL,
    marshal_after DOUBLE PRECISION NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game)
);
CREATE INDEX rated_games_fugitive ON rated_games (fugitive_profile, at);
CREATE INDEX rated_games_marshal ON rated_games (marshal_profile, at);
