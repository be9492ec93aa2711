//! How far above the card before it a hideout may lie (R9, R10), by the trail event on its
//! space (E4: F1 Safe House, M1 Roadblock). One rule, read by the game's check, the legal
//! actions, the public candidates ([`View::candidates`](crate::View::candidates)) and the
//! computer's deduction, so that they cannot disagree.

use crate::card::{Card, Cards};
use crate::events::TrailEffect;

/// The reach rule of one trail space: a hideout may lie [`Reach::free`] above the card before
/// it, more with sprint cards under it where they are allowed.
///
/// # Examples
/// ```
/// use fugitive_core::{Reach, TrailEffect};
///
/// let plain = Reach::on(None);
/// assert_eq!((plain.free(), plain.with(4)), (3, 7));
/// assert_eq!(Reach::on(Some(TrailEffect::SafeHouse)).with(1), 6);
/// // No sprint cards on a Roadblock space: 3 above at most, whatever lies under it.
/// let roadblock = Reach::on(Some(TrailEffect::Roadblock));
/// assert_eq!((roadblock.allows_sprints(), roadblock.with(4)), (false, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reach {
    free: u8,
    sprints: bool,
}

impl Reach {
    /// The rule of the second space of the Fugitive's first turn (R6), the only one
    /// [`can_place`] asks about before it is played: no event is drawn before his first turn
    /// ends, so it has none.
    pub const OPENING: Reach = Reach::on(None);

    /// The rule of a space with this trail event, if any: 3 above (R9), 5 on an F1 Safe House
    /// space, and no sprint cards on an M1 Roadblock space.
    pub const fn on(space: Option<TrailEffect>) -> Reach {
        match space {
            None => Reach { free: 3, sprints: true },
            Some(TrailEffect::SafeHouse) => Reach { free: 5, sprints: true },
            Some(TrailEffect::Roadblock) => Reach { free: 3, sprints: false },
        }
    }

    /// How far above the card before it a hideout may lie without sprint cards.
    pub const fn free(self) -> u8 {
        self.free
    }

    /// Whether sprint cards may lie under the hideout placed here (not on M1 Roadblock).
    pub const fn allows_sprints(self) -> bool {
        self.sprints
    }

    /// The most a hideout may lie above the card before it with sprint cards worth `sprint`
    /// under it (R9): sprint cards a Roadblock space does not allow add nothing.
    pub const fn with(self, sprint: u8) -> u8 {
        if self.sprints { self.free.saturating_add(sprint) } else { self.free }
    }

    /// The sprint value a hideout `distance` above the card before it needs (0 within
    /// [`Reach::free`]).
    pub const fn need(self, distance: u8) -> u8 {
        distance.saturating_sub(self.free)
    }
}

/// Whether `hand` holds a hideout that may be placed after `last` on a space of `reach`,
/// sprinting with every other card of the hand but 42 (R9–R11): what R6's `exactly_two` asks
/// of a first placement.
pub fn can_place(hand: Cards, last: Card, reach: Reach) -> bool {
    let spare = hand.without(Card::ESCAPE).sprint_value();
    hand.iter().any(|h| {
        let own = if h == Card::ESCAPE { 0 } else { h.sprint_value() };
        h > last && h.number() - last.number() <= reach.with(spare - own)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(numbers: &[u8]) -> Cards {
        numbers.iter().map(|&n| Card::new(n).unwrap()).collect()
    }

    #[test]
    fn r9_needs_sprint_beyond_the_free_reach() {
        assert_eq!(Reach::on(None).need(3), 0);
        assert_eq!(Reach::on(None).need(6), 3);
        // E4: F1 Safe House.
        assert_eq!(Reach::on(Some(TrailEffect::SafeHouse)).need(6), 1);
    }

    #[test]
    fn r6_can_place_sprints_with_the_rest_of_the_hand_but_42() {
        let last = Card::new(3).unwrap();
        // 9 is 6 above 3: 4 (+2) and 5 (+1) make 3.
        assert!(can_place(cards(&[4, 5, 9]), last, Reach::on(None)));
        // 42 is never a sprint card (R11): 9 alone with 42 is out of reach.
        assert!(!can_place(cards(&[9, 42]), last, Reach::on(None)));
        // M1 Roadblock: no sprint cards at all. 8 is 5 above 3: 10 and 12 would make it.
        assert!(can_place(cards(&[8, 10, 12]), last, Reach::on(None)));
        assert!(!can_place(cards(&[8, 10, 12]), last, Reach::on(Some(TrailEffect::Roadblock))));
    }
}
