//! Around the table (issue 13): what the players bring to a room besides their moves. Today the
//! seats' display names.
//!
//! A name is the player's own words, shown to everyone and trusted for nothing: the server never
//! looks a seat up by it, never compares it, never puts it in a log line. It is stored with its
//! seat so a reconnect and a restart show it.

use uuid::Uuid;

use crate::db::{Db, DbError};
use crate::seat::Seat;

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

/// What the table keeps of a room, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// Each seat's name, by seat index.
    pub names: [Option<String>; 2],
}

/// Loads a room's table.
///
/// # Errors
/// On a database failure.
pub async fn load(db: &Db, room: Uuid) -> Result<Stored, DbError> {
    let rows: Vec<(i64, Option<String>)> = sqlx::query_as("SELECT seat, name FROM seats WHERE room_id = $1")
        .bind(room.to_string())
        .fetch_all(db.pool())
        .await?;
    let mut stored = Stored::default();
    for (seat, name) in rows {
        if let Some(seat) = Seat::from_index(seat) {
            stored.names[seat.index()] = name;
        }
    }
    Ok(stored)
}

/// Stores a seat's name (`None` clears it).
///
/// # Errors
/// On a database failure; then nothing was written.
pub async fn store_name(db: &Db, room: Uuid, seat: Seat, name: Option<&str>) -> Result<(), DbError> {
    sqlx::query("UPDATE seats SET name = $1 WHERE room_id = $2 AND seat = $3")
        .bind(name)
        .bind(room.to_string())
        .bind(seat.index() as i64)
        .execute(db.pool())
        .await?;
    Ok(())
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
    fn control_characters_are_refused() {
        for bad in ["a\nb", "trailing\n", "a\tb", "nul\0", "esc\u{1b}[31m", "del\u{7f}", "c1\u{85}"] {
            assert_eq!(check_name(bad), Err(NameError::Control), "{bad:?}");
        }
    }
}
