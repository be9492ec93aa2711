//! Worlds for the `hard` Fugitive's search: whole games that agree with everything his view
//! shows, the cards he cannot see dealt at random, event cards included.
//!
//! What he can infer of the event deck (`EVENTS.md`): the variant (from the rules), how many
//! event cards or Catchup placeholders each deck started with (2, or none), which of them have
//! been drawn from which deck and when (every event drawn is shown to everyone, E2), which
//! cards of each pile have been drawn (they came off its top, in order) and so which are left,
//! the card he looked at with N5 Town Gossip, and the cards that went to the bottom of a deck
//! (F4, N6, N5). Everything else is dealt at random: the order of the undrawn cards, which of
//! the unseen events are in the decks (Random, Helpful), the Marshal's hand and which of her
//! cards she sent to the bottom.
//!
//! A sampled world is replayed action by action from his view's history and kept only if the
//! Fugitive's view of it is his view, byte for byte (R22): a world never contradicts him.

use std::collections::VecDeque;

use fugitive_core::{
    Action, Card, Cards, Choice, Deal, Decision, Deck, DeckCard, Event, EventCard, EventDeal, EventVariant,
    Game, Icon, Phase, Role, Viewer,
};
use rand::Rng;
use rand::seq::SliceRandom;

use crate::view::FugitiveView;

/// A card of a deck as he can follow it: one of the cards the deck started with (by its index
/// in the starting deck), or a card of his own hand sent to the bottom (F4 is hers, N6 either's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Start(usize),
    His(Card),
}

/// What he knows of one card a deck started with.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The card, once he has seen it (drawn by him, an event shown to all, looked at with N5).
    card: Option<DeckCard>,
    /// The Marshal drew it without an event being shown: a hideout card.
    hideout: bool,
}

/// The decks as he can follow them through the history.
struct Decks {
    slots: [Vec<Slot>; 3],
    queues: [VecDeque<Entry>; 3],
    /// The Marshal's cards by the deck they came from.
    hers: [Vec<Entry>; 3],
    /// The cards she sent to the bottom (F4, N6), in order.
    returned: Vec<(usize, Entry)>,
    /// Cards of the starting decks whose place he knows.
    seen: Cards,
}

/// How many event cards or placeholders each deck starts with in `variant`.
fn events_per_deck(variant: EventVariant) -> usize {
    match variant {
        EventVariant::Off | EventVariant::Discovery => 0,
        EventVariant::Random
        | EventVariant::HelpfulFugitive
        | EventVariant::HelpfulMarshal
        | EventVariant::Catchup => 2,
    }
}

/// How many hideout cards each deck starts with (R2, R3: less the Fugitive's five).
const HIDEOUTS: [usize; 3] = [8, 12, 13];

impl Decks {
    fn new(variant: EventVariant) -> Decks {
        let extra = events_per_deck(variant);
        let slots = HIDEOUTS.map(|n| vec![Slot::default(); n + extra]);
        let queues = HIDEOUTS.map(|n| (0..n + extra).map(Entry::Start).collect());
        Decks { slots, queues, hers: Default::default(), returned: Vec::new(), seen: Cards::EMPTY }
    }

    /// The top card of deck `d` is `card`.
    fn learn(&mut self, d: usize, entry: Entry, card: DeckCard) -> Option<()> {
        match entry {
            Entry::His(own) => (card == DeckCard::Hideout(own)).then_some(()),
            Entry::Start(i) => {
                let slot = &mut self.slots[d][i];
                match (slot.card, card) {
                    (Some(known), _) => (known == card).then_some(()),
                    (None, DeckCard::Hideout(c)) => {
                        if Deck::of(c)?.index() != d || self.seen.contains(c) {
                            return None;
                        }
                        self.seen.insert(c);
                        slot.card = Some(card);
                        Some(())
                    }
                    (None, _) if slot.hideout => None,
                    (None, _) => {
                        slot.card = Some(card);
                        Some(())
                    }
                }
            }
        }
    }

    fn pop(&mut self, deck: Deck) -> Option<Entry> {
        self.queues[deck.index()].pop_front()
    }

    /// Follows one entry of his history.
    fn follow(&mut self, event: &Event, rng: &mut impl Rng) -> Option<()> {
        match *event {
            Event::Drew { role: Role::Fugitive, deck, card } => {
                let entry = self.pop(deck)?;
                self.learn(deck.index(), entry, DeckCard::Hideout(card?))?;
            }
            Event::Drew { role: Role::Marshal, deck, .. } => {
                let entry = self.pop(deck)?;
                match entry {
                    Entry::Start(i) => {
                        let slot = &mut self.slots[deck.index()][i];
                        if slot.card.is_some_and(|c| c.hideout().is_none()) {
                            return None;
                        }
                        slot.hideout = true;
                    }
                    Entry::His(_) => {}
                }
                self.hers[deck.index()].push(entry);
            }
            Event::EventDrawn { deck: Some(deck), card, .. } => {
                let entry = self.pop(deck)?;
                self.learn(deck.index(), entry, DeckCard::Event(card))?;
            }
            Event::CatchupDrawn { deck, .. } => {
                let entry = self.pop(deck)?;
                self.learn(deck.index(), entry, DeckCard::Placeholder)?;
            }
            Event::ReturnedToDeck { role: Role::Fugitive, deck, card } => {
                self.queues[deck.index()].push_back(Entry::His(card?));
            }
            Event::ReturnedToDeck { role: Role::Marshal, deck, .. } => {
                // One of her cards from that deck, which one he cannot tell.
                let hers = &mut self.hers[deck.index()];
                if hers.is_empty() {
                    return None;
                }
                let entry = hers.swap_remove(rng.random_range(0..hers.len()));
                self.queues[deck.index()].push_back(entry);
                self.returned.push((deck.index(), entry));
            }
            Event::Peeked { role: Role::Fugitive, deck, card } => {
                let entry = *self.queues[deck.index()].front()?;
                self.learn(deck.index(), entry, card?)?;
            }
            Event::MovedToBottom { deck, moved: true } => {
                let entry = self.pop(deck)?;
                self.queues[deck.index()].push_back(entry);
            }
            _ => {}
        }
        Some(())
    }
}

/// Looks at each of the Marshal's draws and guesses in a sampled world: the game before it,
/// and the action.
pub(crate) type Judge<'a> = dyn FnMut(&Game, Action) + 'a;

/// A whole game agreeing with the Fugitive's view, or `None` when this draw of the unseen
/// cards contradicts it (then draw again). `evidence`, if given, adds up `judge` for each of
/// the Marshal's draws and guesses as they are replayed (the game before her action, and it).
pub(crate) fn sample(
    view: &FugitiveView,
    rng: &mut impl Rng,
    mut judge: Option<&mut Judge<'_>>,
) -> Option<Game> {
    let v = view.view();
    let variant = v.rules.events;
    let mut decks = Decks::new(variant);
    let mut piles: [Vec<EventCard>; 3] = Default::default();
    let mut his_returned = Cards::EMPTY;
    for event in &v.history {
        decks.follow(event, rng)?;
        match *event {
            Event::EventDrawn { deck: None, card, .. } => {
                let pile = if variant == EventVariant::Catchup { card.icon().index() } else { 0 };
                piles[pile].push(card);
            }
            Event::ReturnedToDeck { role: Role::Fugitive, card, .. } => {
                his_returned.insert(card?);
            }
            _ => {}
        }
    }

    // His starting hand: every card he has held, less those he drew from the starting decks.
    let mut held = view.hand().union(his_returned);
    for t in v.trail.iter().skip(1) {
        held = held.union(t.sprints.unwrap_or_default()).union(t.card.into_iter().collect());
    }
    let start = held.difference(decks.seen);

    // The unseen cards of each deck, and the unseen events, dealt at random.
    let events_left = event_pool(variant, &decks, &piles);
    let mut unseen_events = events_left.clone();
    unseen_events.shuffle(rng);
    let mut deal_decks: [Vec<Card>; 3] = Default::default();
    let mut in_decks: [Vec<(usize, DeckCard)>; 3] = Default::default();
    for deck in Deck::ALL {
        let d = deck.index();
        let mut hideouts: Vec<Card> = deck.cards().difference(start).difference(decks.seen).iter().collect();
        hideouts.shuffle(rng);
        let slots = &mut decks.slots[d];
        // Her draws first: they are hideout cards.
        for slot in slots.iter_mut().filter(|s| s.card.is_none() && s.hideout) {
            slot.card = Some(DeckCard::Hideout(hideouts.pop()?));
        }
        let known_events = slots.iter().filter(|s| s.card.is_some_and(|c| c.hideout().is_none())).count();
        let events = events_per_deck(variant).checked_sub(known_events)?;
        let mut rest: Vec<DeckCard> = hideouts.into_iter().map(DeckCard::Hideout).collect();
        for _ in 0..events {
            rest.push(match variant {
                EventVariant::Catchup => DeckCard::Placeholder,
                _ => DeckCard::Event(unseen_events.pop()?),
            });
        }
        rest.shuffle(rng);
        for slot in slots.iter_mut().filter(|s| s.card.is_none()) {
            slot.card = Some(rest.pop()?);
        }
        if !rest.is_empty() {
            return None;
        }
        for (i, slot) in slots.iter().enumerate() {
            match slot.card? {
                DeckCard::Hideout(card) => deal_decks[d].push(card),
                other => in_decks[d].push((i, other)),
            }
        }
    }
    let drawn = piles.each_ref().map(Vec::len);
    let piles = match variant {
        EventVariant::Discovery => {
            [with_rest(&piles[0], EventCard::ALL.into_iter(), rng), Vec::new(), Vec::new()]
        }
        EventVariant::Catchup => {
            [0, 1, 2].map(|i| with_rest(&piles[i], EventCard::with_icon(Icon::ALL[i]), rng))
        }
        _ => Default::default(),
    };
    if let Some(events) = &v.events {
        if (0..3).any(|i| events.piles[i] + drawn[i] != piles[i].len()) {
            return None;
        }
    }
    let card_of = |(d, entry): (usize, Entry)| match entry {
        Entry::His(card) => Some(card),
        Entry::Start(i) => decks.slots[d][i].card?.hideout(),
    };
    let mut returned: Vec<Card> = decks.returned.iter().map(|&r| card_of(r)).collect::<Option<_>>()?;
    returned.reverse();

    let deal = Deal { decks: deal_decks, fugitive_hand: start };
    let mut game = Game::from_deal_with_events(v.rules, deal, EventDeal { in_decks, piles }).ok()?;
    let mut next = 0;
    while next < v.history.len() {
        let role = game.to_move()?;
        let action = action_of(game.phase(), &v.history[next], &mut returned)?;
        if let (Some(judge), Role::Marshal, Action::Draw { .. } | Action::Guess { .. }) =
            (judge.as_deref_mut(), role, action)
        {
            judge(&game, action);
        }
        game.apply(role, action).ok()?;
        next = game.history().len();
    }
    (game.view(Viewer::Fugitive) == *v).then_some(game)
}

/// The cards of a pile already drawn (its top, in order), then the rest of `all` shuffled.
fn with_rest(
    drawn: &[EventCard],
    all: impl Iterator<Item = EventCard>,
    rng: &mut impl Rng,
) -> Vec<EventCard> {
    let mut rest: Vec<EventCard> = all.filter(|c| !drawn.contains(c)).collect();
    rest.shuffle(rng);
    drawn.iter().copied().chain(rest).collect()
}

/// The events that may still lie unseen in the decks (Random, Helpful).
fn event_pool(variant: EventVariant, decks: &Decks, piles: &[Vec<EventCard>; 3]) -> Vec<EventCard> {
    let seen: Vec<EventCard> = decks
        .slots
        .iter()
        .flatten()
        .filter_map(|s| match s.card {
            Some(DeckCard::Event(e)) => Some(e),
            _ => None,
        })
        .chain(piles.iter().flatten().copied())
        .collect();
    let all: Vec<EventCard> = match variant {
        EventVariant::Random => EventCard::ALL.to_vec(),
        EventVariant::HelpfulFugitive => EventCard::with_icon(Icon::Footprints).collect(),
        EventVariant::HelpfulMarshal => EventCard::with_icon(Icon::Binoculars).collect(),
        _ => Vec::new(),
    };
    all.into_iter().filter(|c| !seen.contains(c)).collect()
}

/// The action that, taken in `phase`, begins with this history entry. `returned` holds the
/// cards the Marshal sent to the bottom in this world, the next one last.
fn action_of(phase: Phase, event: &Event, returned: &mut Vec<Card>) -> Option<Action> {
    let drawn = match *event {
        Event::Drew { deck, .. }
        | Event::EventDrawn { deck: Some(deck), .. }
        | Event::CatchupDrawn { deck, .. } => Some(deck),
        _ => None,
    };
    let choose = |choice| Some(Action::Choose { choice });
    match (phase, *event) {
        (Phase::Draw { .. }, _) => drawn.map(|deck| Action::Draw { deck }),
        (Phase::Pending { .. }, Event::Declined { .. }) => choose(Choice::Decline),
        (Phase::Pending { decision: Decision::PassBonus, .. }, _) => choose(Choice::Deck { deck: drawn? }),
        (Phase::Pending { .. }, Event::ReturnedToDeck { card, .. }) => {
            let card = match card {
                Some(card) => card,
                None => returned.pop()?,
            };
            choose(Choice::Card { card })
        }
        (Phase::Pending { .. }, Event::SprintAdded { position, card }) => {
            choose(Choice::Sprint { card: card?, position })
        }
        (Phase::Pending { .. }, Event::SprintsShown { position, .. }) => choose(Choice::Hideout { position }),
        (Phase::Pending { .. }, Event::StakeoutCounted { deck, .. }) => choose(Choice::Range { deck }),
        (Phase::Pending { decision: Decision::Dragnet, .. }, Event::Guessed { numbers, .. }) => {
            choose(Choice::Number { number: numbers.first()? })
        }
        (Phase::Pending { decision: Decision::TownGossip, .. }, Event::Peeked { deck, .. }) => {
            choose(Choice::Deck { deck })
        }
        (Phase::Pending { .. }, Event::MovedToBottom { moved, .. }) => choose(Choice::Move { bottom: moved }),
        (Phase::Opening { .. } | Phase::PlaceOrPass, Event::Placed { hideout, sprints, .. }) => {
            Some(Action::Place { hideout: hideout?, sprints: sprints? })
        }
        (Phase::Opening { .. } | Phase::PlaceOrPass, Event::Passed) => Some(Action::Pass),
        (Phase::Opening { .. }, Event::TurnEnded) => Some(Action::EndTurn),
        (Phase::Guess | Phase::Manhunt, Event::Guessed { numbers, .. }) => Some(Action::Guess { numbers }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_core::{RuleOptions, Setup};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Random games of every event variant (and both R6 and R11a settings): at every position
    /// a world agreeing with his view is found within a few draws, and it is his view exactly.
    #[test]
    fn a_sampled_world_agrees_with_his_view_in_every_variant() {
        for variant in EventVariant::ALL {
            let mut hardest = 0;
            for seed in 0..25u64 {
                let rules = RuleOptions {
                    pass_bonus_draw: seed % 2 == 1,
                    opening_hideouts: if seed % 3 == 0 {
                        fugitive_core::OpeningHideouts::ExactlyTwo
                    } else {
                        fugitive_core::OpeningHideouts::OneOrTwo
                    },
                    events: variant,
                };
                let mut game = Game::new(Setup::new(seed).with_rules(rules));
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                while let Some(role) = game.to_move() {
                    let view = FugitiveView::of(&game);
                    let tries = (1..=20).find(|_| {
                        sample(&view, &mut rng, None)
                            .inspect(|world| {
                                assert_eq!(world.view(Viewer::Fugitive), game.view(Viewer::Fugitive))
                            })
                            .is_some()
                    });
                    let tries = tries.unwrap_or_else(|| panic!("{variant:?} seed {seed}: no world fits"));
                    hardest = hardest.max(tries);
                    let action = game.legal_actions(role).sample(&mut rng).unwrap();
                    game.apply(role, action).unwrap();
                }
            }
            assert!(hardest <= 20, "{variant:?}");
        }
    }
}
