-- Web Push and the lobby's missed pairings (issue 25). Portable SQL.

-- A browser's push subscription, made by a profile's "notify me": the push service's endpoint
-- (a capability URL: whoever knows it can post to that browser), the browser's P-256 key
-- (`p256dh`) and its authentication secret (`auth`), both base64url as the browser gives them.
-- A subscription the push service refuses with 404 or 410 is deleted.
CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX push_subscriptions_profile ON push_subscriptions (profile_id, created_at);

-- The server's own settings kept in the database: the VAPID key pair made on first start when
-- the operator gives none (`vapid_private_key`: the P-256 private scalar, base64url), so every
-- node signs with the same key and a browser's subscription survives a restart.
CREATE TABLE server_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- A game made from a seek whose seeker was not told at once (the node that kept his seek was
-- down, or his lobby page was closed): he is told (`paired`) when he next opens the lobby, once.
CREATE TABLE seek_pairings (
    profile_id TEXT NOT NULL,
    room_id TEXT NOT NULL,
    role TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (profile_id, room_id)
);
