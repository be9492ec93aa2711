//! A found puzzle's answer is the only best one, by brute force over its worlds (issue 26).

use fugitive_ai::puzzle::{self, Theme};
use fugitive_ai::{Deduction, MarshalView};
use fugitive_core::{Action, Card, Cards, Deal, Deck, Game, Role, RuleOptions};

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
