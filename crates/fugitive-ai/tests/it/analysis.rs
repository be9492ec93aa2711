//! The analysis of a finished game against a brute-force enumeration of its worlds (issue 26).
//!
//! A world fixes every card the Marshal cannot see (`deduction.rs`): the 3 + 2 cards he was
//! dealt (R3), the card each of his draws took (R8a), and each position's hideout and sprint
//! cards (R9, R10). The walk below tries every deal and every draw, then every trail his cards
//! allow, and keeps the worlds that agree with her view — written from the rules alone, not
//! from the notepad's code. Small moments only: at most two draws of his.

use crate::common;

use common::{brute_force, close, his_draws};
use fugitive_ai::{Analysis, Estimate, Level, Mark, MarshalBot, MarshalView, Playouts, analyse};
use fugitive_core::{Action, Card, Cards, Entry, Game, Role, Seed, Setup};

/// Plays a seeded game: the easy Fugitive against the hard Marshal.
fn seeded_game(seed: u64) -> (Setup, Vec<(Role, Entry)>) {
    let setup = Setup::new(Seed::from(seed));
    let mut game = Game::new(setup);
    let mut fugitive = fugitive_ai::FugitiveBot::new(Level::Easy, seed);
    let mut marshal = MarshalBot::new(Level::Hard, seed);
    while let Some(role) = game.to_move() {
        let action = match role {
            Role::Fugitive => fugitive.act(&fugitive_ai::FugitiveView::of(&game)),
            Role::Marshal => marshal.act(&MarshalView::of(&game)),
        };
        game.apply(role, action.expect("a bot moves")).expect("a bot's move is legal");
    }
    (setup, game.actions().to_vec())
}

/// His best alternative's worth, brute force: every legal placement (every allowed sprint set),
/// pass and end of the opening, each view she would be left with solved by enumeration.
fn best_cover(before: &Game) -> f64 {
    let legal = before.legal_actions(Role::Fugitive);
    let mut moves = vec![];
    if legal.pass {
        moves.push(Action::Pass);
    }
    if legal.end_turn {
        moves.push(Action::EndTurn);
    }
    for p in &legal.placements {
        let hand = before.hand(Role::Fugitive).without(p.hideout);
        for sprints in hand.subsets().filter(|s| p.sprints.allows(*s)) {
            moves.push(Action::Place { hideout: p.hideout, sprints });
        }
    }
    let mut views = std::collections::BTreeMap::new();
    for action in moves {
        let mut game = before.clone();
        game.apply(Role::Fugitive, action).unwrap();
        let view = MarshalView::of(&game);
        views.entry(serde_json::to_string(view.view()).unwrap()).or_insert((game, view));
    }
    views
        .values()
        .map(|(game, view)| {
            if game.is_over() {
                return 1.0;
            }
            let open = Cards::range(1, 41).difference(view.view().face_up());
            1.0 - brute_force(view).best(open)
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_seeded_games_analysis_agrees_with_brute_force() {
    let mut checked = [0; 2];
    // Her guesses, and best multi-number guesses, naming two uncertain numbers or more.
    let mut joint = [0; 2];
    for seed in [3, 11] {
        let (setup, actions) = seeded_game(seed);
        let analysis: Analysis =
            analyse(setup, &actions, Playouts { count: 0, rollouts: 1 }, &mut |_, _| true).unwrap();
        assert!(analysis.complete);
        for m in &analysis.moves {
            let before = Game::replay(setup, &actions[..m.step - 1]).unwrap();
            let after = Game::replay(setup, &actions[..m.step]).unwrap();
            if his_draws(&after) > 1 || after.is_over() {
                continue;
            }
            assert_eq!(m.estimate, None, "a small base game is exact");
            let late = MarshalView::of(&after);
            let open_after = Cards::range(1, 41).difference(late.view().face_up());
            assert!(
                close(m.next_guess, brute_force(&late).best(open_after)),
                "next guess at step {}",
                m.step
            );
            if m.role == Role::Marshal {
                let view = MarshalView::of(&before);
                let worlds = brute_force(&view);
                let Action::Guess { numbers } = m.action else { panic!("her marked moves are guesses") };
                assert!(close(m.worth, worlds.joint(numbers)), "her guess's chance at step {}", m.step);
                let open = Cards::range(1, 41).difference(view.view().face_up());
                assert!(close(m.best_worth, worlds.best(open)), "the best chance at step {}", m.step);
                let best = m.best_guess.as_ref().unwrap();
                assert!(close(best.single_chance, worlds.best(open)));
                assert!(
                    close(best.multi_chance, worlds.joint(best.multi)),
                    "the best multi-number guess's chance"
                );
                if !before.single_guess() {
                    assert!(
                        close(best.multi_reveal, worlds.best_reveal(open)),
                        "the best multi-number guess at step {}: {:?} reveals {}, the best of all guesses {}",
                        m.step,
                        best.multi,
                        best.multi_reveal,
                        worlds.best_reveal(open)
                    );
                    assert!(close(best.multi_reveal, best.multi_chance * best.multi.len() as f64));
                }
                let certain: Cards =
                    open.iter().filter(|&n| close(worlds.joint(Cards::from(n)), 1.0)).collect();
                joint[0] += usize::from(numbers.difference(certain).len() >= 2);
                joint[1] += usize::from(best.multi.difference(certain).len() >= 2);
                assert_eq!(m.mark, Mark::of(worlds.best(open) - worlds.joint(numbers)));
                checked[1] += 1;
            } else {
                assert!(close(m.worth, 1.0 - m.next_guess));
                assert!(close(m.best_worth, best_cover(&before)), "his best alternative at step {}", m.step);
                assert_eq!(m.mark, Mark::of(m.best_worth - m.worth));
                checked[0] += 1;
            }
        }
        assert!(analysis.accuracy.marshal.is_some() && analysis.accuracy.fugitive.is_some());
    }
    eprintln!("checked {checked:?}, joint {joint:?}");
    assert!(checked[1] >= 3 && checked[0] >= 3, "enough moves were checked: {checked:?}");
}

#[test]
fn the_caller_stops_the_playouts_and_it_says_so_with_every_move_marked() {
    let (setup, actions) = seeded_game(3);
    let full = analyse(setup, &actions, Playouts { count: 1, rollouts: 1 }, &mut |_, _| true).unwrap();
    let mut calls = vec![];
    let stopped = analyse(setup, &actions, Playouts { count: 1, rollouts: 1 }, &mut |done, total| {
        calls.push((done, total));
        done < 2
    })
    .unwrap();
    assert!(full.complete && !stopped.complete);
    assert_eq!(stopped.moves.len(), full.moves.len(), "every move is marked");
    assert_eq!(calls.last(), Some(&(full.moves.len(), full.moves.len())), "the progress ends at the total");
    let played: Vec<bool> = stopped.moves.iter().map(|m| m.fugitive_wins.is_some()).collect();
    assert_eq!(played.iter().filter(|p| **p).count(), 2);
    assert!(played[0] && played[1]);
    let marks = |a: &Analysis| a.moves.iter().map(|m| m.mark).collect::<Vec<_>>();
    assert_eq!(marks(&stopped), marks(&full));
}

#[test]
fn the_win_chance_is_played_out_and_ends_with_the_result() {
    let (setup, actions) = seeded_game(3);
    let analysis = analyse(setup, &actions, Playouts { count: 2, rollouts: 1 }, &mut |_, _| true).unwrap();
    let last = analysis.moves.last().unwrap();
    assert_eq!(last.fugitive_wins, Some(0.0), "the hard Marshal won this game");
    assert!(analysis.moves.iter().all(|m| m.fugitive_wins.is_some_and(|w| (0.0..=1.0).contains(&w))));
    assert!(analysis.moves.iter().all(|m| m.estimate != Some(Estimate::Budget)));
}

/// The exact joint chance of a multi-number guess (`Joint`), against the brute force: at every
/// moment of the seeded games where she is to guess with two face-down hideouts or more (and he
/// drew at most once), every pair and triple of the numbers she may name that are hideouts on
/// some world. Then her guess of two uncertain numbers in such a moment is analysed exactly.
#[test]
fn the_joint_chance_of_a_multi_number_guess_is_the_brute_forces() {
    let mut sets = 0;
    let mut correlated = 0;
    let mut guessed = 0;
    for seed in [3, 11] {
        let (setup, actions) = seeded_game(seed);
        for step in 0..actions.len() {
            let game = Game::replay(setup, &actions[..step]).unwrap();
            let guessing = game.to_move() == Some(Role::Marshal)
                && game.legal_actions(Role::Marshal).guess.is_some()
                && game.legal_actions(Role::Marshal).draws.is_empty();
            if !guessing || his_draws(&game) > 1 || game.trail().hidden().count() < 2 {
                continue;
            }
            let view = MarshalView::of(&game);
            let worlds = brute_force(&view);
            let joint = fugitive_ai::Joint::of(&view).expect("a small base game is exact");
            let open = Cards::range(1, 41).difference(view.view().face_up());
            let likely: Vec<Card> = open.iter().filter(|&n| worlds.joint(Cards::from(n)) > 0.0).collect();
            let share = |n: Card| worlds.joint(Cards::from(n));
            for guess in
                Cards::from_iter(likely.iter().copied()).subsets().filter(|s| (2..=3).contains(&s.len()))
            {
                let exact = joint.share(guess).unwrap();
                assert!(close(exact, worlds.joint(guess)), "{guess:?} at step {step}: {exact}");
                sets += 1;
                let bound = guess.iter().map(share).fold(1.0, f64::min);
                correlated += usize::from(exact > 0.0 && exact < bound - 1e-9);
            }
            // Her guess of the two likeliest uncertain numbers instead of hers, analysed.
            let mut uncertain: Vec<Card> = likely.iter().copied().filter(|&n| share(n) < 1.0).collect();
            uncertain.sort_by(|a, b| share(*b).total_cmp(&share(*a)));
            if uncertain.len() < 2 {
                continue;
            }
            let numbers = Cards::from_iter(uncertain[..2].iter().copied());
            let mut record = actions[..step].to_vec();
            record.push((Role::Marshal, Entry::Action(Action::Guess { numbers })));
            let analysis =
                analyse(setup, &record, Playouts { count: 0, rollouts: 1 }, &mut |_, _| true).unwrap();
            let m = analysis.moves.last().unwrap();
            assert_eq!(m.step, record.len());
            assert_eq!(m.estimate, None, "exact, not an estimate (joint)");
            assert!(close(m.worth, worlds.joint(numbers)), "her guess {numbers:?} at step {step}");
            assert_eq!(m.mark, Mark::of(worlds.best(open) - worlds.joint(numbers)));
            guessed += 1;
        }
    }
    eprintln!("sets {sets}, correlated {correlated}, guesses {guessed}");
    assert!(sets >= 10 && guessed >= 2, "enough were checked: {sets} sets, {guessed} guesses");
    assert!(correlated >= 1, "some joint chances are below the smallest share: the test tells them apart");
}
