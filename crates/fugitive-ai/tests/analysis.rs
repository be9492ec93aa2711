//! The analysis of a finished game against a brute-force enumeration of its worlds (issue 26).
//!
//! A world fixes every card the Marshal cannot see (`deduction.rs`): the 3 + 2 cards he was
//! dealt (R3), the card each of his draws took (R8a), and each position's hideout and sprint
//! cards (R9, R10). The walk below tries every deal and every draw, then every trail his cards
//! allow, and keeps the worlds that agree with her view — written from the rules alone, not
//! from the notepad's code. Small moments only: at most two draws of his.

use std::collections::HashMap;

use fugitive_ai::{Analysis, Estimate, Level, Mark, MarshalBot, MarshalView, Playouts, analyse};
use fugitive_core::{Action, Card, Cards, Deck, Entry, Event, Game, Role, Seed, Setup};

/// Worlds counted by the set of face-down hideouts they give.
struct Worlds {
    total: u128,
    by_hideouts: HashMap<Cards, u128>,
}

impl Worlds {
    /// The share of worlds on which every number of `numbers` is a face-down hideout.
    fn joint(&self, numbers: Cards) -> f64 {
        let n: u128 = self.by_hideouts.iter().filter(|(h, _)| numbers.is_subset(**h)).map(|(_, n)| n).sum();
        n as f64 / self.total as f64
    }

    /// Her best chance: the largest share of a number she may name.
    fn best(&self, open: Cards) -> f64 {
        open.iter().map(|n| self.joint(Cards::from(n))).fold(0.0, f64::max)
    }
}

/// What she saw, read from her view.
struct Seen {
    face_up: Vec<Option<Card>>,
    sprint_count: Vec<usize>,
    revealed_sprints: Vec<Option<Cards>>,
    placed_at: Vec<usize>,
    /// His draws: (time, deck).
    draws: Vec<(usize, Deck)>,
    /// Wrong guesses with the face-down positions then.
    wrong: Vec<(Cards, Vec<usize>)>,
    hers: Cards,
    up: Cards,
}

fn seen(view: &MarshalView) -> Seen {
    let v = view.view();
    let n = v.trail.len() - 1;
    let mut placed_at = vec![0; n + 1];
    let mut down = vec![false; n + 1];
    let mut draws = Vec::new();
    let mut wrong = Vec::new();
    for (at, event) in v.history.iter().enumerate() {
        match *event {
            Event::Drew { role: Role::Fugitive, deck, .. } => draws.push((at + 1, deck)),
            Event::Placed { position, hideout, .. } => {
                placed_at[position] = at + 1;
                down[position] = hideout != Some(Card::ESCAPE);
            }
            Event::Revealed { position, .. } => down[position] = false,
            Event::Guessed { numbers, right: false } => {
                wrong.push((numbers, (1..=n).filter(|&j| down[j]).collect()));
            }
            _ => {}
        }
    }
    Seen {
        face_up: v.trail.iter().map(|t| t.card.filter(|_| t.face_up)).collect(),
        sprint_count: v.trail.iter().map(|t| t.sprint_count).collect(),
        revealed_sprints: v.trail.iter().map(|t| t.sprints.filter(|_| t.face_up)).collect(),
        placed_at,
        draws,
        wrong,
        hers: v.hands.marshal.cards.expect("her own view"),
        up: v.face_up(),
    }
}

fn k_subsets(from: Cards, k: usize) -> impl Iterator<Item = Cards> {
    from.subsets().filter(move |s| s.len() == k)
}

fn brute_force(view: &MarshalView) -> Worlds {
    let s = seen(view);
    let mut worlds = Worlds { total: 0, by_hideouts: HashMap::new() };
    let fixed: Cards = [1, 2, 3, 42].into_iter().filter_map(Card::new).collect();
    for d1 in k_subsets(Deck::One.cards().difference(s.hers), 3) {
        for d2 in k_subsets(Deck::Two.cards().difference(s.hers), 2) {
            draw(&s, 0, fixed.union(d1).union(d2), &mut Vec::new(), &mut worlds);
        }
    }
    worlds
}

/// Tries every card for his draw `i`, then the trails.
fn draw(s: &Seen, i: usize, his: Cards, drawn: &mut Vec<(usize, Card)>, worlds: &mut Worlds) {
    let Some(&(time, deck)) = s.draws.get(i) else {
        let dealt = his.difference(drawn.iter().map(|d| d.1).collect());
        trail(s, 1, dealt, drawn, Cards::EMPTY, 0, &mut Vec::new(), worlds);
        return;
    };
    for card in deck.cards().difference(s.hers).difference(his).iter() {
        drawn.push((time, card));
        draw(s, i + 1, his.with(card), drawn, worlds);
        drawn.pop();
    }
}

/// Places position `j` from the cards he held then, less those `used`.
#[allow(clippy::too_many_arguments)]
fn trail(
    s: &Seen,
    j: usize,
    dealt: Cards,
    drawn: &[(usize, Card)],
    used: Cards,
    last: u8,
    hideouts: &mut Vec<(usize, Card)>,
    worlds: &mut Worlds,
) {
    if j == s.face_up.len() {
        let ok = s.wrong.iter().all(|(numbers, down)| {
            !numbers.iter().all(|n| hideouts.iter().any(|&(p, h)| h == n && down.contains(&p)))
        });
        if ok {
            let down: Cards = hideouts.iter().filter(|(p, _)| s.face_up[*p].is_none()).map(|p| p.1).collect();
            worlds.total += 1;
            *worlds.by_hideouts.entry(down).or_default() += 1;
        }
        return;
    }
    let held = drawn
        .iter()
        .filter(|(t, _)| *t < s.placed_at[j])
        .map(|d| d.1)
        .collect::<Cards>()
        .union(dealt)
        .difference(used);
    let choices: Vec<Card> = match s.face_up[j] {
        Some(card) => held.contains(card).then_some(card).into_iter().collect(),
        None => held.difference(s.up).difference(s.hers).iter().filter(|&h| h != Card::ESCAPE).collect(),
    };
    for h in choices {
        if h.number() <= last {
            continue;
        }
        let pool = held.without(h).without(Card::ESCAPE);
        let stacks: Vec<Cards> = match s.revealed_sprints[j] {
            Some(known) if known.is_subset(pool) => vec![known],
            Some(_) => vec![],
            None => k_subsets(pool.difference(s.up), s.sprint_count[j]).collect(),
        };
        for stack in stacks {
            if h.number() - last > 3 + stack.sprint_value() {
                continue;
            }
            hideouts.push((j, h));
            trail(s, j + 1, dealt, drawn, used.with(h).union(stack), h.number(), hideouts, worlds);
            hideouts.pop();
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

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

fn his_draws(game: &Game) -> usize {
    game.history().iter().filter(|e| matches!(e, Event::Drew { role: Role::Fugitive, .. })).count()
}

#[test]
fn a_seeded_games_analysis_agrees_with_brute_force() {
    let mut checked = [0; 2];
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
    eprintln!("checked {checked:?}");
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
