//! The rules of Fugitive as a pure, deterministic state machine.
//!
//! A Fugitive lays a trail of face-down hideout cards from 0 towards 42; a Marshal guesses
//! numbers to uncover them. This crate is the authority on what is legal and on who may see
//! what. It has no I/O, no clock and no global RNG: the seed comes in with the [`Setup`].
//!
//! # Map
//! - [`Game`] (`game.rs`): the state. One door in, [`Game::apply`]; one door out, [`Game::view`].
//!   [`Game::replay`] rebuilds a game from its setup and accepted actions.
//! - [`Action`] and [`ActionError`] (`action.rs`): what a player does, and why it was refused
//!   (each error names its rule, R1–R22 of `RULES.md`).
//! - [`Event`] (`event.rs`): what happened, and [`Event::seen_by`] for what each viewer may know.
//! - [`LegalActions`] (`legal.rs`): every legal action of a role, compactly; agrees with
//!   [`Game::is_legal`], and [`View::legal_actions`] finds the same from the player's own view.
//!   [`LegalActions::sample`] is the random player.
//! - [`View`] (`view.rs`): the serializable view of the Fugitive, the Marshal or a spectator.
//! - Event variants (`EVENTS.md`, E1–E5): [`EventCard`] (`event_card.rs`: each card's data and
//!   its effect as primitives), [`EventDeal`] and [`DeckCard`] (`event_deal.rs`: the set-up),
//!   [`Decision`] and [`Choice`] (`decision.rs`: pending decisions), and `turn.rs`, the flow of
//!   a turn as a stack of steps through which draws and events pass.
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
mod card;
mod decision;
mod deck;
mod event;
mod event_card;
mod event_deal;
mod game;
mod legal;
mod role;
mod rules;
mod trail;
mod turn;
mod view;

pub use action::{Action, ActionError};
pub use card::{Card, Cards, CardsIter};
pub use decision::{Choice, Decision};
pub use deck::{Deal, DealError, Deck, Seed};
pub use event::Event;
pub use event_card::{CardText, EventCard, Icon, Language, TrailEffect};
pub use event_deal::{DeckCard, EventDeal};
pub use game::{Game, Outcome, Phase, Reason, ReplayError};
pub use legal::{Blocked, GuessOptions, LegalActions, Placement, SprintOptions, Why};
pub use role::{ByRole, Role, Viewer};
pub use rules::{EventVariant, OpeningHideouts, RuleOptions, Setup};
pub use trail::{Hideout, Trail};
pub use turn::TrailEvent;
pub use view::{DeckView, EventsView, HandView, TrailCard, View};
