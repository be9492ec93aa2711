//! Helpers for the rule tests: hand-built deals, card shorthands and whole turns.
//!
//! Every deal here is built by hand so a test can say exactly which card lies where: the
//! Fugitive holds 1, 2, 3, 42 and five named cards; each deck holds the rest of its cards, a
//! few named ones on top and the others in ascending order below them.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use fugitive_core::{
    Action, ActionError, Card, Cards, Deal, Deck, Event, Game, Phase, PhaseReason, Role, RuleOptions,
};

/// The usual five extra cards: 4, 5, 6 from deck 1 and 15, 16 from deck 2, so the Fugitive
/// holds 1, 2, 3, 4, 5, 6, 15, 16, 42. Deck 1 is then 7–14, deck 2 is 17–28, deck 3 is 29–41.
pub const HAND: [u8; 5] = [4, 5, 6, 15, 16];

/// The card with this number.
pub fn card(n: u8) -> Card {
    Card::new(n).expect("cards are 0 to 42")
}

/// The set of these distinct cards.
pub fn cards(numbers: &[u8]) -> Cards {
    Cards::try_from(numbers).expect("distinct card numbers, 0 to 42")
}

/// The deck with this number.
pub fn deck(n: u8) -> Deck {
    Deck::try_from(n).expect("decks are 1, 2 and 3")
}

/// A deal where the Fugitive holds 1, 2, 3, 42 and `extra`, and each deck has `tops[i]` on top
/// (in that order) above its other cards in ascending order.
pub fn deal_with_tops(extra: &[u8], tops: [&[u8]; 3]) -> Deal {
    let fugitive_hand = cards(&[1, 2, 3, 42]).union(cards(extra));
    let decks = Deck::ALL.map(|d| {
        let top = cards(tops[d.index()]);
        let rest = d.cards().difference(fugitive_hand).difference(top);
        tops[d.index()].iter().map(|&n| card(n)).chain(rest).collect()
    });
    Deal { decks, fugitive_hand }
}

/// A deal where the Fugitive holds 1, 2, 3, 42 and `extra`, every deck in ascending order.
pub fn deal(extra: &[u8]) -> Deal {
    deal_with_tops(extra, [&[], &[], &[]])
}

/// A game with the default rules from [`deal`]`(extra)`.
pub fn game(extra: &[u8]) -> Game {
    game_with(RuleOptions::default(), deal(extra))
}

/// A game with these rules and this deal.
pub fn game_with(rules: RuleOptions, deal: Deal) -> Game {
    Game::from_deal(rules, deal).expect("the hand-built deal keeps R2 and R3")
}

/// Placing `hideout` over `sprints`.
pub fn place(hideout: u8, sprints: &[u8]) -> Action {
    Action::Place { hideout: card(hideout), sprints: cards(sprints) }
}

/// Guessing `numbers`.
pub fn guess(numbers: &[u8]) -> Action {
    Action::Guess { numbers: cards(numbers) }
}

/// Drawing from deck `n`.
pub fn draw(n: u8) -> Action {
    Action::Draw { deck: deck(n) }
}

/// Applies an action that must be accepted and returns its events.
#[track_caller]
pub fn play(game: &mut Game, role: Role, action: Action) -> Vec<Event> {
    match game.apply(role, action) {
        Ok(events) => events,
        Err(err) => panic!("{role} {action:?} was refused: {err}"),
    }
}

/// Applies an action that must be refused, checks that it changed nothing, and returns why.
#[track_caller]
pub fn refused(game: &mut Game, role: Role, action: Action) -> ActionError {
    let before = game.clone();
    let err = game.apply(role, action).expect_err("the action should be refused");
    assert_eq!(*game, before, "a refused {action:?} changed the game");
    assert!(!game.is_legal(role, &action), "is_legal accepts the refused {action:?}");
    err
}

/// Applies an action that must be refused as out of phase (see [`refused`]), and returns what
/// the player must do instead; its code is the reply's `reason`.
#[track_caller]
pub fn refused_now(game: &mut Game, role: Role, action: Action) -> PhaseReason {
    match refused(game, role, action) {
        ActionError::WrongPhase { reason, phase } => {
            assert_eq!(phase, game.phase(), "the refusal names the phase");
            reason
        }
        other => panic!("{role} {action:?} was refused as {other:?}, not as out of phase"),
    }
}

/// The lowest-numbered deck that still has cards.
pub fn lowest_deck(game: &Game) -> Option<Deck> {
    Deck::ALL.into_iter().find(|&d| !game.deck(d).is_empty())
}

/// How many cards are left in the three decks.
pub fn cards_in_decks(game: &Game) -> usize {
    Deck::ALL.iter().map(|&d| game.deck(d).len()).sum()
}

/// The Marshal's turn: she draws from the lowest-numbered non-empty deck as often as due, then
/// guesses `numbers`. Returns the guess's events.
#[track_caller]
pub fn marshal_turn(game: &mut Game, numbers: &[u8]) -> Vec<Event> {
    while let Phase::Draw { role: Role::Marshal, .. } = game.phase() {
        let deck = lowest_deck(game).expect("a due draw has a card to draw");
        play(game, Role::Marshal, Action::Draw { deck });
    }
    play(game, Role::Marshal, guess(numbers))
}

/// The Fugitive's later turn: he draws from deck `n`, then takes `action`. Returns its events.
#[track_caller]
pub fn fugitive_turn(game: &mut Game, n: u8, action: Action) -> Vec<Event> {
    play(game, Role::Fugitive, draw(n));
    play(game, Role::Fugitive, action)
}

/// The numbers of the face-down hideouts, in trail order.
pub fn hidden(game: &Game) -> Vec<u8> {
    game.trail().hidden().map(|(_, h)| h.card.number()).collect()
}
