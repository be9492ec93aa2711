//! Seeks and quick pairing (issue 25), pure: what a seek may ask for, the pools of quick
//! pairing, and which two waiting players a pool pairs, widening the accepted rating gap the
//! longer they wait.

use fugitive_core::{EventVariant, Role, RuleOptions};
use serde::{Deserialize, Serialize};

/// The most open seeks a profile may have.
pub const MAX_SEEKS: usize = 3;

/// From this many seconds per move, a game is by correspondence: its seek lives 7 days
/// instead of dying with its seeker's last lobby socket.
pub const CORRESPONDENCE_SECS: u64 = 86_400;

/// How long a correspondence seek lives.
pub const CORRESPONDENCE_SEEK_MS: i64 = 7 * 24 * 3600 * 1000;

/// The role a seeker plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wanted {
    /// The Fugitive.
    Fugitive,
    /// The Marshal.
    Marshal,
    /// Either, drawn when the seek is taken.
    Random,
}

impl Wanted {
    /// Its wire name.
    pub fn name(self) -> &'static str {
        match self {
            Wanted::Fugitive => "fugitive",
            Wanted::Marshal => "marshal",
            Wanted::Random => "random",
        }
    }

    /// The role of that name.
    pub fn from_name(name: &str) -> Option<Wanted> {
        [Wanted::Fugitive, Wanted::Marshal, Wanted::Random].into_iter().find(|w| w.name() == name)
    }

    /// The seeker's role, `coin` deciding a random one.
    pub fn resolve(self, coin: bool) -> Role {
        match self {
            Wanted::Fugitive => Role::Fugitive,
            Wanted::Marshal => Role::Marshal,
            Wanted::Random if coin => Role::Fugitive,
            Wanted::Random => Role::Marshal,
        }
    }
}

/// A seek as asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekRequest {
    /// The role the seeker plays.
    pub role: Wanted,
    /// The rules.
    #[serde(default)]
    pub rules: RuleOptions,
    /// Seconds per move: a seek always has a clock.
    pub turn_clock_secs: u64,
    /// Rated or casual.
    pub rated: bool,
}

/// Why a seek is refused (`bad_seek`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeekError {
    /// The clock is outside 1 s to 7 days.
    #[error("turn_clock_secs is 1 to 604800 (7 days)")]
    Clock,
}

/// The longest turn clock, as for a room.
pub const MAX_TURN_CLOCK_SECS: u64 = 604_800;

/// Checks a seek.
///
/// # Errors
/// [`SeekError`] says what is wrong.
pub fn check(request: &SeekRequest) -> Result<(), SeekError> {
    if !(1..=MAX_TURN_CLOCK_SECS).contains(&request.turn_clock_secs) {
        return Err(SeekError::Clock);
    }
    Ok(())
}

/// Whether a game with this clock is by correspondence.
pub fn correspondence(turn_clock_secs: u64) -> bool {
    turn_clock_secs >= CORRESPONDENCE_SECS
}

/// A quick-pairing pool: a common game, rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Its id on the wire.
    pub id: &'static str,
    /// Its rules.
    pub rules: RuleOptions,
    /// Seconds per move.
    pub turn_clock_secs: u64,
}

/// The pools, in the order the lobby shows their buttons.
pub fn pools() -> [Pool; 3] {
    let base = RuleOptions::default();
    let events = RuleOptions { events: EventVariant::Random, ..RuleOptions::default() };
    [
        Pool { id: "base_5min", rules: base, turn_clock_secs: 300 },
        Pool { id: "base_day", rules: base, turn_clock_secs: 86_400 },
        Pool { id: "events_5min", rules: events, turn_clock_secs: 300 },
    ]
}

/// The pool with this id.
pub fn pool(id: &str) -> Option<Pool> {
    pools().into_iter().find(|p| p.id == id)
}

/// A player waiting in a pool: their ratings in both roles and since when they wait (ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Waiter<K> {
    /// Who (a socket, a profile: the caller's key).
    pub key: K,
    /// The profile: never paired with itself.
    pub profile: String,
    /// Rating as the Fugitive and as the Marshal.
    pub ratings: [f64; 2],
    /// When they joined the pool (Unix ms).
    pub since: i64,
}

/// The rating gap accepted after waiting `waited_ms`: 100 at once, 50 more every 5 seconds,
/// without limit after a minute.
pub fn accepted_gap(waited_ms: i64) -> f64 {
    if waited_ms >= 60_000 {
        return f64::INFINITY;
    }
    100.0 + 50.0 * (waited_ms.max(0) / 5_000) as f64
}

/// The first pair a pool makes at `now`, oldest waiter first: `(i, j, role of i)`, the roles
/// chosen so the two ratings of the roles they take are closest; both must accept the gap
/// (each by his own wait).
pub fn pair<K>(waiting: &[Waiter<K>], now: i64) -> Option<(usize, usize, Role)> {
    for i in 0..waiting.len() {
        for j in i + 1..waiting.len() {
            let (a, b) = (&waiting[i], &waiting[j]);
            if a.profile == b.profile {
                continue;
            }
            // a Fugitive vs b Marshal, or the other way round.
            let gaps = [(a.ratings[0] - b.ratings[1]).abs(), (a.ratings[1] - b.ratings[0]).abs()];
            let (gap, role) =
                if gaps[0] <= gaps[1] { (gaps[0], Role::Fugitive) } else { (gaps[1], Role::Marshal) };
            let accepted = accepted_gap(now - a.since).min(accepted_gap(now - b.since));
            if gap <= accepted {
                return Some((i, j, role));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiter(key: u32, profile: &str, fugitive: f64, marshal: f64, since: i64) -> Waiter<u32> {
        Waiter { key, profile: profile.into(), ratings: [fugitive, marshal], since }
    }

    #[test]
    fn a_pool_pairs_close_ratings_at_once_and_far_ones_after_a_wait() {
        // a as the Marshal (1500) against b as the Fugitive (1550) is the closer pair: 50.
        let near = [waiter(1, "a", 1500.0, 1500.0, 0), waiter(2, "b", 1550.0, 1580.0, 0)];
        assert_eq!(pair(&near, 0), Some((0, 1, Role::Marshal)));
        let far = [waiter(1, "a", 1500.0, 1500.0, 0), waiter(2, "b", 1800.0, 1800.0, 0)];
        assert_eq!(pair(&far, 0), None);
        assert_eq!(pair(&far, 19_999), None);
        assert_eq!(pair(&far, 20_000), Some((0, 1, Role::Fugitive)));
        // Both must have waited: one who just came accepts only 100.
        let late = [waiter(1, "a", 1500.0, 1500.0, 0), waiter(2, "b", 1800.0, 1800.0, 50_000)];
        assert_eq!(pair(&late, 50_000), None);
    }

    #[test]
    fn the_roles_follow_the_closer_ratings_and_nobody_plays_himself() {
        // a is strong as the Marshal, b as the Fugitive: a takes the Marshal.
        let w = [waiter(1, "a", 1200.0, 1700.0, 0), waiter(2, "b", 1650.0, 1300.0, 0)];
        assert_eq!(pair(&w, 0), Some((0, 1, Role::Marshal)));
        let same = [waiter(1, "a", 1500.0, 1500.0, 0), waiter(2, "a", 1500.0, 1500.0, 0)];
        assert_eq!(pair(&same, 0), None);
    }

    #[test]
    fn a_seek_has_a_clock_of_at_most_seven_days() {
        let ok = SeekRequest {
            role: Wanted::Random,
            rules: RuleOptions::default(),
            turn_clock_secs: 300,
            rated: true,
        };
        assert_eq!(check(&ok), Ok(()));
        assert_eq!(check(&SeekRequest { turn_clock_secs: 0, ..ok }), Err(SeekError::Clock));
        assert_eq!(check(&SeekRequest { turn_clock_secs: 604_801, ..ok }), Err(SeekError::Clock));
        assert!(correspondence(86_400) && !correspondence(300));
        assert_eq!(pool("base_day").unwrap().turn_clock_secs, 86_400);
    }
}
