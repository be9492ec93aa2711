-- Profiles without an account (issue 25). Portable SQL: SQLite and PostgreSQL.

-- A profile: its public id (its page is /@/{id}), the SHA-256 (hex) of its secret, which only its
-- browser's cookie holds, and its display name (the rules of a seat's name; NULL for none).
-- Deleting a profile keeps the row with secret_hash and name NULL and deleted_at set, so its
-- games stay, under "deleted player".
CREATE TABLE profiles (
    id TEXT PRIMARY KEY,
    secret_hash TEXT,
    name TEXT,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
);

-- The seats taken while a profile existed: "my games" follows the profile to a new device. The
-- seat's token is stored sealed with a key derived from the profile's secret (hex), so only a
-- request that bears the secret opens it; NULL once the profile is deleted.
CREATE TABLE profile_seats (
    room_id TEXT NOT NULL,
    seat BIGINT NOT NULL,
    profile_id TEXT NOT NULL,
    sealed_token TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (room_id, seat)
);
CREATE INDEX profile_seats_profile ON profile_seats (profile_id, at);

-- Moving a profile to another device: a transfer is a link and a short code, each stored as its
-- SHA-256 with the profile's secret sealed by it. Either works once within ten minutes; using
-- one deletes both (the rows of one transfer share transfer_id).
CREATE TABLE transfers (
    code_hash TEXT PRIMARY KEY,
    transfer_id TEXT NOT NULL,
    profile_id TEXT NOT NULL,
    sealed_secret TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX transfers_expires_at ON transfers (expires_at);
