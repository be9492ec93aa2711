//! The deduction against the truth and against brute force.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use fugitive_ai::{Deduction, FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Card, Cards, Deck, Event, Game, Role, Seed, Setup, Viewer};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn c(n: u8) -> Card {
    Card::new(n).unwrap()
}

/// Plays a random game (`LegalActions::sample`), calling `visit` before every action.
fn random_game(seed: u64, mut visit: impl FnMut(&Game)) {
    let mut game = Game::new(Setup::new(Seed::from(seed)));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while let Some(role) = game.to_move() {
        visit(&game);
        let action = game.legal_actions(role).sample(&mut rng).unwrap();
        game.apply(role, action).unwrap();
    }
}

/// Plays a bot game, calling `visit` before every action.
fn bot_game(seed: u64, fugitive: Level, marshal: Level, mut visit: impl FnMut(&Game)) {
    let mut game = Game::new(Setup::new(Seed::from(seed)));
    let mut f = FugitiveBot::new(fugitive, seed).with_rollouts(2);
    let mut m = MarshalBot::new(marshal, seed);
    while let Some(role) = game.to_move() {
        visit(&game);
        let action = match role {
            Role::Fugitive => f.act(&FugitiveView::of(&game)),
            Role::Marshal => m.act(&MarshalView::of(&game)),
        };
        game.apply(role, action.unwrap()).unwrap();
    }
}

/// Both checks below on one notepad: solving it is most of these tests' time, so each state
/// is solved once, not once per check.
fn check_notepad(game: &Game) {
    let d = Deduction::of(&MarshalView::of(game));
    check_notepad_of(game, &d);
}

/// [`check_notepad`] with the notepad `d` of `game` solved already.
fn check_notepad_of(game: &Game, d: &Deduction) {
    check_contains_truth(game, d);
    check_within_public_sets(game, d);
}

/// How many random games (seeds `0..RANDOM_GAMES`) [`solved_random_games`] holds.
const RANDOM_GAMES: u64 = 80;

/// Every state of the random games of seeds `0..RANDOM_GAMES` (before each action), each with
/// the Marshal's notepad, by seed. Two tests check the same games' notepads: each state is
/// solved once for both (the first test to ask solves them, the other waits), not once per test.
fn solved_random_games() -> &'static [Vec<(Game, Deduction)>] {
    static SOLVED: OnceLock<Vec<Vec<(Game, Deduction)>>> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let solve = |seed| {
            let mut states = Vec::new();
            random_game(seed, |game| states.push((game.clone(), Deduction::of(&MarshalView::of(game)))));
            states
        };
        (0..RANDOM_GAMES).map(solve).collect()
    })
}

/// Every face-down hideout's true number is among the candidates of `d`, the Marshal's notepad
/// in `game`, and the counts add up.
fn check_contains_truth(game: &Game, d: &Deduction) {
    assert!(d.worlds() > 0, "no consistent world in {:?}", game.actions());
    let hidden: Vec<(usize, Card)> = game.trail().hidden().map(|(i, h)| (i, h.card)).collect();
    assert_eq!(d.positions().len(), hidden.len());
    for ((position, card), candidates) in hidden.into_iter().zip(d.positions()) {
        assert_eq!(candidates.position, position);
        assert!(
            d.share(position, card) > 0.0,
            "true hideout {card} at {position} ruled out: {:?}",
            game.actions()
        );
        assert_eq!(candidates.candidates.iter().map(|c| c.worlds).sum::<u128>(), d.worlds());
    }
}

/// The exact notepad's numbers at each face-down position are among the public sets the
/// Marshal's aids show (`View::candidates`, R20): hers, and so the spectator's (R21). The
/// notepad only ever narrows what the public rules allow. `d` is her notepad in `game`.
fn check_within_public_sets(game: &Game, d: &Deduction) {
    let hers = game.view(Viewer::Marshal).candidates().expect("the game runs");
    let public = game.view(Viewer::Spectator).candidates().expect("the game runs");
    let positions =
        |c: &fugitive_core::Candidates| c.positions.iter().map(|p| p.position).collect::<Vec<_>>();
    assert_eq!(d.positions().iter().map(|p| p.position).collect::<Vec<_>>(), positions(&hers));
    assert_eq!(positions(&hers), positions(&public));
    for p in d.positions() {
        let notepad: Cards = p.candidates.iter().map(|c| c.number).collect();
        assert!(
            notepad.is_subset(hers.at(p.position)),
            "position {}: {notepad:?} beyond {:?} in {:?}",
            p.position,
            hers.at(p.position),
            game.actions()
        );
        assert!(
            hers.at(p.position).is_subset(public.at(p.position)),
            "position {}: {:?}",
            p.position,
            game.actions()
        );
    }
}

#[test]
fn candidates_always_contain_the_true_hideouts_in_random_games() {
    let games = solved_random_games();
    assert_eq!(games.len(), 80);
    for (game, d) in games.iter().flatten() {
        check_notepad_of(game, d);
    }
}

#[test]
fn candidates_always_contain_the_true_hideouts_in_bot_games() {
    for seed in 0..40 {
        bot_game(seed, Level::Easy, Level::Hard, check_notepad);
        bot_game(seed, Level::Hard, Level::Easy, check_notepad);
    }
}

/// The definition of a consistent trail (see `deduction.rs`), checked trail by trail over
/// every increasing assignment of numbers to the face-down positions. Returns the count of
/// consistent trails and, per face-down position, the count for each number.
fn brute_force(view: &MarshalView) -> (u64, BTreeMap<usize, BTreeMap<u8, u64>>) {
    let v = view.view();
    let n = v.trail.len() - 1;
    let known: Vec<Option<u8>> =
        v.trail.iter().map(|t| t.card.filter(|_| t.face_up).map(Card::number)).collect();
    let revealed: Vec<Cards> = v.trail.iter().map(|t| t.sprints.unwrap_or_default()).collect();
    let mut excluded = v.hands.marshal.cards.unwrap();
    for (i, number) in known.iter().enumerate() {
        if let Some(number) = number {
            excluded.insert(c(*number));
        }
        excluded = excluded.union(revealed[i]);
    }
    let reach: Vec<u8> =
        v.trail.iter().map(|t| 3 + t.sprints.map_or(2 * t.sprint_count as u8, Cards::sprint_value)).collect();
    // What he had from each deck when each position was placed; each wrong guess.
    let mut had = vec![[0usize; 3]; n + 1];
    let mut drawn = [3usize, 2, 0];
    let mut face_down_then = vec![true; n + 1];
    let mut placed = 0;
    let mut wrong: Vec<(Cards, Vec<usize>)> = Vec::new();
    for event in &v.history {
        match *event {
            Event::Drew { role: Role::Fugitive, deck, .. } => drawn[deck.index()] += 1,
            Event::Placed { position, .. } => {
                had[position] = drawn;
                placed = position;
            }
            Event::Revealed { position, .. } => face_down_then[position] = false,
            Event::Guessed { numbers, right: false } => {
                wrong.push((numbers, (1..=placed).filter(|&j| face_down_then[j]).collect()));
            }
            _ => {}
        }
    }
    let consistent = |numbers: &[u8]| -> bool {
        for i in 1..=n {
            if numbers[i] <= numbers[i - 1] || numbers[i] - numbers[i - 1] > reach[i] {
                return false;
            }
            if known[i].is_none() && (numbers[i] > 41 || excluded.contains(c(numbers[i]))) {
                return false;
            }
            for deck in Deck::ALL {
                let hideouts = (1..=i).filter(|&j| Deck::of(c(numbers[j])) == Some(deck)).count();
                let sprints: usize = (1..=i).map(|j| revealed[j].intersection(deck.cards()).len()).sum();
                if hideouts + sprints > had[i][deck.index()] {
                    return false;
                }
            }
        }
        wrong
            .iter()
            .all(|(guess, down)| !guess.iter().all(|g| down.iter().any(|&j| numbers[j] == g.number())))
    };
    let mut total = 0;
    let mut counts: BTreeMap<usize, BTreeMap<u8, u64>> = BTreeMap::new();
    let mut numbers = vec![0u8; n + 1];
    fn walk(
        i: usize,
        numbers: &mut Vec<u8>,
        known: &[Option<u8>],
        reach: &[u8],
        visit: &mut dyn FnMut(&[u8]),
    ) {
        if i == numbers.len() {
            visit(numbers);
            return;
        }
        let choices: Vec<u8> = match known[i] {
            Some(number) => vec![number],
            // Only the numbers within reach: the rest would fail rule 3 at once.
            None => (numbers[i - 1] + 1..=41.min(numbers[i - 1] + reach[i])).collect(),
        };
        for number in choices {
            numbers[i] = number;
            walk(i + 1, numbers, known, reach, visit);
        }
    }
    walk(1, &mut numbers, &known, &reach, &mut |numbers: &[u8]| {
        if consistent(numbers) {
            total += 1;
            for i in (1..=n).filter(|&i| known[i].is_none()) {
                *counts.entry(i).or_default().entry(numbers[i]).or_default() += 1;
            }
        }
    });
    (total, counts)
}

/// The trail count (`Deduction::trails_only`, the bound the exact count prunes with) against
/// its brute force; `worlds.rs` checks the worlds.
fn check_against_brute_force(view: &MarshalView) {
    let d = Deduction::trails_only(view);
    let (total, counts) = brute_force(view);
    assert_eq!(d.worlds(), u128::from(total), "trail count of {:?}", view.view().history);
    let ours: BTreeMap<usize, BTreeMap<u8, u64>> = d
        .positions()
        .iter()
        .map(|p| (p.position, p.candidates.iter().map(|c| (c.number.number(), c.worlds as u64)).collect()))
        .collect();
    let theirs: BTreeMap<usize, BTreeMap<u8, u64>> =
        counts.into_iter().filter(|(_, m)| !m.is_empty()).collect();
    let ours: BTreeMap<usize, BTreeMap<u8, u64>> = ours.into_iter().filter(|(_, m)| !m.is_empty()).collect();
    assert_eq!(ours, theirs);
}

/// Plays `actions` from the deal of seed 7: decks 1 `[4,10,5,9,7,13,11,8]`, 2 `[20,19,22,…]`,
/// 3 `[37,32,36,…]`; the Fugitive holds 1, 2, 3, 6, 12, 14, 15, 28, 42.
fn seed_7(actions: &[(Role, Action)]) -> Game {
    let mut game = Game::new(Setup::new(7u64));
    for &(role, action) in actions {
        game.apply(role, action).unwrap();
    }
    game
}

fn place(h: u8, sprints: &[u8]) -> (Role, Action) {
    (Role::Fugitive, Action::Place { hideout: c(h), sprints: Cards::try_from(sprints).unwrap() })
}
fn draw(role: Role, deck: Deck) -> (Role, Action) {
    (role, Action::Draw { deck })
}
fn guess(numbers: &[u8]) -> (Role, Action) {
    (Role::Marshal, Action::Guess { numbers: Cards::try_from(numbers).unwrap() })
}

#[test]
fn trail_count_is_exact_on_hand_built_positions() {
    use Role::{Fugitive as F, Marshal as M};
    let mut actions = vec![
        place(3, &[]),
        place(6, &[]),
        draw(M, Deck::One),
        draw(M, Deck::Three),
        guess(&[5, 6]), // wrong: 5 is no hideout
    ];
    let game = seed_7(&actions);
    check_against_brute_force(&MarshalView::of(&game));
    // Two face-down hideouts within reach: (1..=3, then up to 3 above) less her 4.
    assert!(Deduction::of(&MarshalView::of(&game)).worlds() > 0);
    actions.extend([draw(F, Deck::Three), place(12, &[1, 2]), draw(M, Deck::One), guess(&[3])]);
    check_against_brute_force(&MarshalView::of(&seed_7(&actions)));
    actions.extend([draw(F, Deck::Two), place(15, &[]), draw(M, Deck::Two), guess(&[13])]);
    let game = seed_7(&actions);
    check_against_brute_force(&MarshalView::of(&game));
    let d = Deduction::of(&MarshalView::of(&game));
    check_contains_truth(&game, &d);
    // A revealed 3 with no sprint card: the next one is 4–6 less her 4, if it had no sprints.
    let second: Vec<u8> = d.positions()[0].candidates.iter().map(|c| c.number.number()).collect();
    assert_eq!(d.positions()[0].position, 2);
    assert_eq!(second, [5, 6]);
    // 5 and 6 were guessed together and wrong while both positions 1 and 2 were face down, but
    // 3 is position 1 — so position 2 = 6 is only possible if 5 was not on the trail: it isn't.
}

#[test]
fn a_card_of_deck_3_is_no_hideout_before_he_drew_from_deck_3() {
    // In random games: a face-down position placed before his first draw from deck 3 never
    // has a candidate of 29 or more, though its reach often goes that far. The games of seeds
    // 0..60, solved once for this test and the one above.
    let mut within_reach = 0;
    for (game, d) in solved_random_games()[..60].iter().flatten() {
        let view = MarshalView::of(game);
        let mut first_deck_3_draw_before = usize::MAX;
        let mut placed = 0;
        for event in &view.view().history {
            match *event {
                Event::Drew { role: Role::Fugitive, deck: Deck::Three, .. } => {
                    first_deck_3_draw_before = first_deck_3_draw_before.min(placed + 1)
                }
                Event::Placed { position, .. } => placed = position,
                _ => {}
            }
        }
        let trail = &view.view().trail;
        for p in d.positions().iter().filter(|p| p.position < first_deck_3_draw_before) {
            assert!(p.candidates.iter().all(|c| c.number.number() < 29), "{p:?}");
            // How far the reach alone would allow, from the last face-up card before it.
            let (base, from) = (0..p.position)
                .rev()
                .find_map(|j| trail[j].card.filter(|_| trail[j].face_up).map(|c| (c.number() as usize, j)))
                .unwrap();
            let reach: usize = (from + 1..=p.position).map(|j| 3 + 2 * trail[j].sprint_count).sum();
            if base + reach >= 29 {
                within_reach += 1;
            }
        }
    }
    assert!(within_reach > 30, "the rule was tested on only {within_reach} positions");
}

#[test]
fn trail_count_is_exact_on_small_random_positions() {
    let mut checked = 0;
    for seed in 0..40 {
        random_game(seed, |game| {
            if game.trail().hidden_count() <= 3 && game.trail().hideout_count() <= 6 {
                check_against_brute_force(&MarshalView::of(game));
                checked += 1;
            }
        });
    }
    assert!(checked > 300, "only {checked} positions checked");
}

#[test]
fn the_deduction_reads_only_the_marshals_view() {
    // Two games that differ only in what the Marshal cannot see — whether he opened with 2
    // or 3 — give her the same view and so the same deduction.
    let games: [Game; 2] = [2, 3].map(|h| {
        let mut game = Game::new(Setup::new(7u64));
        game.apply(Role::Fugitive, Action::Place { hideout: c(h), sprints: Cards::EMPTY }).unwrap();
        let sprint = Cards::from(c(1));
        game.apply(Role::Fugitive, Action::Place { hideout: c(6), sprints: sprint }).unwrap();
        game
    });
    assert_ne!(games[0], games[1]);
    let views = games.each_ref().map(MarshalView::of);
    assert_eq!(views[0], views[1]);
    assert_eq!(Deduction::of(&views[0]), Deduction::of(&views[1]));
    // The view as the server sends it, through JSON, gives the same deduction.
    random_game(11, |game| {
        let json = serde_json::to_string(&game.view(Viewer::Marshal)).unwrap();
        let received = MarshalView::new(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(Deduction::of(&received), Deduction::of(&MarshalView::of(game)));
    });
}

/// Plays the deal of seed 7: the Fugitive opens with 3 and 6 and then only passes; the
/// Marshal makes `guesses` wrong two-number guesses, each the first pair of `pairs` (given her
/// hand) she has not named yet, or the same pair again if `repeat`.
fn many_wrong_pairs(guesses: usize, repeat: bool) -> Game {
    let mut game = seed_7(&[place(3, &[]), place(6, &[])]);
    let mut named: Vec<Cards> = Vec::new();
    while let Some(role) = game.to_move() {
        let legal = game.legal_actions(role);
        let action = match (role, legal.draws.first()) {
            (_, Some(&deck)) => Action::Draw { deck },
            (Role::Fugitive, None) => Action::Pass,
            (Role::Marshal, None) if named.len() == guesses => break,
            (Role::Marshal, None) => {
                // Both numbers unknown to her, never both hideouts (3 and 6 are the only ones).
                let hand = game.hand(Role::Marshal);
                let pair = (1..=41u8)
                    .flat_map(|a| (a + 1..=41).map(move |b| Cards::from_iter([c(a), c(b)])))
                    .filter(|p| p.intersection(hand).is_empty() && *p != Cards::from_iter([c(3), c(6)]))
                    .find(|p| !named.contains(p) || (repeat && !named.is_empty()))
                    .unwrap();
                named.push(pair);
                Action::Guess { numbers: pair }
            }
        };
        game.apply(role, action).unwrap();
    }
    game
}

#[test]
fn many_wrong_two_number_guesses_never_empty_the_notepad() {
    // Issue 9, defect 2: after 32 open wrong two-number guesses the notepad counted no trail.
    for repeat in [false, true] {
        let game = many_wrong_pairs(60, repeat);
        let wrong =
            game.history().iter().filter(|e| matches!(e, Event::Guessed { right: false, .. })).count();
        assert_eq!(wrong, 60);
        check_contains_truth(&game, &Deduction::of(&MarshalView::of(&game)));
    }
}
