//! The event variants of `EVENTS.md` (E1–E5): the cards' data and effects (`card.rs`), where
//! they start (`deal.rs`) and the decisions they ask for (`decision.rs`; the pass bonus of R11a
//! asks one too). Nothing here knows the [`Game`](crate::Game): the game's turn (`turn.rs`)
//! runs the effects.

mod card;
mod deal;
mod decision;

pub(crate) use card::Effect;
pub use card::{EventCard, Icon, TrailEffect, TrailEvent};
pub use deal::{DeckCard, EventDeal};
pub use decision::{Choice, Decision};
