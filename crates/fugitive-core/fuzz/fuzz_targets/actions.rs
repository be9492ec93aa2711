//! Plays the bytes as a game: a seed, rule options, then (role, action) pairs, most of them
//! illegal, and now and then a time out. Every step checks that `legal_actions` agrees with
//! `is_legal` (and `time_out` with [`Game::time_out`]), that a refused entry changes nothing, and
//! that an accepted one keeps the cards, the trail and the views sound.
//! A run of random legal actions first, and about every fourth step after it, take the game to its
//! late turns. At the end the game must replay from its setup and actions.
#![no_main]

use fugitive_core::{
    Action, Card, Cards, Choice, Deck, Entry, EventVariant, Game, LegalActions, OpeningHideouts, Role, RuleOptions,
    Setup, View, Viewer,
};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = play(&mut u);
});

fn play(u: &mut Unstructured) -> Result<()> {
    // How many random legal actions to take first: the first byte, so even short inputs go deep.
    let warm_up = u.int_in_range(0..=127u8)?;
    let rules = RuleOptions {
        opening_hideouts: if u.arbitrary()? {
            OpeningHideouts::ExactlyTwo
        } else {
            OpeningHideouts::OneOrTwo
        },
        pass_bonus_draw: u.arbitrary()?,
        events: *u.choose(&EventVariant::ALL)?,
    };
    // A short seed leaves more of the input for actions.
    let seed: u32 = u.arbitrary()?;
    let setup = Setup::new(u64::from(seed)).with_rules(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(seed));
    let mut game = Game::new(setup);
    check_state(&game);
    for _ in 0..warm_up {
        let Some(role) = game.to_move() else { break };
        let action = game.legal_actions(role).sample(&mut rng);
        step(&mut game, role, action.expect("the mover always has a move").into());
    }
    while !u.is_empty() {
        let mover = game.to_move();
        let legal = mover.map(|role| game.legal_actions(role));
        let (role, action) = match (mover, legal) {
            (Some(role), Some(legal)) if u.ratio(1, 4)? => {
                let action = legal.sample(&mut rng).expect("the mover always has a move");
                (role, action.into())
            }
            _ => (pick_role(u, mover)?, pick_action(u, &game)?),
        };
        step(&mut game, role, action);
    }
    let replayed = Game::replay(setup, game.actions()).expect("accepted actions replay");
    assert_eq!(replayed, game, "replay rebuilds the same game");
    check_round_trip(&game);
    Ok(())
}

/// Whether `role` may make this entry now, by `is_legal` (by `time_out` on a clone for the
/// clock), and by `legal_actions`.
fn legality(game: &Game, role: Role, entry: Entry) -> (bool, bool) {
    let legal = game.legal_actions(role);
    match entry {
        Entry::Action(action) => (game.is_legal(role, &action), legal.contains(&action)),
        Entry::TimeOut => (game.clone().time_out(role).is_ok(), legal.time_out),
    }
}

/// Applies one entry and checks everything the rules promise about it.
fn step(game: &mut Game, role: Role, action: Entry) {
    for r in Role::ALL {
        let legal = game.legal_actions(r);
        let (is_legal, listed) = legality(game, r, action);
        assert_eq!(
            listed,
            is_legal,
            "legal_actions({r}) and is_legal disagree on {action:?} in {:?}",
            game.phase()
        );
        if game.is_over() {
            assert_eq!(legal, LegalActions::default(), "nothing is legal once the game is over");
        } else if game.to_move() != Some(r) {
            let resign_only = LegalActions { resign: true, ..LegalActions::default() };
            assert_eq!(legal, resign_only, "off turn only resigning is legal");
        }
    }
    let (ok, _) = legality(game, role, action);
    let before = game.clone();
    match game.apply_entry(role, action) {
        Err(error) => {
            assert!(!ok, "{role} {action:?} is legal but was refused: {error}");
            assert_eq!(*game, before, "a refused action ({error}) changed the game");
            assert!(!error.to_string().is_empty());
        }
        Ok(events) => {
            assert!(ok, "{role} {action:?} is illegal but was accepted");
            assert!(!events.is_empty(), "an accepted action leaves a trace");
            assert_eq!(events, game.history()[before.history().len()..]);
            assert_eq!(game.actions().last(), Some(&(role, action)));
            assert_eq!(game.actions().len(), before.actions().len() + 1);
            check_state(game);
        }
    }
}

/// Card conservation (R1–R3), an increasing trail (R9), and views that survive JSON.
fn check_state(game: &Game) {
    let mut seen = [0u8; 43];
    let mut count = |cards: &mut dyn Iterator<Item = Card>| {
        for card in cards {
            seen[usize::from(card.number())] += 1;
        }
    };
    for hideout in game.trail().positions() {
        count(&mut std::iter::once(hideout.card).chain(hideout.sprints));
    }
    for role in Role::ALL {
        count(&mut game.hand(role).iter());
    }
    for deck in Deck::ALL {
        count(&mut game.deck(deck).iter().filter_map(|c| c.hideout()));
    }
    for (number, times) in seen.iter().enumerate() {
        assert_eq!(*times, 1, "card {number} is held {times} times");
    }

    let trail = game.trail().positions();
    assert_eq!(trail[0].card, Card::START);
    assert!(trail[0].face_up, "card 0 lies face up");
    assert!(trail.windows(2).all(|w| w[0].card < w[1].card), "the trail rises: {trail:?}");
    assert!(trail.iter().all(|h| h.card != Card::ESCAPE || h.face_up), "42 lies face up");

    for viewer in Viewer::ALL {
        serde_json::to_string(&game.view(viewer)).expect("a view serializes");
    }
}

/// Every view reads back from its JSON as it was written (once per input: it is slow).
fn check_round_trip(game: &Game) {
    for viewer in Viewer::ALL {
        let view = game.view(viewer);
        let json = serde_json::to_string(&view).expect("a view serializes");
        let back: View = serde_json::from_str(&json).expect("a view deserializes");
        assert_eq!(back, view, "a view survives a JSON round trip");
    }
}

/// Usually the player to move, sometimes the other one.
fn pick_role(u: &mut Unstructured, mover: Option<Role>) -> Result<Role> {
    let role = match mover {
        Some(role) if u.ratio(3, 4)? => role,
        Some(role) => role.opponent(),
        None if u.arbitrary()? => Role::Fugitive,
        None => Role::Marshal,
    };
    Ok(role)
}

/// Any entry, its cards drawn half from what is on the table so that some are legal.
fn pick_action(u: &mut Unstructured, game: &Game) -> Result<Entry> {
    let hand = game.hand(Role::Fugitive);
    let hidden: Cards = game.trail().hidden().map(|(_, h)| h.card).collect();
    // Resigning and timing out end the game, so they are rare enough for games to run long.
    let action = match u.int_in_range(0..=63u8)? {
        0..=11 => Action::Draw { deck: *u.choose(&Deck::ALL)? },
        12..=29 => Action::Place { hideout: pick_card(u, hand)?, sprints: pick_cards(u, hand)? },
        30..=33 => Action::Pass,
        34..=37 => Action::EndTurn,
        38..=61 => {
            let mut numbers = Cards::EMPTY;
            for _ in 0..u.int_in_range(0..=3u8)? {
                numbers.insert(pick_card(u, hidden)?);
            }
            Action::Guess { numbers }
        }
        62 => Action::Resign,
        63 if u.arbitrary()? => return Ok(Entry::TimeOut),
        _ => Action::Choose { choice: pick_choice(u, game, hand)? },
    };
    Ok(Entry::Action(action))
}

/// An answer to a pending decision (E3): one of the legal ones half the time, else any.
fn pick_choice(u: &mut Unstructured, game: &Game, hand: Cards) -> Result<Choice> {
    let legal: Vec<Choice> = Role::ALL.iter().flat_map(|&r| game.legal_actions(r).choices).collect();
    if !legal.is_empty() && u.arbitrary()? {
        return Ok(*u.choose(&legal)?);
    }
    let card = pick_card(u, hand)?;
    let deck = *u.choose(&Deck::ALL)?;
    let position = usize::from(u.int_in_range(0..=9u8)?);
    let choice = match u.int_in_range(0..=7u8)? {
        0 => Choice::Card { card },
        1 => Choice::Sprint { card, position },
        2 => Choice::Hideout { position },
        3 => Choice::Range { deck },
        4 => Choice::Number { number: card },
        5 => Choice::Deck { deck },
        6 => Choice::Move { bottom: u.arbitrary()? },
        _ => Choice::Decline,
    };
    Ok(choice)
}

/// A card of `likely` three times in four, else any card.
fn pick_card(u: &mut Unstructured, likely: Cards) -> Result<Card> {
    let cards: Vec<Card> = likely.iter().collect();
    if !cards.is_empty() && u.ratio(3, 4)? {
        return Ok(*u.choose(&cards)?);
    }
    Ok(Card::new(u.int_in_range(0..=Card::MAX)?).expect("in range"))
}

/// No cards, a subset of `likely`, or any set of cards.
fn pick_cards(u: &mut Unstructured, likely: Cards) -> Result<Cards> {
    let bits: u64 = u.arbitrary()?;
    let mask = match u.int_in_range(0..=3u8)? {
        0 => 0,
        1 | 2 => bits & likely.bits(),
        _ => bits,
    };
    Ok(Card::all().filter(|c| mask >> c.number() & 1 == 1).collect())
}
