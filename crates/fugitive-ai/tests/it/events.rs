//! The bots and the deduction in games with event variants (`EVENTS.md`): the bots answer
//! every pending decision (E3) with a legal choice and play every variant to the end, and the
//! deduction never rules out the true trail, Safe Houses and Roadblocks (F1, M1, N4),
//! Informant (M2) and Smoke Screen (F5) included.

use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Joint, Level, MarshalBot, MarshalView};
use fugitive_core::{
    Action, Card, Cards, EventVariant, Game, Phase, Role, RuleOptions, Seed, Setup, TrailEffect,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn setup(seed: u64, events: EventVariant) -> Setup {
    Setup::new(Seed::from(seed)).with_rules(RuleOptions { events, ..RuleOptions::default() })
}

/// Every face-down hideout's true number is among its candidates.
fn check_contains_truth(game: &Game) {
    let d = Deduction::of(&MarshalView::of(game));
    assert!(d.worlds() > 0, "no consistent trail in {:?}", game.actions());
    for (position, hideout) in game.trail().hidden() {
        assert!(
            d.share(position, hideout.card) > 0.0,
            "true hideout {} at {position} ruled out ({:?}): {:?}",
            hideout.card,
            game.rules().events,
            game.actions()
        );
    }
}

/// Plays a bot game; every action must be legal. Returns the game and how many choices the
/// bots made.
fn bot_game(seed: u64, events: EventVariant, fugitive: Level, marshal: Level, check: bool) -> (Game, usize) {
    let mut game = Game::new(setup(seed, events));
    let mut f = FugitiveBot::new(fugitive, seed).with_rollouts(2);
    let mut m = MarshalBot::new(marshal, seed);
    let mut choices = 0;
    while let Some(role) = game.to_move() {
        assert!(game.actions().len() < 2_000, "no end");
        if check {
            check_contains_truth(&game);
        }
        let action = match role {
            Role::Fugitive => f.act(&FugitiveView::of(&game)),
            Role::Marshal => m.act(&MarshalView::of(&game)),
        };
        let action = action.unwrap_or_else(|| panic!("the {role} bot has no move in {:?}", game.phase()));
        if let Phase::Pending { .. } = game.phase() {
            assert!(matches!(action, Action::Choose { .. }), "{action:?} answers {:?}", game.phase());
            choices += 1;
        }
        if let Err(error) = game.apply(role, action) {
            panic!("the {role} bot's {action:?} was refused in {:?}: {error}", game.phase());
        }
    }
    (game, choices)
}

#[test]
fn bots_answer_every_pending_decision_and_finish_every_variant() {
    let mut choices = 0;
    for events in EventVariant::ALL {
        for seed in 0..12 {
            for (fugitive, marshal) in [(Level::Easy, Level::Hard), (Level::Hard, Level::Easy)] {
                let (game, made) = bot_game(seed, events, fugitive, marshal, false);
                assert!(game.is_over());
                choices += made;
            }
        }
    }
    assert!(choices > 20, "only {choices} decisions came up");
}

#[test]
fn the_deduction_never_rules_out_the_true_trail_with_events() {
    for events in EventVariant::ALL {
        for seed in 0..15 {
            bot_game(seed, events, Level::Easy, Level::Hard, true);
        }
    }
}

#[test]
fn the_deduction_uses_stakeout_and_eyewitness() {
    // Play Helpful Events for the Marshal until a Stakeout or Eyewitness has been drawn: the
    // notepad counts worlds with what they told her, and leaves nothing out.
    for seed in 0..50 {
        let mut game = Game::new(setup(seed, EventVariant::HelpfulMarshal));
        let mut f = FugitiveBot::new(Level::Easy, seed);
        let mut m = MarshalBot::new(Level::Easy, seed);
        while let Some(role) = game.to_move() {
            let told = game.history().iter().any(|e| {
                matches!(
                    e,
                    fugitive_core::Event::StakeoutCounted { .. } | fugitive_core::Event::Eyewitness { .. }
                )
            });
            if told {
                let d = Deduction::of(&MarshalView::of(&game));
                assert!(d.exact(), "{:?}", game.actions());
                assert!(d.ignored_events().is_empty());
                let json = serde_json::to_string(&d).unwrap();
                assert!(!json.contains("ignored_events"), "{json}");
                return;
            }
            let action = match role {
                Role::Fugitive => f.act(&FugitiveView::of(&game)),
                Role::Marshal => m.act(&MarshalView::of(&game)),
            };
            game.apply(role, action.unwrap()).unwrap();
        }
    }
    panic!("no Stakeout or Eyewitness in 50 games");
}

#[test]
fn a_safe_house_widens_the_reach_the_deduction_allows() {
    // With F1 the hideout on its space may lie 5 above: the deduction must keep such trails
    // (checked at every position), and some games here do place one.
    let mut placed_on_safe_houses = 0;
    for seed in 0..40 {
        let (game, _) = bot_game(seed, EventVariant::HelpfulFugitive, Level::Easy, Level::Easy, true);
        let trail = game.trail().positions();
        placed_on_safe_houses += game
            .trail_events()
            .iter()
            .filter(|t| t.effect == TrailEffect::SafeHouse && t.position < trail.len())
            .count();
    }
    assert!(placed_on_safe_houses > 0, "no hideout was placed on a Safe House");
}

#[test]
fn the_hard_marshal_names_one_number_after_lie_low() {
    // F3 Lie Low: her next guess may name only one number, and the hard Marshal, who likes to
    // add every number she is certain of, must hold back to one (it once did not, and the
    // computer opponent stalled on a refused guess).
    let mut lie_low_guesses = 0;
    for seed in 0..40 {
        let mut game = Game::new(setup(seed, EventVariant::HelpfulFugitive));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut marshal = MarshalBot::new(Level::Hard, seed);
        while let Some(role) = game.to_move() {
            let legal = game.legal_actions(role);
            let action = match role {
                Role::Fugitive => legal.sample(&mut rng).unwrap(),
                Role::Marshal => {
                    let lie_low = game.phase() == Phase::Guess && legal.guess.is_some_and(|g| g.single);
                    lie_low_guesses += usize::from(lie_low);
                    marshal.act(&MarshalView::of(&game)).unwrap()
                }
            };
            if let Err(error) = game.apply(role, action) {
                panic!("the {role} bot's {action:?} was refused in {:?}: {error}", game.phase());
            }
        }
    }
    assert!(lie_low_guesses >= 10, "Lie Low came up only {lie_low_guesses} times");
}

/// Issue 29, goal 2: the `hard` Marshal does not open the escape (R15) by finding a hideout of
/// 30 or more alone while his 42 could reach past the trail's end; with Helpful Events for the
/// Fugitive, escapes were almost all of the `easy` Fugitive's wins against her. Games 0–199 of
/// this file's set-up: 13 escapes without that guard (`fugitive-sim --seed 1`: 151 of 2,000
/// before), 4 with it.
#[test]
fn the_hard_marshal_keeps_the_escape_shut() {
    let mut escapes = 0;
    for seed in 0..200 {
        let (game, _) = bot_game(seed, EventVariant::HelpfulFugitive, Level::Easy, Level::Hard, false);
        escapes += usize::from(game.outcome().is_some_and(|o| o.reason == fugitive_core::Reason::Escape));
    }
    assert!(escapes <= 8, "the easy Fugitive escaped in {escapes} of 200 games");
}

/// Every full set of face-down hideouts (one candidate per position, increasing along the
/// trail) with its exact chance, by brute force over the candidates.
fn every_set(view: &MarshalView, d: &Deduction) -> Vec<(Cards, f64)> {
    let joint = Joint::of(view).expect("an exact count");
    let mut sets = vec![Cards::EMPTY];
    for p in d.positions() {
        let numbers = p.candidates.iter().filter(|c| c.worlds > 0).map(|c| c.number);
        let numbers: Vec<Card> = numbers.collect();
        sets = sets
            .iter()
            .flat_map(|s| numbers.iter().filter(|&&n| s.iter().all(|m| m < n)).map(move |&n| s.with(n)))
            .collect();
    }
    sets.into_iter().map(|s| (s, joint.share(s).expect("within the budget"))).collect()
}

/// In the Manhunt (R16) she must name every face-down hideout, one at a time, and the first
/// miss loses: the `hard` Marshal's guess is a number of the full set most worlds give, checked
/// against every set by brute force in each Manhunt state of 600 games of helpful:fugitive. In
/// some of them the likeliest number alone is in no such set (the old, greedy guess; the test
/// fails on it), and the test says how many.
#[test]
fn the_hard_marshal_names_the_likeliest_set_in_the_manhunt() {
    let (mut checked, mut greedy_differs) = (0, 0);
    for seed in 0..600 {
        let mut game = Game::new(setup(seed, EventVariant::HelpfulFugitive));
        let mut f = FugitiveBot::new(Level::Easy, seed);
        let mut m = MarshalBot::new(Level::Hard, seed);
        while let Some(role) = game.to_move() {
            let action = match role {
                Role::Fugitive => f.act(&FugitiveView::of(&game)),
                Role::Marshal => {
                    let view = MarshalView::of(&game);
                    let action = m.act(&view);
                    let d = Deduction::of(&view);
                    let manhunt = view.view().trail.iter().any(|t| t.card == Some(Card::ESCAPE));
                    if let (true, true, Some(Action::Guess { numbers })) = (manhunt, d.exact(), action) {
                        let sets = every_set(&view, &d);
                        if d.positions().len() >= 2 && sets.len() <= 400 {
                            let best = |n: Card| {
                                sets.iter()
                                    .filter(|(s, _)| s.contains(n))
                                    .map(|&(_, p)| p)
                                    .fold(0.0, f64::max)
                            };
                            let most = sets.iter().map(|&(_, p)| p).fold(0.0, f64::max);
                            let guess = numbers.iter().next().expect("one number");
                            assert!(
                                best(guess) >= most * (1.0 - 1e-9),
                                "seed {seed}: {guess} is in no likeliest set ({} < {most})",
                                best(guess)
                            );
                            let greedy = d.positions().iter().flat_map(|p| &p.candidates).map(|c| c.number);
                            let greedy =
                                greedy.max_by(|a, b| d.hideout_share(*a).total_cmp(&d.hideout_share(*b)));
                            greedy_differs +=
                                usize::from(greedy.is_some_and(|g| best(g) < most * (1.0 - 1e-9)));
                            checked += 1;
                        }
                    }
                    action
                }
            };
            game.apply(role, action.expect("a move")).expect("a legal move");
        }
    }
    eprintln!(
        "{checked} Manhunt states checked, the greedy guess outside every likeliest set in {greedy_differs}"
    );
    assert!(checked >= 50 && greedy_differs >= 1, "{checked} states, {greedy_differs} where greedy differs");
}
