//! What each face-down hideout can be by the public rules alone (`View::candidates`): the three
//! defects of issue 23 at the rules' level, and properties of random games (every event
//! variant, both openings, with and without the pass bonus): the true trail is always inside
//! the sets (R9, R10, R12, R13, E4), the sets never pass the rules' reach (R9, R10, F1, M1),
//! and the Marshal's sets (R20) lie within the spectator's (R21).

use crate::common;
use crate::support;

use common::{card, cards, deal, draw, game, game_with, marshal_turn, place, play};
use fugitive_core::{
    Action, Candidates, Card, Cards, Event, Evidence, Game, PositionNumbers, PositionTrails, Reach, Role,
    RuleOptions, Ruling, View, Viewer,
};
use proptest::prelude::*;
use support::{plays, setups};

fn numbers(cards: Cards) -> Vec<u8> {
    cards.iter().map(Card::number).collect()
}

fn sets(game: &Game, viewer: Viewer) -> Candidates {
    game.view(viewer).candidates().expect("the game runs")
}

/// Issue 23, item 1 (R12, R13): a wrong guess says something only about the hideouts face down
/// when it was made. He places 1; she guesses 2 alone (wrong); he places 2: position 2 can be 2.
#[test]
fn r13_a_number_guessed_wrong_before_it_was_placed_can_be_a_later_hideout() {
    let mut game = game(&[4, 5, 6, 15, 16]);
    play(&mut game, Role::Fugitive, place(1, &[]));
    play(&mut game, Role::Fugitive, Action::EndTurn);
    marshal_turn(&mut game, &[2]);
    // Wrong, and 1–3 is all position 1 can be: 2 is ruled out by the guess alone.
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let candidates = sets(&game, viewer);
        assert_eq!(numbers(candidates.at(1)), [1, 3], "{viewer:?}");
        assert_eq!(candidates.why(card(2)), Some(Ruling::Guessed), "{viewer:?}");
    }
    play(&mut game, Role::Fugitive, draw(1));
    play(&mut game, Role::Fugitive, place(2, &[]));
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let candidates = sets(&game, viewer);
        assert_eq!(numbers(candidates.at(1)), [1, 3], "{viewer:?}: the guess still speaks of position 1");
        assert!(candidates.at(2).contains(card(2)), "{viewer:?}: position 2 was placed after the guess");
        assert_eq!(candidates.why(card(2)), None, "{viewer:?}");
    }
    // And 2 is right.
    marshal_turn(&mut game, &[2]);
    assert!(game.trail().positions()[2].face_up);
}

/// Issue 23, item 2 (R9, R20, R21): after 1 placed without sprint cards, position 1 is 1–3; his
/// next placement without sprint cards is at most 3 above it, less her hand in her view.
#[test]
fn r9_a_hideout_without_sprint_cards_lies_at_most_3_above_the_one_before() {
    // He holds 9, 10, 11 of deck 1: she draws its first cards, 4 and 5.
    let mut game = game(&[9, 10, 11, 15, 16]);
    play(&mut game, Role::Fugitive, place(1, &[]));
    play(&mut game, Role::Fugitive, Action::EndTurn);
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        assert_eq!(numbers(sets(&game, viewer).at(1)), [1, 2, 3], "{viewer:?}");
    }
    marshal_turn(&mut game, &[20]);
    assert_eq!(game.hand(Role::Marshal), cards(&[4, 5]));
    play(&mut game, Role::Fugitive, draw(1));
    play(&mut game, Role::Fugitive, place(3, &[]));
    let hers = sets(&game, Viewer::Marshal);
    assert_eq!(numbers(hers.at(2)), [2, 3, 6], "1–3, then 3 above it, less 4 and 5 in her hand");
    assert_eq!(hers.why(card(4)), Some(Ruling::Held));
    assert_eq!(hers.why(card(7)), Some(Ruling::Trail));
    // A spectator does not see her hand (R21).
    let public = sets(&game, Viewer::Spectator);
    assert_eq!(numbers(public.at(2)), [2, 3, 4, 5, 6]);
    assert_eq!(public.why(card(4)), None);
}

/// Issue 23, item 3 (R12, R13): a wrong guess of several numbers makes them doubtful until one
/// of them is found at a position that was face down then: the others were not hideouts then.
#[test]
fn r12_doubtful_numbers_resolve_once_the_guess_is_explained() {
    let mut game = game(&[4, 5, 6, 15, 16]);
    play(&mut game, Role::Fugitive, place(2, &[]));
    play(&mut game, Role::Fugitive, place(5, &[]));
    marshal_turn(&mut game, &[2, 4]);
    assert_eq!(numbers(sets(&game, Viewer::Marshal).doubtful), [2, 4]);
    play(&mut game, Role::Fugitive, draw(1));
    play(&mut game, Role::Fugitive, place(6, &[]));
    marshal_turn(&mut game, &[2]);
    assert!(game.trail().positions()[1].face_up, "2 found at position 1, face down at the guess");
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let candidates = sets(&game, viewer);
        assert_eq!(numbers(candidates.doubtful), [] as [u8; 0], "{viewer:?}");
        // 4 was not the hideout at position 2 then; position 3, placed later, may be it.
        assert!(!candidates.at(2).contains(card(4)), "{viewer:?}");
        assert!(candidates.at(3).contains(card(4)), "{viewer:?}");
    }
}

/// R12: a guess naming more numbers than there were face-down hideouts then could not have
/// been right: it says nothing, and its numbers are not doubtful.
#[test]
fn r12_a_guess_of_more_numbers_than_hideouts_then_says_nothing() {
    let mut game = game(&[4, 5, 6, 15, 16]);
    play(&mut game, Role::Fugitive, place(2, &[]));
    play(&mut game, Role::Fugitive, Action::EndTurn);
    marshal_turn(&mut game, &[1, 3]);
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let candidates = sets(&game, viewer);
        assert_eq!(numbers(candidates.doubtful), [] as [u8; 0], "{viewer:?}: one hideout, two numbers");
        assert_eq!(numbers(candidates.at(1)), [1, 2, 3], "{viewer:?}");
    }
    // With two hideouts face down, two numbers can be right: a wrong pair is doubtful.
    play(&mut game, Role::Fugitive, draw(1));
    play(&mut game, Role::Fugitive, place(5, &[]));
    marshal_turn(&mut game, &[1, 3]);
    assert_eq!(numbers(sets(&game, Viewer::Marshal).doubtful), [1, 3]);
}

/// R12: face-up numbers are ruled out as revealed hideouts or sprint cards, first reason first.
#[test]
fn r12_face_up_numbers_say_why_they_are_ruled_out() {
    let mut game = game(&[4, 5, 6, 15, 16]);
    play(&mut game, Role::Fugitive, place(5, &[4]));
    play(&mut game, Role::Fugitive, place(6, &[]));
    marshal_turn(&mut game, &[5]);
    let candidates = sets(&game, Viewer::Marshal);
    assert_eq!(candidates.why(card(5)), Some(Ruling::Revealed));
    assert_eq!(candidates.why(card(4)), Some(Ruling::Sprint));
    assert_eq!(candidates.why(card(7)), Some(Ruling::Held), "she drew 7 and 8");
    // 6 to 8 above the found 5, less 7 and 8 in her hand.
    assert_eq!(numbers(candidates.at(2)), [6]);
    // Every number 1–41 is a candidate somewhere or ruled out, never both.
    let ruled = candidates.ruled_out.all();
    let possible = candidates.positions.iter().fold(Cards::EMPTY, |all, p| all.union(p.numbers));
    assert_eq!(ruled.union(possible), Cards::range(1, 41));
    assert!(ruled.intersection(possible).is_empty());
}

/// E4: a hideout on an F1 Safe House space may lie 5 above the one before, and the sets say so.
#[test]
fn e4_the_sets_follow_the_trail_events_reach() {
    use fugitive_core::{DeckCard, EventCard, EventDeal, EventVariant};
    let rules = RuleOptions { events: EventVariant::Random, ..RuleOptions::default() };
    // Safe House on top of deck 1: she draws it first and it lies under position 2's space.
    let in_decks = [vec![(0, DeckCard::Event(EventCard::F1))], Vec::new(), Vec::new()];
    let events = EventDeal { in_decks, piles: Default::default() };
    let mut game = Game::from_deal_with_events(rules, deal(&[4, 5, 6, 15, 16]), events).unwrap();
    play(&mut game, Role::Fugitive, place(3, &[]));
    play(&mut game, Role::Fugitive, Action::EndTurn);
    play(&mut game, Role::Marshal, draw(1));
    // The rest of her draws from deck 3, so that 7 and 8 stay in deck 1.
    while game.legal_actions(Role::Marshal).guess.is_none() {
        play(&mut game, Role::Marshal, draw(3));
    }
    play(&mut game, Role::Marshal, Action::Guess { numbers: cards(&[41]) });
    play(&mut game, Role::Fugitive, draw(1));
    play(&mut game, Role::Fugitive, place(7, &[]));
    let highest = sets(&game, Viewer::Spectator).at(2).last().map(Card::number);
    assert_eq!(highest, Some(8), "3 (position 1 at most) and 5 above it on the Safe House space");
}

/// The reach of face-down position `i` (1-based) as the public view shows it: its space's rule
/// with the sprint cards' value when known, else 2 a card (R9, R10, E4).
fn reach(view: &View, i: usize) -> u8 {
    let card = &view.trail[i];
    let space = view.events.as_ref().and_then(|e| e.trail.iter().find(|t| t.position == i)).map(|t| t.effect);
    let value = card.sprints.map_or(2 * card.sprint_count as u8, Cards::sprint_value);
    Reach::on(space).with(value)
}

/// The properties of one state of a running game.
fn check(game: &Game) {
    if game.is_over() {
        assert!(game.view(Viewer::Marshal).candidates().is_none(), "R18: nothing left to deduce");
        return;
    }
    assert!(game.view(Viewer::Fugitive).candidates().is_none(), "he knows his trail");
    let truth: Vec<(usize, Card)> = game.trail().hidden().map(|(i, h)| (i, h.card)).collect();
    let hers = sets(game, Viewer::Marshal);
    let public = sets(game, Viewer::Spectator);
    let context = || format!("{:?} {:?}", game.rules(), game.actions());
    for (who, candidates) in [("Marshal", &hers), ("spectator", &public)] {
        // (a) The true trail is inside every set, and no true hideout is ruled out.
        let positions: Vec<usize> = candidates.positions.iter().map(|p| p.position).collect();
        assert_eq!(positions, truth.iter().map(|t| t.0).collect::<Vec<_>>(), "{who}: {}", context());
        for &(position, hideout) in &truth {
            assert!(
                candidates.at(position).contains(hideout),
                "{who}: {hideout} at {position}: {}",
                context()
            );
            assert_eq!(candidates.why(hideout), None, "{who}: {hideout} ruled out: {}", context());
        }
        // (b) Every number has a predecessor within the reach: a candidate of the position
        // before, or the face-up number there (card 0 first).
        let view = game.view(Viewer::Spectator);
        for p in &candidates.positions {
            let before = match view.trail[p.position - 1].card.filter(|_| view.trail[p.position - 1].face_up)
            {
                Some(card) => Cards::from(card),
                None => candidates.at(p.position - 1),
            };
            let most = reach(&view, p.position);
            for n in p.numbers {
                let reachable = before.iter().any(|b| b < n && n.number() - b.number() <= most);
                assert!(
                    reachable,
                    "{who}: {n} at {} after {before:?} (reach {most}): {}",
                    p.position,
                    context()
                );
            }
        }
        // Every number 1–41 is a candidate or ruled out; the doubtful ones are candidates.
        let ruled = candidates.ruled_out.all();
        let out = &candidates.ruled_out;
        let sets = [out.revealed, out.sprint, out.held, out.guessed, out.trail];
        assert_eq!(sets.iter().map(|s| s.len()).sum::<usize>(), ruled.len(), "{who}: one reason each");
        let possible = candidates.positions.iter().fold(Cards::EMPTY, |all, p| all.union(p.numbers));
        assert_eq!(ruled.union(possible), Cards::range(1, 41), "{who}: {}", context());
        assert!(ruled.intersection(possible).is_empty(), "{who}: {}", context());
        assert!(candidates.doubtful.is_subset(possible), "{who}: {}", context());
    }
    // (c) Her sets lie within the spectator's: she knows her hand too (R20, R21).
    for p in &hers.positions {
        assert!(p.numbers.is_subset(public.at(p.position)), "position {}: {}", p.position, context());
    }
    assert!(hers.ruled_out.held.is_subset(game.hand(Role::Marshal)));
    let face_up = game.trail().face_up();
    assert!(hers.ruled_out.revealed.union(hers.ruled_out.sprint).is_subset(face_up));
    assert!(public.ruled_out.held.is_empty(), "a spectator does not see her hand");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// R9, R10, R12, R13, R20, R21, E4: at every state of random games, the sets hold the true
    /// trail, keep within the reach, and hers lie within the spectator's.
    #[test]
    fn the_public_sets_hold_the_true_trail_and_keep_within_the_reach(setup in setups(), play in plays()) {
        play.run(Game::new(setup), check);
    }
}

/// The same over games the random Marshal makes longer: she guesses only numbers of her hand
/// (always wrong, R12), often two at a time, so the trail grows to 42 with many open guesses.
#[test]
fn the_public_sets_hold_the_true_trail_in_long_games() {
    long_games(0..24, check);
}

/// `Candidates::of_after`, fed what it returned at the state before (as the server does at each
/// version), gives `Candidates::of` at every state, for her and for the spectators; and its
/// count without the wrong guesses is carried over, not made again, after a wrong guess
/// (issue 28).
#[test]
fn the_candidates_after_the_state_before_are_the_candidates() {
    let mut kept: [Option<(fugitive_core::Evidence, fugitive_core::Unguessed)>; 2] = [None, None];
    let (mut changes, mut carried) = (0, 0);
    long_games(0..12, |game| {
        for (index, viewer) in [Viewer::Marshal, Viewer::Spectator].into_iter().enumerate() {
            let Some(evidence) = game.view(viewer).evidence() else { return };
            let before = kept[index].take();
            let (candidates, unguessed) = Candidates::of_after(&evidence, before.as_ref().map(|(_, u)| u));
            assert_eq!(candidates, Candidates::of(&evidence), "{viewer:?}");
            // New evidence whose count without the guesses is the one before's: carried over.
            if let Some((last, last_unguessed)) = &before {
                if *last != evidence {
                    changes += 1;
                    carried += usize::from(unguessed.as_ref() == Some(last_unguessed));
                }
            }
            kept[index] = unguessed.map(|u| (evidence, u));
        }
    });
    assert!(carried > 0, "never carried over in {changes} changes of the evidence");
}

/// Evidence that differs only in what he has taken in all (his draws before he places the
/// card) counts the same (`Evidence::counts_the_same`): the same trail count, the same
/// candidates, for her and for the spectators (issue 28: the server counts again only for
/// evidence that does not count the same).
#[test]
fn evidence_that_counts_the_same_gives_the_same_candidates() {
    let mut last: [Option<fugitive_core::Evidence>; 2] = [None, None];
    let mut same = 0;
    long_games(0..12, |game| {
        for (index, viewer) in [Viewer::Marshal, Viewer::Spectator].into_iter().enumerate() {
            let evidence = game.view(viewer).evidence();
            if let (Some(before), Some(now)) = (&last[index], &evidence) {
                if before != now && before.counts_the_same(now) {
                    same += 1;
                    assert_eq!(before.count_trails(), now.count_trails(), "{viewer:?}");
                    assert_eq!(Candidates::of(before), Candidates::of(now), "{viewer:?}");
                }
            }
            last[index] = evidence;
        }
    });
    assert!(same > 0, "no draw of his left the evidence counting the same");
}

/// The numbers [`Evidence::count_trails`] counts a trail for at each face-down position.
fn counted_numbers(evidence: &Evidence) -> Vec<PositionNumbers> {
    let count = evidence.count_trails();
    let numbers =
        |p: &PositionTrails| p.numbers.iter().filter(|(_, trails)| *trails > 0).map(|&(n, _)| n).collect();
    count.positions.iter().map(|p| PositionNumbers { position: p.position, numbers: numbers(p) }).collect()
}

/// The evidence of one state, as varied as the rules allow: both viewers, with and without the
/// wrong guesses, with one more wrong guess of one or two of the candidates (which may leave
/// no trail), and, when a hideout was found, with a wrong guess of it alone made just before
/// (the "impossible" evidence only a hand-built view has).
fn evidence_of(game: &Game, rng: &mut rand_chacha::ChaCha8Rng) -> Vec<Evidence> {
    use rand::{Rng, seq::IteratorRandom};
    let mut all = Vec::new();
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let mut view = game.view(viewer);
        let Some(evidence) = view.evidence() else { continue };
        let possible =
            Candidates::of(&evidence).positions.iter().fold(Cards::EMPTY, |all, p| all.union(p.numbers));
        let size = rng.random_range(1..=2);
        let guess: Cards = possible.iter().choose_multiple(rng, size).into_iter().collect();
        all.extend(evidence.with_wrong_guess(guess));
        all.push(evidence.without_guesses());
        all.push(evidence);
        let found = view.history.iter().enumerate().find_map(|(at, event)| match *event {
            Event::Revealed { hideout, .. } => Some((at, hideout)),
            _ => None,
        });
        if let Some((at, hideout)) = found {
            view.history.insert(at, Event::Guessed { numbers: Cards::from(hideout), right: false });
            all.push(Evidence::read(&view));
        }
    }
    all
}

/// Issue 28: the numbers pass the candidates are made from (`Evidence::trail_numbers`) gives,
/// at every face-down position, exactly the numbers with at least one trail by the trail count
/// (`Evidence::count_trails`), for every evidence of every state of random and long games
/// (every event variant, many wrong guesses); and `Candidates::of` is made from them, so it is
/// what the trail count gave: its positions are those numbers, and what it rules out by the
/// wrong guesses is what the count without them allows.
#[test]
fn the_numbers_pass_gives_the_numbers_the_trail_count_gives() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(28);
    let (mut states, mut impossible, mut none) = (0, 0, 0);
    let mut check = |game: &Game| {
        states += 1;
        for evidence in evidence_of(game, &mut rng) {
            let counted = counted_numbers(&evidence);
            assert_eq!(evidence.trail_numbers(), counted, "{evidence:?}");
            let candidates = Candidates::of(&evidence);
            assert_eq!(candidates.positions, counted);
            let unguessed = counted_numbers(&evidence.without_guesses())
                .iter()
                .fold(Cards::EMPTY, |all, p| all.union(p.numbers));
            let out = candidates.ruled_out;
            assert_eq!(out.guessed, out.guessed.union(out.trail).intersection(unguessed), "{evidence:?}");
            impossible += usize::from(evidence.impossible());
            none += usize::from(evidence.count_trails().trails == 0);
        }
    };
    long_games(0..24, &mut check);
    for seed in 0..48 {
        let setup = fugitive_core::Setup::new(seed);
        support::Play::to_the_end(seed).run(Game::new(setup), &mut check);
    }
    assert!(
        impossible > 0 && none > impossible,
        "{states} states: {impossible} impossible, {none} without a trail"
    );
}

/// Plays the long games of `seeds` (see above), calling `visit` at every state.
fn long_games(seeds: std::ops::Range<u64>, mut visit: impl FnMut(&Game)) {
    use rand::{Rng, SeedableRng, seq::IteratorRandom};
    for seed in seeds {
        let rules = RuleOptions {
            opening_hideouts: if seed % 2 == 0 {
                fugitive_core::OpeningHideouts::OneOrTwo
            } else {
                fugitive_core::OpeningHideouts::ExactlyTwo
            },
            pass_bonus_draw: seed % 3 == 0,
            events: fugitive_core::EventVariant::ALL[seed as usize % fugitive_core::EventVariant::ALL.len()],
        };
        let mut game = game_with(rules, common::deal(&[4, 5, 6, 15, 16]));
        if seed >= 8 {
            game = Game::new(fugitive_core::Setup { seed: fugitive_core::Seed::from(seed), rules });
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        while let Some(role) = game.to_move() {
            visit(&game);
            let legal = game.legal_actions(role);
            let hand =
                game.hand(Role::Marshal).intersection(legal.guess.map(|g| g.numbers).unwrap_or_default());
            let action = match legal.guess {
                Some(g) if !hand.is_empty() && rng.random_bool(0.9) => {
                    let count = if g.single || hand.len() < 2 { 1 } else { rng.random_range(1..=2) };
                    Action::Guess {
                        numbers: hand.iter().choose_multiple(&mut rng, count).into_iter().collect(),
                    }
                }
                _ => legal.sample(&mut rng).expect("a legal action"),
            };
            play(&mut game, role, action);
        }
        visit(&game);
    }
}
