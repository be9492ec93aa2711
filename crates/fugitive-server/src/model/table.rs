//! Around the table (issue 13): what the players bring to a room besides their moves: the seats'
//! display names and the chat between the two players.
//!
//! A name is the player's own words, shown to everyone and trusted for nothing: the server never
//! looks a seat up by it, never compares it, never puts it in a log line. It is stored with its
//! seat so a reconnect and a restart show it.
//!
//! The series: rematches in the same room keep a running score by seat, whichever role each
//! played, counted from the finished games' logs (so it is as durable as the moves), with an
//! optional "best of 3 / 5" chosen when the room is created.
//!
//! The chat holds only what the players wrote (or a one-tap message they chose): the server adds
//! nothing to it, so it can never carry hidden information out. Spectators read it only while
//! both players allow it.

use std::time::Duration;

use std::time::Instant;

use fugitive_core::{Game, Role};
use serde::Serialize;

use super::rating;
use super::seat::Seat;

/// The most characters (Unicode scalar values) a name may have.
pub const MAX_NAME_CHARS: usize = 24;

/// Why a name is refused (`bad_name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// More than [`MAX_NAME_CHARS`] characters.
    #[error("a name has at most 24 characters")]
    TooLong,
    /// A control character (a line break, a tab, U+0000…).
    #[error("a name may not contain control characters")]
    Control,
}

/// Checks a name as typed: surrounding white space is dropped, and an empty name is no name.
///
/// # Errors
/// [`NameError`] when it is too long or holds a control character; nothing is changed then.
pub fn check_name(name: &str) -> Result<Option<String>, NameError> {
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    let name = name.trim();
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong);
    }
    Ok((!name.is_empty()).then(|| name.to_string()))
}

/// The most characters a chat message may have.
pub const MAX_CHAT_CHARS: usize = 200;

/// How many of the newest chat messages a room keeps in memory and sends to a (re)joining socket.
pub const CHAT_HISTORY: usize = 100;

/// A burst of this many chat messages per seat, then one more every [`CHAT_REFILL`].
pub const CHAT_BURST: u32 = 5;

/// See [`CHAT_BURST`].
pub const CHAT_REFILL: Duration = Duration::from_secs(5);

/// The one-tap messages: an id each, which every client shows in its reader's language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quick {
    /// "Good luck!"
    GoodLuck,
    /// "Well played!"
    WellPlayed,
    /// "Thinking…"
    Thinking,
}

impl Quick {
    /// Every one-tap message.
    pub const ALL: [Quick; 3] = [Quick::GoodLuck, Quick::WellPlayed, Quick::Thinking];

    /// Its id, on the wire and in the database.
    pub fn id(self) -> &'static str {
        match self {
            Quick::GoodLuck => "good_luck",
            Quick::WellPlayed => "well_played",
            Quick::Thinking => "thinking",
        }
    }

    /// The one-tap message with this id.
    pub fn from_id(id: &str) -> Option<Quick> {
        Quick::ALL.into_iter().find(|q| q.id() == id)
    }
}

/// What a chat message says: typed text, or a one-tap message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatBody {
    /// The player's own words, checked by [`check_chat`].
    Text(String),
    /// A one-tap message.
    Quick(Quick),
}

/// Why a chat text is refused (`bad_chat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// Nothing but white space.
    #[error("a chat message may not be empty")]
    Empty,
    /// More than [`MAX_CHAT_CHARS`] characters.
    #[error("a chat message has at most 200 characters")]
    TooLong,
    /// A control character.
    #[error("a chat message may not contain control characters (it is one line of text)")]
    Control,
}

/// Checks a typed chat message: one line of 1–200 characters, white space around it dropped.
///
/// # Errors
/// [`ChatError`]; nothing is changed then.
pub fn check_chat(text: &str) -> Result<String, ChatError> {
    if text.chars().any(char::is_control) {
        return Err(ChatError::Control);
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(ChatError::Empty);
    }
    if text.chars().count() > MAX_CHAT_CHARS {
        return Err(ChatError::TooLong);
    }
    Ok(text.to_string())
}

/// One chat message as the room keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// 1, 2, 3, … within the room.
    pub number: u64,
    /// Who wrote it.
    pub seat: Seat,
    /// What it says.
    pub body: ChatBody,
    /// When (Unix ms).
    pub at: i64,
}

/// A seat's chat allowance: a token bucket of [`CHAT_BURST`] refilled one every [`CHAT_REFILL`].
#[derive(Clone, Copy, Debug)]
pub struct ChatBucket {
    tokens: u32,
    /// When it was last refilled; `None`: never used (full).
    last: Option<Instant>,
}

impl Default for ChatBucket {
    fn default() -> ChatBucket {
        ChatBucket { tokens: CHAT_BURST, last: None }
    }
}

impl ChatBucket {
    /// Takes one message's allowance at `now`; `false` when the seat writes too fast.
    pub fn take(&mut self, now: Instant) -> bool {
        let refills = match self.last {
            Some(last) => (now.saturating_duration_since(last).as_millis() / CHAT_REFILL.as_millis()) as u32,
            None => CHAT_BURST,
        };
        if self.tokens + refills >= CHAT_BURST {
            self.tokens = CHAT_BURST;
            self.last = Some(now);
        } else {
            self.tokens += refills;
            self.last = self.last.map(|last| last + CHAT_REFILL * refills);
        }
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        true
    }
}

/// A seated player's request about the table rather than the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableRequest {
    /// A new display name (`None` clears it).
    Name(Option<String>),
    /// A chat message.
    Chat(ChatBody),
    /// Whether this player lets spectators read the chat.
    ChatSpectators(bool),
}

/// A chat message on the wire (`docs/protocol.md`).
#[derive(Clone, Debug, Serialize)]
pub struct ChatWire<'a> {
    /// Its number in the room.
    pub n: u64,
    /// The role its writer plays in the current game.
    pub from: fugitive_core::Role,
    /// What was typed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// Or the one-tap message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quick: Option<Quick>,
    /// When (Unix ms).
    pub at: i64,
}

/// The longest turn clock: 7 days, for games played over days (issue 13).
pub const MAX_TURN_CLOCK_SECS: u64 = 7 * 24 * 3600;

/// The series lengths a room may be created with.
pub const BEST_OF: [u64; 2] = [3, 5];

/// The running score of a room's games, by seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Series {
    /// Games won by each seat, by seat index.
    pub wins: [u64; 2],
    /// "Best of n", or `None` for an open series.
    pub best_of: Option<u64>,
}

impl Series {
    /// The seat that has won the series: more than half of `best_of` games.
    pub fn winner(&self) -> Option<Seat> {
        let best_of = self.best_of?;
        Seat::ALL.into_iter().find(|seat| self.wins[seat.index()] * 2 > best_of)
    }

    /// Counts a game, once it is over, for the seat that won it (`fugitive_seat` played the
    /// Fugitive in it). An aborted game ([`rating::aborted`]: the loser's clock ran out before
    /// his first move) was won by nobody and counts for neither seat.
    pub fn count(&mut self, game: &Game, fugitive_seat: Seat) {
        let Some(outcome) = game.outcome().filter(|_| !rating::aborted(game)) else { return };
        let seat = if outcome.winner == Role::Fugitive { fugitive_seat } else { fugitive_seat.other() };
        self.wins[seat.index()] += 1;
    }
}

/// The series on the wire, under each seat's current role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SeriesStatus {
    /// Games won by the player now in each role, whichever role he played in them.
    pub wins: fugitive_core::ByRole<u64>,
    /// "Best of n", or `null`.
    pub best_of: Option<u64>,
    /// The role now played by the series' winner, once there is one.
    pub winner: Option<fugitive_core::Role>,
}

/// What the table keeps of a room, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// Each seat's name, by seat index.
    pub names: [Option<String>; 2],
    /// Whether each seat lets spectators read the chat, by seat index.
    pub chat_public: [bool; 2],
    /// The newest [`CHAT_HISTORY`] chat messages, oldest first.
    pub chat: Vec<ChatLine>,
    /// The number of the room's last chat message (0 for none).
    pub chat_last: u64,
    /// The score of the finished games.
    pub series: Series,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_any_script_up_to_24_characters() {
        assert_eq!(check_name("  Ada  "), Ok(Some("Ada".into())));
        assert_eq!(check_name(""), Ok(None));
        assert_eq!(check_name("   "), Ok(None));
        // 24 characters of any script, however many bytes they take.
        let long = "渡".repeat(24);
        assert_eq!(check_name(&long), Ok(Some(long.clone())));
        assert_eq!(check_name(&"é".repeat(25)), Err(NameError::TooLong));
        assert_eq!(check_name("Zoë 🦊 Ø"), Ok(Some("Zoë 🦊 Ø".into())));
    }

    #[test]
    fn chat_is_one_line_of_up_to_200_characters() {
        assert_eq!(check_chat("  gg  "), Ok("gg".into()));
        assert_eq!(check_chat("   "), Err(ChatError::Empty));
        assert_eq!(check_chat(&"ü".repeat(200)), Ok("ü".repeat(200)));
        assert_eq!(check_chat(&"ü".repeat(201)), Err(ChatError::TooLong));
        assert_eq!(check_chat("two\nlines"), Err(ChatError::Control));
        assert_eq!(Quick::from_id("well_played"), Some(Quick::WellPlayed));
        assert_eq!(Quick::from_id("I hold 17"), None);
    }

    #[test]
    fn the_chat_bucket_allows_a_burst_then_one_every_five_seconds() {
        let mut bucket = ChatBucket::default();
        let start = Instant::now();
        assert_eq!((0..10).filter(|_| bucket.take(start)).count(), CHAT_BURST as usize);
        assert!(bucket.take(start + CHAT_REFILL));
        assert!(!bucket.take(start + CHAT_REFILL));
        let later = start + CHAT_REFILL * 101;
        assert_eq!((0..10).filter(|_| bucket.take(later)).count(), CHAT_BURST as usize);
    }

    #[test]
    fn a_series_is_won_by_more_than_half() {
        let open = Series { wins: [7, 2], best_of: None };
        assert_eq!(open.winner(), None);
        assert_eq!(Series { wins: [1, 1], best_of: Some(3) }.winner(), None);
        assert_eq!(Series { wins: [1, 2], best_of: Some(3) }.winner(), Some(Seat::Guest));
        assert_eq!(Series { wins: [2, 2], best_of: Some(5) }.winner(), None);
        assert_eq!(Series { wins: [3, 1], best_of: Some(5) }.winner(), Some(Seat::Host));
    }

    #[test]
    fn control_characters_are_refused() {
        for bad in ["a\nb", "trailing\n", "a\tb", "nul\0", "esc\u{1b}[31m", "del\u{7f}", "c1\u{85}"] {
            assert_eq!(check_name(bad), Err(NameError::Control), "{bad:?}");
        }
    }
}
