//! The Marshal's deduction and computer players for Fugitive.
//!
//! Every function here reads one role's view, never the [`Game`](fugitive_core::Game): the
//! bots and the deduction take a [`MarshalView`] or a [`FugitiveView`], which can only be made
//! from that role's [`View`](fugitive_core::View) (anything else in it is blanked).
//!
//! # Map
//! - [`MarshalView`], [`FugitiveView`] (`view.rs`): a role's view, and its legal actions.
//! - [`Deduction`] (`deduction.rs`, `worlds.rs`): the Marshal's notepad, solved exactly — which
//!   numbers each face-down hideout can still be, and in how many complete worlds (trails,
//!   hidden sprint cards, which draw each card was) that fit the evidence.
//! - [`MarshalBot`] (`marshal.rs`) and [`FugitiveBot`] (`fugitive.rs`): the computer players,
//!   at each [`Level`]; [`Level::ratings`] (`ladder.rs`): each level's measured Glicko-2 rating
//!   per role.
//! - [`puzzle`]: positions of a played game where one answer is clearly best (issue 26).
//! - [`analyse`] (`analysis.rs`): a finished game's moves marked against the notepad, with
//!   each player's accuracy and a win chance from playouts of the `hard` bots.
//! - [`play_match`] (`sim.rs`): one bot-vs-bot game, for `fugitive-sim` and the tests.
//!
//! The deduction is exact for the base game and with every event variant (but for the oldest
//! of more than 32 open wrong guesses, states past its work budget, and the rare event states
//! where a card he put back is drawn again or seen, where it gives the trail count, sound: the
//! true trail is always counted; see `deduction.rs`, `facts.rs`). The
//! bots answer every event's pending decision, on the server as in `fugitive-sim --events`.
//!
//! A bot takes its role's view; the whole game does not fit:
//! ```compile_fail
//! use fugitive_ai::{Level, MarshalBot};
//! use fugitive_core::{Game, Setup};
//!
//! let game = Game::new(Setup::new(7u64));
//! MarshalBot::new(Level::Hard, 1).act(&game); // expected `&MarshalView`, found `&Game`
//! ```
//!
//! # Example
//! ```
//! use fugitive_ai::{Deduction, FugitiveBot, Level, MarshalBot, MarshalView, play_match};
//! use fugitive_core::{Game, Setup};
//!
//! let result = play_match(Setup::new(7u64), Level::Easy, Level::Hard, 1);
//! assert!(result.outcome.is_some());
//!
//! let game = Game::new(Setup::new(7u64));
//! let deduction = Deduction::of(&MarshalView::of(&game));
//! // Nothing placed yet: the worlds are his deals, 3 of deck 1's 11 cards and 2 of deck 2's 14.
//! assert_eq!(deduction.worlds(), 165 * 91);
//! ```
#![warn(missing_docs)]

mod analysis;
mod deduction;
mod facts;
mod fugitive;
mod ladder;
mod marshal;
pub mod puzzle;
mod sim;
mod view;
mod world;
mod worlds;

pub use analysis::{Analysis, BestGuess, Estimate, Mark, MoveAnalysis, Playouts, analyse};
pub use deduction::{Candidate, Deduction, Joint, PositionCandidates};
pub use fugitive::{Budget, DEFAULT_ROLLOUTS, FugitiveBot};
pub use ladder::Ratings;
pub use marshal::MarshalBot;
pub use sim::{MatchResult, play_bots, play_match};
pub use view::{FugitiveView, Level, LevelError, MarshalView, WrongViewer};
