-- Several server nodes on one PostgreSQL database (issue 11). Unused on SQLite (one node).
-- The action log stays the truth; these say who does what must happen once, and who is where.

-- What must happen once (a room's turn clock and computer opponent, "room:<id>"; expiry,
-- "expiry") is done by the node holding its lease. The holder renews it; once expires_at (Unix
-- ms, PostgreSQL's clock) has passed, any node may take it.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- The live nodes: each renews alive_until (Unix ms, PostgreSQL's clock) with its leases.
CREATE TABLE nodes (
    node TEXT PRIMARY KEY,
    alive_until BIGINT NOT NULL
);

-- Who of a room is connected to which node: whether each seat's player has a socket there (0 or
-- 1), and how many spectators. Another node adds the rows of the live nodes to its own.
CREATE TABLE presence (
    room_id TEXT NOT NULL,
    node TEXT NOT NULL,
    host BIGINT NOT NULL,
    guest BIGINT NOT NULL,
    spectators BIGINT NOT NULL,
    PRIMARY KEY (room_id, node)
);
