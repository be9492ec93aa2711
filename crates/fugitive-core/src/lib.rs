//! The rules of Fugitive as a pure, deterministic state machine.
//!
//! A Fugitive lays a trail of face-down hideout cards from 0 towards 42; a Marshal guesses
//! numbers to uncover them. This crate is the authority on what is legal and on who may see
//! what. It has no I/O, no clock and no global RNG: the seed comes in with the [`Setup`].
//!
//! # Map
//! - [`Game`] (`game.rs`): the state and the rulebook's turn. One door in, [`Game::apply`]; one
//!   door out, [`Game::view`] ([`Game::time_out`] is the server clock's). [`Game::replay`]
//!   rebuilds a game from its setup and its record of [`Entry`]s: the accepted actions and
//!   a time out. `turn.rs` is the flow of a turn as a stack of steps through which draws and
//!   events pass.
//! - [`Phase`], [`Outcome`], [`Reason`] (`phase.rs`): where the game stands and how it ended.
//! - [`Action`], [`Entry`] and [`ActionError`] (`action.rs`): what a player does, what a
//!   game's record holds, and why an action was refused (each error names its rule, R1–R22 of
//!   `RULES.md`, and has a stable code); [`PhaseReason`] and [`ChoiceReason`] (`refusal.rs`),
//!   the typed reasons of two refusals, each with a stable code that clients translate.
//! - [`Event`] (`history.rs`): what happened, and [`Event::seen_by`] for what each viewer may know.
//! - [`LegalActions`] (`legal.rs`): every legal action of a role, compactly, derived once from
//!   what the player knows, whether read from the [`Game`] or from his [`View`]
//!   ([`View::legal_actions`]); agrees with [`Game::is_legal`]. [`LegalActions::sample`] is the
//!   random player.
//! - [`View`] (`view.rs`): the serializable view of the Fugitive, the Marshal or a spectator;
//!   [`View::during_play`] is the one definition of what a viewer may not see.
//! - [`Reach`] and [`can_place`] (`reach.rs`): how far above the card before it a hideout may
//!   lie (R9, R10, F1, M1), the one statement of that rule.
//! - What the public record says about the face-down hideouts: [`Evidence`] (`evidence.rs`),
//!   the rules read from a Marshal's or spectator's view; [`TrailCount`] (`trails.rs`), the
//!   trails that fit it; [`Candidates`] (`candidates.rs`, [`View::candidates`]), what each
//!   face-down position can be by the public rules alone, which the Marshal's aids show.
//! - Event variants (`events/`, `EVENTS.md` E1–E5; nothing there knows the game): [`EventCard`]
//!   (each card's id, icon and effect as primitives; the names and texts are the web client's
//!   translations), [`EventDeal`] and [`DeckCard`] (the set-up), [`Decision`] and [`Choice`]
//!   (pending decisions, the pass bonus of R11a included).
//! - [`Card`], [`Cards`] (`card.rs`); [`Deck`], [`Deal`], [`Seed`] (`deck.rs`); [`Trail`],
//!   [`Hideout`] (`trail.rs`); [`Role`], [`Viewer`], [`ByRole`] (`role.rs`); [`RuleOptions`],
//!   [`Setup`] (`rules.rs`).
//!
//! # Example
//! ```
//! use fugitive_core::{Action, Card, Cards, Deck, Game, Phase, Role, Setup, Viewer};
//!
//! let card = |n| Card::new(n).unwrap();
//! let mut game = Game::new(Setup::new(42u64));
//!
//! // The Fugitive opens with hideout 3 and ends his first turn (R6).
//! game.apply(Role::Fugitive, Action::Place { hideout: card(3), sprints: Cards::EMPTY })?;
//! game.apply(Role::Fugitive, Action::EndTurn)?;
//!
//! // The Marshal draws twice on her first turn (R8), then guesses 3.
//! game.apply(Role::Marshal, Action::Draw { deck: Deck::One })?;
//! game.apply(Role::Marshal, Action::Draw { deck: Deck::Two })?;
//! game.apply(Role::Marshal, Action::Guess { numbers: Cards::from(card(3)) })?;
//!
//! // She found the only hideout: the Marshal wins (R14).
//! assert_eq!(game.outcome().unwrap().winner, Role::Marshal);
//! assert_eq!(game.phase(), Phase::Over);
//!
//! // An illegal move is refused with the rule it breaks, and changes nothing.
//! let err = game.apply(Role::Fugitive, Action::Pass).unwrap_err();
//! assert_eq!(err.to_string(), "the game is over (R18)");
//!
//! // A spectator's view is plain serde data.
//! let json = serde_json::to_string(&game.view(Viewer::Spectator)).unwrap();
//! assert!(json.contains("all_hideouts_found"));
//! # Ok::<(), fugitive_core::ActionError>(())
//! ```
#![warn(missing_docs)]

mod action;
mod candidates;
mod card;
mod deck;
mod events;
mod evidence;
mod game;
mod history;
mod legal;
mod phase;
mod reach;
mod refusal;
mod role;
mod rules;
mod trail;
mod trails;
mod turn;
mod view;

pub use action::{Action, ActionError, Entry};
pub use candidates::{Candidates, PositionNumbers, RuledOut, Ruling, Unguessed};
pub use card::{Card, Cards, CardsIter};
pub use deck::{Deal, DealError, Deck, Seed};
pub use events::{Choice, Decision, DeckCard, EventCard, EventDeal, Icon, TrailEffect, TrailEvent};
pub use evidence::{Evidence, MAX_OPEN_GUESSES, PositionEvidence};
pub use game::{Game, ReplayError};
pub use history::Event;
pub use legal::{Blocked, GuessOptions, LegalActions, Placement, SprintOptions, Why};
pub use phase::{Outcome, Phase, Reason};
pub use reach::{Reach, can_place};
pub use refusal::{ChoiceReason, PhaseReason};
pub use role::{ByRole, Role, Viewer};
pub use rules::{EventVariant, OpeningHideouts, RuleOptions, Setup};
pub use trail::{Hideout, Trail};
pub use trails::{PositionTrails, TrailCount, TrailHasher};
pub use view::{DeckView, EventsView, HandView, TrailCard, View};
