//! R22, the guarantee the whole server rests on: two games that differ only in what a viewer
//! cannot know give that viewer byte-identical views (`serde_json` of `Game::view`), and a
//! player byte-identical legal actions, which the server sends along (docs/protocol.md).
//!
//! A pair is built from a random game A. Game B starts from A's deal with a few cards
//! relabelled — swapped in the decks, in the Fugitive's hand and in every placement he made —
//! where both cards of a swap have the same origin (deck 1, 2, 3, or the fixed 1, 2, 3: R2), so
//! B's deal is legal too, and neither was ever seen by the viewer. B replays A's actions so
//! relabelled; the Marshal names the same numbers. At every position where both games have told
//! the viewer the same things so far (the test's own reading of the rules in [`told`], not
//! `Event::seen_by`), the viewer's views must be equal until the game ends (after it, R18
//! shows everything). A pair whose public records part is compared up to the parting.

use crate::support;

use std::cell::RefCell;

use fugitive_core::{
    Action, Card, Cards, Choice, Deal, Deck, DeckCard, Entry, Event, EventVariant, Game, Outcome, Role,
    RuleOptions, Seed, Setup, Viewer,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::{Play, plays, setups};

fn card(number: u8) -> Card {
    Card::new(number).expect("0–42")
}

fn json(game: &Game, viewer: Viewer) -> String {
    serde_json::to_string(&game.view(viewer)).expect("a view serializes")
}

/// All the server sends a viewer (docs/protocol.md): the view and, to a player, their legal
/// actions.
fn sent(game: &Game, viewer: Viewer) -> String {
    let legal = viewer.role().map(|role| game.legal_actions(role));
    let legal = serde_json::to_string(&legal).expect("legal actions serialize");
    format!("{}\n{legal}", json(game, viewer))
}

/// Where a card starts (R2): 0 for the Fugitive's fixed 1, 2, 3, else its deck's number. Card
/// 0 and 42 are never relabelled: they lie face up.
fn origin(card: Card) -> Option<u8> {
    match card.number() {
        1..=3 => Some(0),
        _ => Deck::of(card).map(Deck::number),
    }
}

/// A relabelling of the cards that keeps every card's origin, so a legal deal stays legal.
#[derive(Clone)]
struct Relabel([Card; 43]);

impl std::fmt::Debug for Relabel {
    /// Only the cards it moves, e.g. `{5→9, 9→5}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let moved = Card::all().filter(|&c| self.card(c) != c);
        f.debug_set().entries(moved.map(|c| format!("{c}→{}", self.card(c)))).finish()
    }
}

impl Relabel {
    fn identity() -> Relabel {
        Relabel(std::array::from_fn(|n| card(n as u8)))
    }

    /// The relabelling that turns deal `a` into deal `b`: the k-th card of each deck into the
    /// k-th, the Fugitive's deck-1 and deck-2 cards into his others in order.
    fn between(a: &Deal, b: &Deal) -> Relabel {
        let mut relabel = Relabel::identity();
        for deck in Deck::ALL {
            let (in_a, in_b) = (&a.decks[deck.index()], &b.decks[deck.index()]);
            let hands = a
                .fugitive_hand
                .intersection(deck.cards())
                .iter()
                .zip(b.fugitive_hand.intersection(deck.cards()));
            for (x, y) in in_a.iter().copied().zip(in_b.iter().copied()).chain(hands) {
                relabel.0[usize::from(x.number())] = y;
            }
        }
        assert_eq!(relabel.deal(a), *b, "the relabelling maps one deal onto the other");
        relabel
    }

    fn swap(&mut self, x: Card, y: Card) {
        assert_eq!(origin(x), origin(y), "{x} and {y} come from different places");
        self.0.swap(usize::from(x.number()), usize::from(y.number()));
    }

    fn card(&self, card: Card) -> Card {
        self.0[usize::from(card.number())]
    }

    fn cards(&self, cards: Cards) -> Cards {
        cards.iter().map(|c| self.card(c)).collect()
    }

    fn deal(&self, deal: &Deal) -> Deal {
        Deal {
            decks: deal.decks.each_ref().map(|deck| deck.iter().map(|&c| self.card(c)).collect()),
            fugitive_hand: self.cards(deal.fugitive_hand),
        }
    }

    /// Only the cards a player moves from his hand name cards: placements, and the answers
    /// that put a hand card somewhere (F4, F5, N6); draws, guesses (M4 too) and the rest stay.
    fn entry(&self, entry: Entry) -> Entry {
        let Entry::Action(action) = entry else { return entry };
        Entry::Action(match action {
            Action::Place { hideout, sprints } => {
                Action::Place { hideout: self.card(hideout), sprints: self.cards(sprints) }
            }
            Action::Choose { choice: Choice::Card { card } } => {
                Action::Choose { choice: Choice::Card { card: self.card(card) } }
            }
            Action::Choose { choice: Choice::Sprint { card, position } } => {
                Action::Choose { choice: Choice::Sprint { card: self.card(card), position } }
            }
            other => other,
        })
    }
}

/// One history entry as `viewer` learns it, by this test's own reading of the rules: who drew
/// from which deck is public, the card only the drawer's (R8a); a placement's position and
/// sprint count are public, its cards the Fugitive's, 42 everyone's (R10, R11); guesses, their
/// outcomes and reveals are public (R12, R13); so are the Manhunt and the end (R14–R17).
#[derive(Debug, PartialEq)]
enum Told {
    Drew {
        role: Role,
        deck: Deck,
        card: Option<Card>,
    },
    DrawSkipped(Role),
    Placed {
        position: usize,
        sprint_count: usize,
        hideout: Option<Card>,
        sprints: Option<Cards>,
    },
    Passed,
    TurnEnded,
    Guessed {
        numbers: Cards,
        right: bool,
    },
    Revealed {
        position: usize,
        hideout: Card,
        sprints: Cards,
    },
    ManhuntStarted(u8),
    Resigned(Role),
    TimedOut(Role),
    GameOver(Outcome),
    /// E2, E5: the hand card a player returns to its deck and the top card a player looks at
    /// are theirs, the Fugitive's extra sprint card his; the rest of an event is public.
    Returned {
        role: Role,
        deck: Deck,
        card: Option<Card>,
    },
    SprintAdded {
        position: usize,
        card: Option<Card>,
    },
    Peeked {
        role: Role,
        deck: Deck,
        card: Option<DeckCard>,
    },
    Public(Event),
}

fn told(event: &Event, viewer: Viewer) -> Told {
    let fugitive = viewer == Viewer::Fugitive;
    match *event {
        Event::Drew { role, deck, card } => {
            let own = viewer.role() == Some(role);
            Told::Drew { role, deck, card: if own { card } else { None } }
        }
        Event::DrawSkipped { role } => Told::DrawSkipped(role),
        Event::Placed { position, hideout, sprint_count, sprints } => Told::Placed {
            position,
            sprint_count,
            hideout: if fugitive || hideout == Some(Card::ESCAPE) { hideout } else { None },
            sprints: if fugitive { sprints } else { None },
        },
        Event::Passed => Told::Passed,
        Event::TurnEnded => Told::TurnEnded,
        Event::Guessed { numbers, right } => Told::Guessed { numbers, right },
        Event::Revealed { position, hideout, sprints } => Told::Revealed { position, hideout, sprints },
        Event::ManhuntStarted { highest_revealed } => Told::ManhuntStarted(highest_revealed),
        Event::Resigned { role } => Told::Resigned(role),
        Event::TimedOut { role } => Told::TimedOut(role),
        Event::GameOver { outcome } => Told::GameOver(outcome),
        Event::ReturnedToDeck { role, deck, card } => {
            Told::Returned { role, deck, card: card.filter(|_| viewer.role() == Some(role)) }
        }
        Event::SprintAdded { position, card } => {
            Told::SprintAdded { position, card: card.filter(|_| fugitive) }
        }
        Event::Peeked { role, deck, card } => {
            Told::Peeked { role, deck, card: card.filter(|_| viewer.role() == Some(role)) }
        }
        public @ (Event::EventDrawn { .. }
        | Event::CatchupDrawn { .. }
        | Event::NoEffect { .. }
        | Event::DrawMissed { .. }
        | Event::TrailEventLaid { .. }
        | Event::SprintsShown { .. }
        | Event::StakeoutCounted { .. }
        | Event::Eyewitness { .. }
        | Event::MovedToBottom { .. }
        | Event::Declined { .. }) => Told::Public(public),
    }
}

/// Whether `a` and `b` have told `viewer` the same things from history entry `from` on.
fn same_news(a: &Game, b: &Game, viewer: Viewer, from: usize) -> bool {
    let (a, b) = (&a.history()[from..], &b.history()[from.min(b.history().len())..]);
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| told(x, viewer) == told(y, viewer))
}

/// The cards `viewer` never saw in the whole of `game` (R19–R21): not 0 or 42, nothing turned
/// face up, for the Fugitive nothing he ever held (his hand and the trail), for the Marshal
/// nothing she drew, and for either nothing they looked at (N5).
fn never_seen(game: &Game, viewer: Viewer) -> Cards {
    let mut seen = Cards::from(Card::START).with(Card::ESCAPE);
    for hideout in game.trail().positions() {
        if viewer == Viewer::Fugitive || hideout.face_up && hideout.card != Card::ESCAPE {
            seen = seen.union(hideout.sprints).with(hideout.card);
        }
    }
    match viewer {
        Viewer::Fugitive => seen = seen.union(game.hand(Role::Fugitive)).union(game.deal().fugitive_hand),
        Viewer::Marshal => seen = seen.union(game.hand(Role::Marshal)),
        Viewer::Spectator => {}
    }
    for event in game.history() {
        match *event {
            Event::Drew { role, card: Some(card), .. } if viewer.role() == Some(role) => seen.insert(card),
            Event::Peeked { role, card: Some(DeckCard::Hideout(card)), .. }
                if viewer.role() == Some(role) =>
            {
                seen.insert(card)
            }
            _ => false,
        };
    }
    Cards::range(0, 42).difference(seen)
}

/// Up to `swaps` swaps of two never-seen cards of the same origin. The first swap takes, when
/// it can, a card that left the decks in `game` (so hands or the trail differ, not only a
/// deck's order); the others take any two.
fn random_relabel(game: &Game, viewer: Viewer, swaps: usize, rng: &mut impl Rng) -> Option<Relabel> {
    let unseen = never_seen(game, viewer);
    let in_decks: Cards =
        Deck::ALL.into_iter().flat_map(|deck| game.deck(deck).iter().filter_map(|c| c.hideout())).collect();
    let groups: Vec<Vec<Card>> = [0, 1, 2, 3]
        .map(|o| unseen.iter().filter(|&c| origin(c) == Some(o)).collect())
        .into_iter()
        .filter(|group: &Vec<Card>| group.len() >= 2)
        .collect();
    let played: Vec<&Vec<Card>> =
        groups.iter().filter(|g| g.iter().any(|&c| !in_decks.contains(c))).collect();
    let mut relabel = Relabel::identity();
    for swap in 0..swaps {
        let (x, group) = match played.choose(rng) {
            Some(group) if swap == 0 => {
                let out: Vec<Card> = group.iter().copied().filter(|&c| !in_decks.contains(c)).collect();
                (*out.choose(rng)?, *group)
            }
            _ => {
                let group = groups.choose(rng)?;
                (*group.choose(rng)?, group)
            }
        };
        let y = *group.iter().filter(|&&y| y != x).collect::<Vec<_>>().choose(rng)?;
        relabel.swap(x, *y);
    }
    Some(relabel)
}

/// What the comparisons covered.
#[derive(Debug, Default)]
struct Tally {
    /// Pairs built.
    pairs: usize,
    /// Games with no two never-seen cards of one origin.
    unswappable: usize,
    /// Pairs whose public records agreed to the end.
    whole: usize,
    /// Running positions of game A, over all pairs.
    running: usize,
    /// Positions whose views were compared.
    compared: usize,
    /// Compared positions where the games' hands or trails differ, not only their decks.
    in_play: usize,
}

/// Game A as its pairs replay it: its start, its actions, and what the server sends each viewer
/// as far as some pair has compared it, serialized once for all of A's pairs.
struct Record {
    start: Game,
    actions: Vec<(Role, Entry)>,
    views: RefCell<[Vec<String>; 3]>,
}

impl Record {
    fn new(start: Game, actions: &[(Role, Entry)]) -> Record {
        Record { start, actions: actions.to_vec(), views: Default::default() }
    }

    /// Plays A's actions again beside game `b`, which plays them relabelled; at every position
    /// where both have told `viewer` the same so far and the game runs, asserts R22 of the
    /// view and of the viewer's legal actions.
    fn compare(&self, mut b: Game, relabel: &Relabel, viewer: Viewer, tally: &mut Tally) {
        let (mut a, actions) = (self.start.clone(), &self.actions);
        tally.pairs += 1;
        tally.running += actions.len();
        // What a viewer knows before any action: the rules, and the Fugitive his hand (R3).
        let hand = |game: &Game| (viewer == Viewer::Fugitive).then(|| game.hand(Role::Fugitive));
        if a.rules() != b.rules() || hand(&a) != hand(&b) {
            return;
        }
        let mut views = self.views.borrow_mut();
        let views = &mut views[Viewer::ALL.iter().position(|&v| v == viewer).expect("a viewer")];
        let mut told_before = 0;
        for (index, &(role, action)) in actions.iter().enumerate() {
            if views.len() == index {
                views.push(sent(&a, viewer));
            }
            assert_eq!(
                views[index],
                sent(&b, viewer),
                "R22: the {viewer:?}'s view differs before action {index} under {relabel:?}"
            );
            tally.compared += 1;
            let differ = |role| a.hand(role) != b.hand(role);
            tally.in_play +=
                usize::from(differ(Role::Fugitive) || differ(Role::Marshal) || a.trail() != b.trail());
            a.apply_entry(role, action).expect("A's own actions replay");
            if b.apply_entry(role, relabel.entry(action)).is_err() || !same_news(&a, &b, viewer, told_before)
            {
                return;
            }
            told_before = a.history().len();
        }
        tally.whole += 1;
    }
}

/// Runs `cases` random games through `check`, then returns the tally per viewer.
fn run_cases(cases: u32, check: impl Fn(Setup, Play, u64, &mut [Tally; 3])) -> [Tally; 3] {
    let tallies = RefCell::new(<[Tally; 3]>::default());
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    runner
        .run(&(setups(), plays(), any::<u64>()), |(setup, play, seed)| {
            check(setup, play, seed, &mut tallies.borrow_mut());
            Ok(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    tallies.into_inner()
}

#[test]
fn r22_swapping_unseen_cards_changes_no_view() {
    let tallies = run_cases(32, |setup, play, seed, tallies| {
        // A keeps its seed, B has none: the seed must not show either (R4).
        let a = play.run(Game::new(setup), |_| {});
        let record = Record::new(Game::new(setup), a.actions());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (viewer, tally) in Viewer::ALL.into_iter().zip(tallies) {
            // One swap of a card that was in play, then a relabelling of up to four.
            for swaps in [1, 4] {
                let Some(relabel) = random_relabel(&a, viewer, swaps, &mut rng) else {
                    tally.unswappable += 1;
                    continue;
                };
                let b =
                    Game::from_deal_with_events(setup.rules, relabel.deal(a.deal()), a.event_deal().clone())
                        .expect("a relabelled deal is legal");
                record.compare(b, &relabel, viewer, tally);
            }
        }
    });
    for (viewer, tally) in Viewer::ALL.into_iter().zip(&tallies) {
        println!("{viewer:?}: {tally:?}");
        // Not vacuous (the bounds are loose: typical runs give 35–100 % whole pairs, 65–100 %
        // of positions compared, and 35–70 % of those with differing hands or trails).
        assert!(tally.whole * 8 >= tally.pairs, "{viewer:?}: too few whole pairs: {tally:?}");
        assert!(tally.compared * 3 >= tally.running, "{viewer:?}: too few positions: {tally:?}");
        assert!(tally.in_play * 8 >= tally.compared, "{viewer:?}: the swaps hardly mattered: {tally:?}");
    }
}

#[test]
fn r22_e5_swapping_unseen_cards_changes_no_view_in_every_event_variant() {
    // The same comparison, eight games of each event variant (the test above samples them).
    for events in EventVariant::ALL.into_iter().skip(1) {
        let tallies = run_cases(8, |setup, play, seed, tallies| {
            let setup = Setup { rules: RuleOptions { events, ..setup.rules }, ..setup };
            let a = play.run(Game::new(setup), |_| {});
            let record = Record::new(Game::new(setup), a.actions());
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for (viewer, tally) in Viewer::ALL.into_iter().zip(tallies) {
                let Some(relabel) = random_relabel(&a, viewer, 2, &mut rng) else {
                    tally.unswappable += 1;
                    continue;
                };
                let b =
                    Game::from_deal_with_events(setup.rules, relabel.deal(a.deal()), a.event_deal().clone())
                        .expect("a relabelled deal is legal");
                record.compare(b, &relabel, viewer, tally);
            }
        });
        for (viewer, tally) in Viewer::ALL.into_iter().zip(&tallies) {
            println!("{events:?} {viewer:?}: {tally:?}");
            assert!(tally.compared > 0, "{events:?} {viewer:?}: nothing compared: {tally:?}");
        }
    }
}

#[test]
fn r22_e5_the_order_of_unseen_event_cards_changes_no_view() {
    // Random Events: two event cards that are never drawn swap places between decks; every
    // view is the same until one of them is drawn (R4, E5).
    let mut compared = 0;
    for seed in 0..40u64 {
        let setup = Setup::new(seed)
            .with_rules(RuleOptions { events: EventVariant::Random, ..RuleOptions::default() });
        let a = Play::to_the_end(seed).run(Game::new(setup), |_| {});
        let events = a.event_deal().clone();
        let mut swapped = events.clone();
        let (x, y) = (swapped.in_decks[0][0].1, swapped.in_decks[2][1].1);
        swapped.in_decks[0][0].1 = y;
        swapped.in_decks[2][1].1 = x;
        let card = |c: DeckCard| match c {
            DeckCard::Event(e) => Some(e),
            _ => None,
        };
        let drawn = |e: &Event| matches!(e, Event::EventDrawn { card: c, .. } if Some(*c) == card(x) || Some(*c) == card(y));
        let mut left = Game::from_deal_with_events(setup.rules, a.deal().clone(), events).expect("legal");
        let mut right = Game::from_deal_with_events(setup.rules, a.deal().clone(), swapped).expect("legal");
        for &(role, action) in a.actions() {
            if left.is_over() || left.history().iter().any(drawn) {
                break;
            }
            for viewer in Viewer::ALL {
                assert_eq!(json(&left, viewer), json(&right, viewer), "seed {seed}, {viewer:?}");
                compared += 1;
            }
            left.apply_entry(role, action).expect("replays");
            right.apply_entry(role, action).expect("the same actions are legal");
        }
    }
    assert!(compared > 1_000, "only {compared} views compared");
}

#[test]
fn r4_r22_another_seed_with_the_same_public_history_looks_the_same() {
    // Two seeds deal two games; the second replays the first's actions with its cards
    // relabelled onto the second deal. Deck orders and hands differ; until the public
    // records part (a right guess reveals different cards, or the Marshal draws different
    // ones), the views must not tell the seeds apart.
    let tallies = run_cases(32, |setup, play, other, tallies| {
        let a = play.run(Game::new(setup), |_| {});
        let record = Record::new(Game::new(setup), a.actions());
        // B keeps A's event cards where they lie: only the hideout cards differ.
        let other = Game::new(Setup { seed: Seed::from(other), ..setup });
        let relabel = Relabel::between(a.deal(), other.deal());
        let b = Game::from_deal_with_events(setup.rules, other.deal().clone(), a.event_deal().clone())
            .expect("the same events fit another deal");
        // The Fugitive's hands differ from the start: only the Marshal and spectators.
        for (viewer, tally) in Viewer::ALL.into_iter().zip(tallies).skip(1) {
            record.compare(b.clone(), &relabel, viewer, tally);
        }
    });
    let [_, marshal, spectator] = &tallies;
    println!("Marshal: {marshal:?}\nSpectator: {spectator:?}");
    // The Marshal learns her first cards after the opening, so mostly only it is compared.
    assert!(2 * marshal.compared >= 3 * marshal.pairs, "too few positions: {marshal:?}");
    assert!(spectator.compared >= 4 * spectator.pairs, "too few positions: {spectator:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn r4_the_seed_is_in_no_view_while_the_game_runs(setup in setups(), play in plays()) {
        // The same deal with and without its seed: every viewer's view is the same until the
        // end, and no view holds the seed's digits.
        let a = play.run(Game::new(setup), |_| {});
        let mut with_seed = Game::new(setup);
        let mut without = Game::from_deal_with_events(setup.rules, a.deal().clone(), a.event_deal().clone())
            .expect("a shuffled deal is legal");
        let digits = String::from(setup.seed);
        for &(role, action) in a.actions() {
            for viewer in Viewer::ALL {
                let view = json(&with_seed, viewer);
                prop_assert_eq!(&view, &json(&without, viewer));
                prop_assert!(!view.contains(&digits));
            }
            with_seed.apply_entry(role, action).expect("replays");
            without.apply_entry(role, action).expect("replays");
        }
        // R18: once over, the seed is shown, so the views now differ.
        prop_assert!(json(&with_seed, Viewer::Spectator).contains(&digits));
        prop_assert_ne!(json(&with_seed, Viewer::Spectator), json(&without, Viewer::Spectator));
    }
}

/// Seed 7's deal (pinned in `deck.rs`): deck 1 is 4, 10, 5, 9, 7, 13, 11, 8 from the top; the
/// Fugitive holds 1, 2, 3, 6, 12, 14, 15, 28, 42.
fn seed_7_pair(x: u8, y: u8) -> (Game, Game) {
    let deal = Deal::shuffled(&Seed::from(7));
    assert_eq!(deal.decks[0][..2], [card(4), card(10)]);
    assert!(deal.fugitive_hand.contains(card(6)));
    let mut relabel = Relabel::identity();
    relabel.swap(card(x), card(y));
    let a = Game::from_deal(Default::default(), deal.clone()).expect("legal");
    let b = Game::from_deal(Default::default(), relabel.deal(&deal)).expect("legal");
    (a, b)
}

fn apply_both(a: &mut Game, b: &mut Game, role: Role, action: Action) {
    a.apply(role, action).expect("legal in A");
    b.apply(role, action).expect("legal in B");
}

fn differs(a: &Game, b: &Game, viewer: Viewer) -> bool {
    json(a, viewer) != json(b, viewer)
}

#[test]
fn r22_the_swap_shows_to_whoever_may_see_it() {
    // 6 in the Fugitive's hand swapped with 4 on top of deck 1: the Fugitive sees it at once;
    // the Marshal and spectators never do.
    let (mut a, mut b) = seed_7_pair(6, 4);
    assert!(differs(&a, &b, Viewer::Fugitive));
    let both = |a: &Game, b: &Game| !differs(a, b, Viewer::Marshal) && !differs(a, b, Viewer::Spectator);
    assert!(both(&a, &b));
    apply_both(&mut a, &mut b, Role::Fugitive, Action::Place { hideout: card(3), sprints: Cards::EMPTY });
    apply_both(&mut a, &mut b, Role::Fugitive, Action::EndTurn);
    apply_both(&mut a, &mut b, Role::Marshal, Action::Draw { deck: Deck::Two });
    apply_both(&mut a, &mut b, Role::Marshal, Action::Draw { deck: Deck::Three });
    apply_both(&mut a, &mut b, Role::Marshal, Action::Guess { numbers: Cards::from(card(5)) });
    // The Fugitive draws 4 in A, 6 in B: his hands are now equal, his histories not.
    apply_both(&mut a, &mut b, Role::Fugitive, Action::Draw { deck: Deck::One });
    assert_eq!(a.hand(Role::Fugitive), b.hand(Role::Fugitive));
    assert!(differs(&a, &b, Viewer::Fugitive));
    assert!(both(&a, &b));
}

#[test]
fn r22_the_marshal_sees_the_cards_she_draws() {
    // 4 and 10, the top two cards of deck 1, swapped: once the Marshal draws the top card her
    // view differs (and the test's own record says so), a spectator's does not.
    let (mut a, mut b) = seed_7_pair(4, 10);
    for viewer in Viewer::ALL {
        assert!(!differs(&a, &b, viewer), "{viewer:?}: nobody has seen deck 1 yet");
    }
    apply_both(&mut a, &mut b, Role::Fugitive, Action::Place { hideout: card(3), sprints: Cards::EMPTY });
    apply_both(&mut a, &mut b, Role::Fugitive, Action::EndTurn);
    let told_before = a.history().len();
    apply_both(&mut a, &mut b, Role::Marshal, Action::Draw { deck: Deck::One });
    assert_eq!((a.hand(Role::Marshal), b.hand(Role::Marshal)), (Cards::from(card(4)), Cards::from(card(10))));
    assert!(differs(&a, &b, Viewer::Marshal));
    assert!(!same_news(&a, &b, Viewer::Marshal, told_before));
    assert!(!differs(&a, &b, Viewer::Spectator));
    assert!(same_news(&a, &b, Viewer::Spectator, told_before));
    assert!(
        never_seen(&a, Viewer::Marshal).contains(card(10))
            && !never_seen(&a, Viewer::Marshal).contains(card(4))
    );
}
