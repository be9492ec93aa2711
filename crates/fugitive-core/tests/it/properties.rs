//! Properties of random legal games, checked at every position: the cards (R1–R3), the trail
//! (R9–R11), the end (R14–R17), what each view shows (R18–R21), legality (`legal_actions`
//! agrees with `is_legal`, and a refused action changes nothing), replay (R4) and the JSON of
//! every view.
//!
//! The games are seeded by proptest: the setup (seed × both `opening_hideouts` × both
//! `pass_bonus_draw` × every event variant of `EVENTS.md`) and the random player's seed, so a
//! failure shrinks to a small reproducer.

use crate::support;

use fugitive_core::{
    Action, Card, Cards, Choice, Deck, Entry, Event, EventVariant, Game, LegalActions, OpeningHideouts,
    Phase, Reason, Role, RuleOptions, Setup, TrailEffect, View, Viewer,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::{MAX_ACTIONS, Play, plays, setups};

/// R1–R3: each of the 43 cards lies in exactly one place: on the trail (as a hideout or a
/// sprint card), in a hand, or in a deck; a deck holds only its own cards and the Marshal
/// only cards she drew from them.
fn assert_cards_conserved(game: &Game) {
    let mut places = [0u8; 43];
    let mut count = |cards: &mut dyn Iterator<Item = Card>| {
        cards.for_each(|card| places[usize::from(card.number())] += 1)
    };
    for hideout in game.trail().positions() {
        count(&mut std::iter::once(hideout.card).chain(hideout.sprints));
    }
    for role in Role::ALL {
        count(&mut game.hand(role).iter());
    }
    for deck in Deck::ALL {
        count(&mut game.deck(deck).iter().filter_map(|c| c.hideout()));
        let own = deck.cards();
        let strangers = game.deck(deck).iter().filter_map(|c| c.hideout()).filter(|&c| !own.contains(c));
        assert_eq!(strangers.count(), 0, "R2: {deck} holds a stranger");
    }
    for (number, &n) in places.iter().enumerate() {
        assert_eq!(n, 1, "R1–R3: card {number} is in {n} places");
    }
    let drawable = Deck::ALL.into_iter().fold(Cards::EMPTY, |all, deck| all.union(deck.cards()));
    assert!(game.hand(Role::Marshal).is_subset(drawable), "R3: the Marshal holds a fixed card");
}

/// R9–R11: the trail starts at face-up 0 and strictly increases; every hideout is at most
/// 3 + the sprint value of its own sprint cards above its predecessor; 42 is never a sprint
/// card and lies face up.
fn assert_trail_legal(game: &Game) {
    let positions = game.trail().positions();
    let start = positions[0];
    assert!(start.card == Card::START && start.face_up && start.sprints.is_empty(), "R2: {start:?}");
    for pair in positions.windows(2) {
        let (before, hideout) = (pair[0], pair[1]);
        assert!(hideout.card > before.card, "R9: {hideout:?} after {before:?}");
        // F1 Safe House lets the hideout on its space lie up to 5 above the previous card (E4).
        let position = game.trail().positions().iter().position(|h| h == &hideout).expect("on the trail");
        let safe =
            game.trail_events().iter().any(|t| t.position == position && t.effect == TrailEffect::SafeHouse);
        let reach = if safe { 5 } else { 3 } + hideout.sprints.sprint_value();
        assert!(
            hideout.card.number() - before.card.number() <= reach,
            "R9, R10: {hideout:?} after {before:?}"
        );
        assert!(!hideout.sprints.contains(hideout.card), "R10: {hideout:?}");
        assert!(!hideout.sprints.contains(Card::ESCAPE), "R11: 42 is a sprint card in {hideout:?}");
        assert!(hideout.card != Card::ESCAPE || hideout.face_up, "R11: 42 lies face down");
    }
}

/// `legal_actions(role).contains(a) == is_legal(role, a) == apply(role, a).is_ok()` (for a
/// time out, `legal_actions(role).time_out == time_out(role).is_ok()`), and a refused entry
/// leaves the game `==` to before.
fn assert_agrees(game: &Game, role: Role, entry: Entry) {
    let legal = match entry {
        Entry::Action(action) => {
            let legal = game.is_legal(role, &action);
            let listed = game.legal_actions(role).contains(&action);
            assert_eq!(
                listed,
                legal,
                "{role} {action:?} in {:?}: listed {listed}, is_legal {legal}",
                game.phase()
            );
            legal
        }
        Entry::TimeOut => game.legal_actions(role).time_out,
    };
    let mut after = game.clone();
    match after.apply_entry(role, entry) {
        Ok(_) => assert!(legal, "{role} {entry:?} was applied but is not legal"),
        Err(error) => {
            assert!(!legal, "{role} {entry:?} is legal but was refused: {error}");
            assert!(after == *game, "the refused {role} {entry:?} ({error}) changed the game");
        }
    }
}

/// An entry built from 16 random bytes: any deck, any hideout (often one from the hand),
/// sprint sets drawn from the hand or from all cards, guesses of 0–3 numbers of 0–42, pass,
/// end turn, resign, time-out. Most are illegal.
fn arbitrary_action(game: &Game, rng: &mut impl Rng) -> Entry {
    let bytes: [u8; 16] = rng.random();
    let hand = game.hand(Role::Fugitive);
    let mask = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
    let pool = if bytes[1] & 1 == 0 { hand } else { Cards::range(0, 42) };
    let sprints: Cards = pool.iter().filter(|c| mask >> c.number() & 1 == 1).collect();
    let hideout = match hand.iter().nth(usize::from(bytes[2]) % (hand.len() + 1)) {
        Some(card) if bytes[1] & 2 == 0 => card,
        _ => Card::new(bytes[3] % 43).expect("0–42"),
    };
    let numbers = bytes[4..7].iter().take(usize::from(bytes[7] % 4));
    let action = match bytes[0] % 8 {
        0 => Action::Draw { deck: Deck::ALL[usize::from(bytes[1]) % 3] },
        1 => Action::Place { hideout, sprints },
        2 => Action::Place { hideout, sprints: sprints.intersection(Cards::range(0, bytes[3] % 43)) },
        3 => Action::Pass,
        4 => Action::EndTurn,
        5 => Action::Guess { numbers: numbers.filter_map(|&n| Card::new(n % 43)).collect() },
        6 => Action::Resign,
        7 if bytes[5] & 1 == 0 => return Entry::TimeOut,
        _ => Action::Choose { choice: arbitrary_choice(&bytes) },
    };
    Entry::Action(action)
}

/// Any answer to any decision (E3), most of them illegal.
fn arbitrary_choice(bytes: &[u8; 16]) -> Choice {
    let card = Card::new(bytes[3] % 43).expect("0–42");
    let deck = Deck::ALL[usize::from(bytes[1]) % 3];
    let position = usize::from(bytes[6] % 8);
    match bytes[2] % 8 {
        0 => Choice::Card { card },
        1 => Choice::Sprint { card, position },
        2 => Choice::Hideout { position },
        3 => Choice::Range { deck },
        4 => Choice::Number { number: card },
        5 => Choice::Deck { deck },
        6 => Choice::Move { bottom: bytes[4] & 1 == 1 },
        _ => Choice::Decline,
    }
}

/// Checks agreement for both roles on the random player's move and on arbitrary actions.
fn assert_legality_agrees(game: &Game, rng: &mut ChaCha8Rng) {
    for role in Role::ALL {
        if let Some(action) = game.legal_actions(role).sample(rng) {
            assert!(game.is_legal(role, &action), "the sampled {role} {action:?} is illegal");
            assert_agrees(game, role, action.into());
        }
        for _ in 0..16 {
            assert_agrees(game, role, arbitrary_action(game, rng));
        }
    }
}

/// When the Fugitive may place and holds at most 12 cards: every hideout 0–42 with every
/// subset of his hand as sprint cards. Returns how many placements were legal.
fn assert_every_placement_agrees(game: &Game) -> Option<usize> {
    let hand = game.hand(Role::Fugitive);
    let placing = matches!(game.phase(), Phase::Opening { .. } | Phase::PlaceOrPass);
    if !placing || hand.len() > 12 {
        return None;
    }
    let legal = game.legal_actions(Role::Fugitive);
    let mut count = 0;
    for hideout in Card::all() {
        for sprints in hand.subsets() {
            let action = Action::Place { hideout, sprints };
            let is_legal = game.is_legal(Role::Fugitive, &action);
            assert_eq!(legal.contains(&action), is_legal, "{action:?} in {:?}", game.phase());
            count += usize::from(is_legal);
        }
    }
    Some(count)
}

/// R14–R17: the recorded end is one the trail bears out.
fn assert_end_explained(game: &Game) {
    let outcome = game.outcome().expect("the game is over");
    let trail = game.trail();
    let escaped = trail.last_card() == Card::ESCAPE;
    match outcome.reason {
        Reason::AllHideoutsFound => assert!(trail.hidden_count() == 0 && !escaped, "R14"),
        Reason::ManhuntSuccess => assert!(trail.hidden_count() == 0 && escaped, "R16"),
        Reason::ManhuntSurvived => assert!(escaped && trail.hidden_count() > 0, "R16"),
        Reason::Escape => {
            assert!(escaped && (trail.highest_revealed() >= 30 || trail.hidden_count() == 0), "R15")
        }
        Reason::Resignation | Reason::TimeOut => {}
    }
    // R15: the Manhunt begins only when 42 is played with H ≤ 29, and then at once.
    let manhunt = game.history().iter().find_map(|event| match event {
        Event::ManhuntStarted { highest_revealed } => Some(*highest_revealed),
        _ => None,
    });
    let manhunt_ended = matches!(outcome.reason, Reason::ManhuntSurvived | Reason::ManhuntSuccess);
    assert!(!manhunt_ended || manhunt.is_some_and(|h| h <= 29), "R15: {outcome:?} after {manhunt:?}");
    let marshal_won = matches!(outcome.reason, Reason::AllHideoutsFound | Reason::ManhuntSuccess);
    let fugitive_won = matches!(outcome.reason, Reason::Escape | Reason::ManhuntSurvived);
    assert!(!marshal_won || outcome.winner == Role::Marshal, "{outcome:?}");
    assert!(!fugitive_won || outcome.winner == Role::Fugitive, "{outcome:?}");
}

/// R18–R21: each view matches the game and shows exactly what its viewer may know: the
/// Fugitive his hand and every trail card, the Marshal her hand, a spectator no hand; every
/// viewer sizes, counts and face-up cards; everyone everything once the game is over.
fn assert_views_show_what_they_may(game: &Game) {
    let over = game.is_over();
    for viewer in Viewer::ALL {
        let view = game.view(viewer);
        let fugitive = viewer == Viewer::Fugitive || over;
        assert!(view.viewer == viewer && view.rules == game.rules() && view.phase == game.phase());
        assert_eq!(view.outcome, game.outcome());
        // R5–R8, R16, E3: whose move it is, as the game has it.
        assert_eq!(view.to_move, game.to_move(), "{:?}", game.phase());
        assert_eq!(view.seed, game.seed().filter(|_| over), "R4, R18: the seed");
        let trail = game.trail().positions();
        assert_eq!(view.trail.len(), trail.len());
        for (seen, hideout) in view.trail.iter().zip(trail) {
            let revealed = hideout.face_up && hideout.card != Card::ESCAPE;
            assert_eq!(seen.face_up, hideout.face_up);
            assert_eq!(seen.sprint_count, hideout.sprints.len(), "R10: the count is public");
            assert_eq!(seen.card, (hideout.face_up || fugitive).then_some(hideout.card), "R19–R21");
            let shown = hideout.shown; // M2 Informant
            let sprints = if revealed || fugitive { Some(hideout.sprints) } else { shown };
            assert_eq!(seen.sprints, sprints, "R11, R19–R21");
        }
        for (seen, deck) in view.decks.iter().zip(Deck::ALL) {
            assert_eq!((seen.deck, seen.size), (deck, game.deck(deck).len()));
            // R2: the range a deck's cards come from, for the clients that name it.
            assert_eq!(Cards::range(seen.low.number(), seen.high.number()), deck.cards());
            assert_eq!(seen.cards, over.then(|| game.deck(deck).to_vec()), "R4, R18: the deck order");
        }
        for role in Role::ALL {
            let (seen, hand) = (view.hands[role], game.hand(role));
            assert_eq!(seen.size, hand.len());
            assert_eq!(seen.cards, (over || viewer.role() == Some(role)).then_some(hand), "R19–R21");
        }
        assert_eq!(view.history.len(), game.history().len());
        // E3: a player's view is enough to list the answers to a pending decision.
        if let Some(role) = viewer.role() {
            assert_eq!(view.choices(), game.legal_actions(role).choices, "{:?}", game.phase());
        }
    }
}

fn json(game: &Game, viewer: Viewer) -> String {
    serde_json::to_string(&game.view(viewer)).expect("a view serializes")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn r1_r3_every_card_is_in_exactly_one_place(setup in setups(), play in plays()) {
        let game = play.run(Game::new(setup), assert_cards_conserved);
        // R3: the deal itself.
        let fixed: Cards = [1, 2, 3, 42].into_iter().filter_map(Card::new).collect();
        prop_assert!(fixed.is_subset(game.deal().fugitive_hand));
        prop_assert_eq!(game.deal().fugitive_hand.len(), 9);
    }

    #[test]
    fn r9_r11_the_trail_climbs_legally(setup in setups(), play in plays()) {
        play.run(Game::new(setup), assert_trail_legal);
    }

    #[test]
    fn r18_r21_each_view_shows_what_its_viewer_may_know(setup in setups(), play in plays()) {
        play.run(Game::new(setup), assert_views_show_what_they_may);
    }

    #[test]
    fn r14_r16_random_games_end(setup in setups(), seed: u64) {
        // Neither side resigns here, except the bounded fallback at MAX_ACTIONS (never reached in
        // practice; a resignation is explained too).
        let game = Play::to_the_end(seed).run(Game::new(setup), |_| {});
        prop_assert!(game.is_over() && game.actions().len() <= MAX_ACTIONS);
        assert_end_explained(&game);
    }

    #[test]
    fn r17_early_ends_are_explained(setup in setups(), play in plays()) {
        let game = play.run(Game::new(setup), |_| {});
        assert_end_explained(&game);
        prop_assert_eq!(game.to_move(), None);
        prop_assert_eq!(game.legal_actions(Role::Fugitive), Default::default());
        prop_assert_eq!(game.legal_actions(Role::Marshal), Default::default());
    }

    /// A copy made into another game (`clone_from`, which reuses that game's vectors, as the
    /// server checks each action) is the game, whatever the game copied over: one of another
    /// setup, then each earlier position.
    #[test]
    fn a_copy_into_another_game_is_the_game(setup in setups(), other in setups(), play in plays()) {
        let mut spare = Game::new(other);
        play.run(Game::new(setup), |game| {
            spare.clone_from(game);
            assert_eq!(&spare, game);
            assert_eq!(&game.clone(), game);
        });
    }

    #[test]
    fn r4_replay_reproduces_the_game(setup in setups(), play in plays(), at: prop::sample::Index) {
        let mut positions = Vec::new();
        let game = play.run(Game::new(setup), |game| positions.push(game.clone()));
        let replayed = Game::replay(setup, game.actions()).expect("accepted actions replay");
        prop_assert_eq!(&replayed, &game);
        for viewer in Viewer::ALL {
            prop_assert_eq!(json(&replayed, viewer), json(&game, viewer));
        }
        // Any prefix replays to the position it led to.
        let k = at.index(positions.len());
        let prefix = Game::replay(setup, &game.actions()[..k]).expect("a prefix replays");
        prop_assert_eq!(&prefix, &positions[k]);
        // The record survives JSON, as the server stores it: the setup and the actions.
        let stored = serde_json::to_string(&(setup, game.actions())).expect("serializes");
        let (setup_back, actions): (Setup, Vec<(Role, Entry)>) =
            serde_json::from_str(&stored).expect("parses");
        prop_assert_eq!(&Game::replay(setup_back, &actions).expect("replays"), &game);
    }
}

proptest! {
    // Every position probes 2 × 17 actions, each on a clone of the game.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_actions_agree_with_is_legal(setup in setups(), play in plays(), probe: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(probe);
        play.run(Game::new(setup), |game| assert_legality_agrees(game, &mut rng));
    }

    #[test]
    fn every_placement_agrees_on_small_hands(setup in setups(), seed: u64) {
        let (mut positions, mut legal) = (0, 0);
        Play::to_the_end(seed).run(Game::new(setup), |game| {
            if let Some(count) = assert_every_placement_agrees(game) {
                positions += 1;
                legal += count;
            }
        });
        // The opening always has a legal placement, and hands start at 9 cards (R3, R6).
        prop_assert!(positions > 0 && legal > 0);
    }
}

proptest! {
    // Parsing a view is slow in debug builds (the history is re-read each time), so each
    // position round-trips one viewer's view in turn, and the final position all three.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_view_round_trips_through_json(setup in setups(), play in plays()) {
        let round_trip = |game: &Game, viewer| {
            let view = game.view(viewer);
            let text = serde_json::to_string(&view).expect("a view serializes");
            let back: View = serde_json::from_str(&text).expect("a view parses");
            assert_eq!(back, view, "{text}");
        };
        let game = play.run(Game::new(setup), |game| {
            round_trip(game, Viewer::ALL[game.actions().len() % 3]);
        });
        for viewer in Viewer::ALL {
            round_trip(&game, viewer);
        }
    }
}

/// R19, R20: a player's own view is enough to know every legal action (bots and the web client
/// rely on it).
#[test]
fn legal_actions_from_a_view_agree_with_the_game() {
    for seed in 0..60u64 {
        let rules = RuleOptions {
            opening_hideouts: if seed % 2 == 0 {
                OpeningHideouts::OneOrTwo
            } else {
                OpeningHideouts::ExactlyTwo
            },
            pass_bonus_draw: seed % 3 == 0,
            events: EventVariant::ALL[seed as usize % EventVariant::ALL.len()],
        };
        let mut game = Game::new(Setup::new(seed).with_rules(rules));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(role) = game.to_move() {
            assert_eq!(game.view(Viewer::Marshal).legal_actions(), game.legal_actions(Role::Marshal));
            assert_eq!(game.view(Viewer::Fugitive).legal_actions(), game.legal_actions(Role::Fugitive));
            assert_eq!(game.view(Viewer::Spectator).legal_actions(), LegalActions::default());
            let action = game.legal_actions(role).sample(&mut rng).unwrap();
            game.apply(role, action).unwrap();
        }
    }
}
