//! A found puzzle's answer is the only best one, by brute force over its worlds (issue 26).

mod common;

use fugitive_ai::puzzle::{self, Theme};
use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Card, Cards, Deal, Deck, Game, Role, RuleOptions, SprintOptions};

fn c(n: u8) -> Card {
    Card::new(n).unwrap()
}

fn cards(numbers: impl IntoIterator<Item = u8>) -> Cards {
    numbers.into_iter().map(c).collect()
}

/// His hand (R3: 1, 2, 3, 42, three of deck 1, two of deck 2) and the decks in ascending order
/// without it; deck 3 (29–41) is dealt to nobody, so it is the same in every world.
fn deal(dealt: Cards) -> Deal {
    let deck = |low: u8, high: u8| (low..=high).map(c).filter(|card| !dealt.contains(*card)).collect();
    Deal {
        decks: [deck(4, 14), deck(15, 28), deck(29, 41)],
        fugitive_hand: dealt.union(cards([1, 2, 3, 42])),
    }
}

/// The record: he hides at `first` (no sprint card); she draws from deck 3 and guesses 2, then
/// 3, both wrong; he draws from deck 3 and passes each time. Ends when she has drawn her third turn's card.
fn script(first: u8) -> Vec<(Role, Action)> {
    let draw = Action::Draw { deck: Deck::Three };
    let guess = |n: u8| Action::Guess { numbers: cards([n]) };
    use Role::{Fugitive as F, Marshal as M};
    vec![
        (F, Action::Place { hideout: c(first), sprints: Cards::EMPTY }),
        (F, Action::EndTurn),
        (M, draw),
        (M, draw),
        (M, guess(2)),
        (F, draw),
        (F, Action::Pass),
        (M, draw),
        (M, guess(3)),
        (F, draw),
        (F, Action::Pass),
        (M, draw),
    ]
}

/// The game of this deal and record, if every action of it is legal.
fn play(dealt: Cards, first: u8) -> Option<Game> {
    let mut game = Game::from_deal(RuleOptions::default(), deal(dealt)).ok()?;
    for (role, action) in script(first) {
        game.apply(role, action).ok()?;
    }
    Some(game)
}

#[test]
fn a_certain_guess_found_is_the_only_best_guess_over_every_world() {
    let game = play(cards([4, 5, 6, 15, 16]), 1).expect("the script is legal");
    let found = puzzle::find(&game);
    let certain: Vec<_> = found.iter().filter(|p| p.theme == Theme::Certain).collect();
    assert_eq!(certain.len(), 1, "{found:?}");
    let puzzle = certain[0];
    assert_eq!(puzzle.answer, cards([1]));
    assert_eq!(puzzle.view, *MarshalView::of(&game).view());

    // Every world: every deal of his hand and every first hideout with no sprint card (a
    // sprint card would show in the count she sees), kept when her view is the puzzle's
    // byte for byte (R22).
    let deck1 = cards(4..=14);
    let deck2 = cards(15..=28);
    let mut worlds = 0u64;
    let mut hideout = [0u64; 42];
    for three in deck1.subsets().filter(|s| s.len() == 3) {
        for two in deck2.subsets().filter(|s| s.len() == 2) {
            for first in 1..=41 {
                let Some(world) = play(three.union(two), first) else { continue };
                if MarshalView::of(&world).view() != &puzzle.view {
                    continue;
                }
                worlds += 1;
                for (_, h) in world.trail().hidden() {
                    hideout[usize::from(h.card.number())] += 1;
                }
            }
        }
    }
    assert!(worlds > 0);
    let deduction = Deduction::of(&MarshalView::of(&game));
    let share = |n: usize| hideout[n] as f64 / worlds as f64;
    // The answer is right on every world; every other number on at most half of them; and the
    // engine's shares are the brute force's.
    assert_eq!(hideout[1], worlds);
    for n in 1..=41u8 {
        let s = share(usize::from(n));
        if n != 1 {
            assert!(s <= puzzle::CERTAIN_RUNNER_UP, "{n} is a hideout on {s} of the worlds");
        }
        assert!((s - deduction.hideout_share(c(n))).abs() < 1e-9, "{n}");
    }
    assert!((puzzle.next - (2..=41).map(share).fold(0.0, f64::max)).abs() < 1e-9);
}

#[test]
fn before_the_second_wrong_guess_nothing_is_certain() {
    // After only the first wrong guess, 1 and 3 remain: no puzzle of hers yet.
    let mut game = Game::from_deal(RuleOptions::default(), deal(cards([4, 5, 6, 15, 16]))).unwrap();
    for (role, action) in script(1).into_iter().take(8) {
        game.apply(role, action).unwrap();
    }
    assert!(puzzle::find(&game).iter().all(|p| p.theme.role() == Role::Fugitive));
}

/// Replays the seeded game of the `easy` bots up to its `step`th action.
fn easy_game(seed: u64, step: usize) -> Game {
    let mut game = Game::new(fugitive_core::Setup::new(seed));
    let mut fugitive = FugitiveBot::new(Level::Easy, seed);
    let mut marshal = MarshalBot::new(Level::Easy, seed);
    while game.actions().len() < step {
        let role = game.to_move().expect("the game runs");
        let action = match role {
            Role::Fugitive => fugitive.act(&FugitiveView::of(&game)),
            Role::Marshal => marshal.act(&MarshalView::of(&game)),
        };
        game.apply(role, action.unwrap()).unwrap();
    }
    game
}

#[test]
fn a_finds_all_puzzle_found_is_the_only_best_guess_over_every_world() {
    // The easy bots' game 209 (found by looking through 600 seeded games for a moment the
    // brute force can walk: at most two draws of his): before her guess at its 8th action.
    let game = easy_game(209, 8);
    let puzzle = puzzle::at(&game).expect("a puzzle at this moment");
    assert_eq!(puzzle.theme, Theme::FindsAll);
    assert!(puzzle.answer.len() >= 2);
    let view = MarshalView::of(&game);
    assert_eq!(&puzzle.view, view.view());
    let worlds = common::brute_force(&view);
    assert!(worlds.total > 0);
    // On every world the face-down hideouts are exactly the answer: naming it finds them all,
    // and any other guess names a number that is no hideout (wrong) or fewer of them.
    for (hideouts, n) in &worlds.by_hideouts {
        assert_eq!(*hideouts, puzzle.answer, "{n} worlds hide elsewhere");
    }
    let open = Cards::range(1, 41).difference(view.view().face_up());
    assert!(common::close(worlds.joint(puzzle.answer), 1.0));
    assert!(common::close(worlds.best_reveal(open), puzzle.answer.len() as f64), "no guess reveals more");
    // A guess with a chance names hideouts of some world only: every other one is always wrong.
    let anywhere = worlds.by_hideouts.keys().fold(Cards::EMPTY, |all, h| all.union(*h)).intersection(open);
    for guess in anywhere.subsets().filter(|g| !g.is_empty() && *g != puzzle.answer) {
        let reveal = worlds.joint(guess) * guess.len() as f64;
        assert!(reveal < puzzle.answer.len() as f64 - 1e-9, "{guess:?} is as good");
    }
    // The engine's shares are the brute force's.
    let deduction = Deduction::of(&view);
    for n in open {
        assert!(common::close(deduction.hideout_share(n), worlds.joint(Cards::from(n))), "{n:?}");
    }
}

#[test]
fn a_cover_puzzle_found_is_the_only_best_least_placement_over_every_world() {
    // Found by random play over 4,000 deals (a moment the brute force can walk: one draw of
    // his): he hid at 2 with 11 under it, she missed with 1, he drew from deck 2.
    let mut game = Game::new(fugitive_core::Setup::new(2109u64));
    let draw = |deck| Action::Draw { deck };
    let script = [
        (Role::Fugitive, Action::Place { hideout: c(2), sprints: cards([11]) }),
        (Role::Fugitive, Action::EndTurn),
        (Role::Marshal, draw(Deck::One)),
        (Role::Marshal, draw(Deck::One)),
        (Role::Marshal, Action::Guess { numbers: cards([1]) }),
        (Role::Fugitive, draw(Deck::Two)),
    ];
    for (role, action) in script {
        game.apply(role, action).unwrap();
    }
    let puzzle = puzzle::at(&game).expect("a puzzle at this moment");
    assert_eq!(puzzle.theme, Theme::Cover);
    let answer = puzzle.answer.iter().next().unwrap();

    // Every placement his hand allows (every card, every least sprint set), and passing: her best
    // chance to name his newest hideout with one number, by brute force over the worlds of the
    // view each leaves her (the same view for the same count of sprint cards: solved once).
    let legal = game.legal_actions(Role::Fugitive);
    let mut solved: std::collections::HashMap<String, f64> = Default::default();
    let mut chance = |action: Action| {
        let mut after = game.clone();
        after.apply(Role::Fugitive, action).unwrap();
        let view = MarshalView::of(&after);
        let key = serde_json::to_string(view.view()).unwrap();
        *solved.entry(key).or_insert_with(|| common::brute_force(&view).newest_best())
    };
    let mut best = std::collections::BTreeMap::new();
    let mut of_answer = Vec::new();
    for p in &legal.placements {
        let hand = game.hand(Role::Fugitive).without(p.hideout);
        for sprints in hand.subsets().filter(|s| p.sprints.allows(*s)) {
            let c = chance(Action::Place { hideout: p.hideout, sprints });
            // The puzzle's placements: each card with a least set (no card to spare), as
            // `puzzle.rs` defines the theme. Over every set another card can tie (below).
            let least = match &p.sprints {
                SprintOptions::OneOf { .. } => true,
                SprintOptions::AtLeast { .. } => {
                    sprints.len() <= 3 && sprints.iter().all(|x| !p.sprints.allows(sprints.without(x)))
                }
            };
            if least {
                let b = best.entry(p.hideout).or_insert(f64::INFINITY);
                *b = f64::min(*b, c);
            }
            if p.hideout == answer {
                of_answer.push(c);
            }
        }
    }
    let pass = legal.pass.then(|| chance(Action::Pass));
    let mine = best[&answer];
    // The puzzle's figure is the answer's with its least sprint set: one of its placements,
    // the brute force's; more sprint cards under it may cover him better still.
    assert!(of_answer.iter().any(|&c| common::close(c, puzzle.best)), "{of_answer:?} {}", puzzle.best);
    assert!(common::close(mine, puzzle.best), "{mine} {}", puzzle.best);
    for (card, other) in &best {
        if *card != answer {
            assert!(mine < *other - 1e-9, "{card:?} covers as well: {other} against {mine}");
        }
    }
    if let Some(pass) = pass {
        assert!(mine < pass - 1e-9, "passing covers as well: {pass}");
    }
    assert!(best.len() >= 2, "a choice between cards");
}
