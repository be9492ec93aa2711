-- Chat between the two players (issue 13): their own words, or a one-tap message. Kept with the
-- room so a reconnect or a restart shows it; deleted with the room.
CREATE TABLE chat (
    room_id TEXT NOT NULL,
    -- 1, 2, 3, … within the room.
    number BIGINT NOT NULL,
    -- The seat (0 or 1) that wrote it.
    seat BIGINT NOT NULL,
    -- What was typed, or NULL for a one-tap message.
    text TEXT,
    -- The one-tap message's id ("good_luck", "well_played", "thinking"), or NULL.
    quick TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (room_id, number)
);

-- Whether the seat's player lets spectators read the chat (they do only when both do): 1 or NULL.
ALTER TABLE seats ADD COLUMN chat_public BIGINT;
