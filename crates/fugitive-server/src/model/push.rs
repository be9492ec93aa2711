//! What a Web Push notification tells (issue 25): the record the room machine and the lobby hand
//! to `push.rs`, and its JSON payload, which the service worker (`web/sw.js`) turns into a
//! notification in the reader's language and opens the room on a click.

use serde::Serialize;
use uuid::Uuid;

/// Why a player is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// It became this player's turn.
    Turn,
    /// The game ended and this player won.
    Won,
    /// The game ended and this player lost.
    Lost,
    /// The game was aborted (a side never made its first move): nobody won, it is unrated.
    Aborted,
    /// Someone took this player's seek: the game waits in `room`.
    Paired,
}

/// One notification: `{"kind": "turn", "room": "…", "url": "/room/…"}` on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Why.
    pub kind: Kind,
    /// The room to open.
    pub room: Uuid,
}

impl Notice {
    /// The payload the push service carries (encrypted) to the browser.
    pub fn payload(&self) -> Vec<u8> {
        serde_json::json!({
            "kind": self.kind,
            "room": self.room.to_string(),
            "url": format!("/room/{}", self.room),
        })
        .to_string()
        .into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_names_the_kind_and_the_room_to_open() {
        let room = Uuid::nil();
        let payload: serde_json::Value =
            serde_json::from_slice(&Notice { kind: Kind::Turn, room }.payload()).unwrap();
        assert_eq!(payload["kind"], "turn");
        assert_eq!(payload["url"], format!("/room/{room}"));
    }
}
