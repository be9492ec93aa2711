//! The rules of `RULES.md`, R1–R22, one test or more per rule, each named after its rule.
//!
//! Positions come from hand-built deals (see `common`), so every card is where the test says it
//! is. Unless a test says otherwise the Fugitive holds 1, 2, 3, 4, 5, 6, 15, 16, 42 ([`HAND`])
//! and the decks are 7–14, 17–28 and 29–41, each in ascending order, lowest on top.

use crate::common;

use common::{
    HAND, card, cards, cards_in_decks, deal, deal_with_tops, deck, draw, fugitive_turn, game, game_with,
    guess, hidden, lowest_deck, marshal_turn, place, play, refused, refused_now,
};
use fugitive_core::{
    Action, ActionError, Card, Cards, Choice, Deal, DealError, Decision, Deck, Entry, Event, Game, HandView,
    Hideout, OpeningHideouts, Outcome, Phase, PhaseReason, Reason, Role, RuleOptions, Seed, Setup, TrailCard,
    View, Viewer,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use Role::{Fugitive, Marshal};

fn json(view: &View) -> String {
    serde_json::to_string(view).expect("a view serializes")
}

fn exactly_two() -> RuleOptions {
    RuleOptions { opening_hideouts: OpeningHideouts::ExactlyTwo, ..RuleOptions::default() }
}

/// The usual hand after the opening 3 (over sprint card 1, a bluff) and 6; the Marshal drew 7 and
/// 8 and missed with 41; the Fugitive drew 9 and placed it over 2 (another bluff). The Marshal
/// holds 7, 8 and must draw; face down lie 3 {1}, 6 {} and 9 {2}.
fn three_hideouts() -> Game {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[1]));
    play(&mut game, Fugitive, place(6, &[]));
    marshal_turn(&mut game, &[41]);
    fugitive_turn(&mut game, 1, place(9, &[2]));
    assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
    game
}

/// A long chase: the trail runs 0, 3, 6, 9, 12, 15, 18, `high`, 32, 35, 38, all face down but
/// `high` when `reveal` is set. The Fugitive has just drawn (the other of 29 and 30) and holds
/// 26 and 42 besides: he may now play 42 over 26.
fn chase(high: u8, reveal: bool) -> Game {
    // He holds 6, 9, 12, 15, 18 to climb by threes, draws 20, 22, 24, 26 from deck 2 to sprint
    // with, then `high`, 32, 35, 38 from deck 3. The Marshal draws from deck 1, later deck 2.
    let deal = deal_with_tops(&[6, 9, 12, 15, 18], [&[], &[20, 22, 24, 26], &[high, 32, 35, 38]]);
    let mut game = game_with(RuleOptions::default(), deal);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, place(6, &[]));
    let turns = [
        (2, place(9, &[])),
        (2, place(12, &[])),
        (2, place(15, &[])),
        (2, place(18, &[])),
        (3, place(high, &[1, 2, 20, 22, 24])),
        (3, place(32, &[])),
        (3, place(35, &[])),
        (3, place(38, &[])),
    ];
    let mut next_guess = 41; // nowhere on the trail: a miss
    for (n, action) in turns {
        marshal_turn(&mut game, &[next_guess]);
        fugitive_turn(&mut game, n, action);
        let placed_high = game.trail().last_card() == card(high);
        next_guess = if reveal && placed_high { high } else { 41 };
    }
    marshal_turn(&mut game, &[next_guess]);
    play(&mut game, Fugitive, draw(3));
    assert_eq!(game.phase(), Phase::PlaceOrPass);
    assert_eq!(game.hand(Fugitive), cards(&[26, 42, 59 - high]));
    game
}

/// [`chase`] with nothing revealed, after the Fugitive played 42: the Manhunt is on.
fn manhunt() -> Game {
    let mut game = chase(30, false);
    play(&mut game, Fugitive, place(42, &[26]));
    assert_eq!(game.phase(), Phase::Manhunt);
    game
}

// R1 ---------------------------------------------------------------------------------------------

#[test]
fn r1_sprint_values_even_two_odd_one() {
    for n in 1..=42 {
        let expected = if n % 2 == 0 { 2 } else { 1 };
        assert_eq!(card(n).sprint_value(), expected, "card {n}");
    }
    assert_eq!(card(42).sprint_value(), 2);
    assert_eq!(cards(&[1, 2, 3, 4]).sprint_value(), 6);
    assert_eq!(Card::all().count(), 43);
    assert_eq!(Card::new(43), None);
    assert!(serde_json::from_str::<Card>("43").is_err());
}

// R2, R3 -----------------------------------------------------------------------------------------

#[test]
fn r2_decks_hold_their_own_cards_and_card_0_starts_the_trail() {
    assert_eq!(Deck::One.cards(), Cards::range(4, 14));
    assert_eq!(Deck::Two.cards(), Cards::range(15, 28));
    assert_eq!(Deck::Three.cards(), Cards::range(29, 41));
    assert_eq!(Deck::ALL.map(|d| d.cards().len()), [11, 14, 13]);
    for seed in 0..20u64 {
        let game = Game::new(Setup::new(seed));
        let hand = game.hand(Fugitive);
        let mut everywhere = hand;
        for d in Deck::ALL {
            let in_deck: Cards = game.deck(d).iter().filter_map(|c| c.hideout()).collect();
            assert_eq!(in_deck.len(), game.deck(d).len(), "seed {seed}: a card twice in {d}");
            assert_eq!(in_deck, d.cards().difference(hand), "seed {seed}: {d}");
            everywhere = everywhere.union(in_deck);
        }
        assert_eq!(Deck::ALL.map(|d| game.deck(d).len()), [8, 12, 13]);
        let start = Hideout { card: Card::START, sprints: Cards::EMPTY, face_up: true, shown: None };
        assert_eq!(game.trail().positions(), [start]);
        assert_eq!(everywhere.with(Card::START), Cards::range(0, 42), "every card somewhere");
    }
}

#[test]
fn r3_starting_hands() {
    for seed in 0..20u64 {
        let game = Game::new(Setup::new(seed));
        let hand = game.hand(Fugitive);
        assert_eq!(hand.len(), 9);
        assert!(cards(&[1, 2, 3, 42]).is_subset(hand));
        assert_eq!(hand.intersection(Deck::One.cards()).len(), 3);
        assert_eq!(hand.intersection(Deck::Two.cards()).len(), 2);
        assert_eq!(hand.intersection(Deck::Three.cards()), Cards::EMPTY);
        assert_eq!(game.hand(Marshal), Cards::EMPTY);
    }
}

#[test]
fn r2_r3_hand_built_deals_are_checked() {
    let no_42 = |mut d: Deal| {
        d.fugitive_hand = d.fugitive_hand.without(card(42)).with(card(7));
        d.decks[0].retain(|&c| c != card(7));
        d
    };
    let twice = |mut d: Deal| {
        d.decks[1].push(card(17));
        d
    };
    let missing = |mut d: Deal| {
        d.decks[2].pop();
        d
    };
    let hand_card_in_deck = |mut d: Deal| {
        d.decks[0].push(card(4));
        d
    };
    let cases: [(Deal, DealError); 5] = [
        (no_42(deal(&HAND)), DealError::Hand),
        (deal(&[4, 5, 6, 7, 15]), DealError::Hand),
        (twice(deal(&HAND)), DealError::Deck(Deck::Two)),
        (missing(deal(&HAND)), DealError::Deck(Deck::Three)),
        (hand_card_in_deck(deal(&HAND)), DealError::Deck(Deck::One)),
    ];
    for (bad, expected) in cases {
        assert_eq!(Game::from_deal(RuleOptions::default(), bad).unwrap_err(), expected);
    }
    assert!(DealError::Hand.to_string().ends_with("(R3)"));
    assert!(DealError::Deck(Deck::One).to_string().ends_with("(R2)"));
    deal(&HAND).check().unwrap();
}

// R4 ---------------------------------------------------------------------------------------------

#[test]
fn r4_same_seed_and_same_actions_give_the_same_game() {
    let setup = Setup::new(2026u64);
    let mut a = Game::new(setup);
    let mut b = Game::new(setup);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    while let Some(role) = a.to_move() {
        let action = a.legal_actions(role).sample(&mut rng).expect("the mover has a move");
        assert_eq!(play(&mut a, role, action), play(&mut b, role, action));
        for viewer in Viewer::ALL {
            assert_eq!(json(&a.view(viewer)), json(&b.view(viewer)));
        }
    }
    assert_eq!(a, b);
    assert_eq!(Game::replay(setup, a.actions()).unwrap(), a);
}

#[test]
fn r4_different_seeds_deal_differently() {
    let deals: Vec<Deal> = (0..10u64).map(|s| Game::new(Setup::new(s)).deal().clone()).collect();
    for (i, a) in deals.iter().enumerate() {
        for b in &deals[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn r4_seed_and_deck_order_stay_hidden_while_the_game_runs() {
    let seed = Seed::from(7u64);
    let mut game = Game::new(Setup::new(seed));
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    for viewer in Viewer::ALL {
        let view = game.view(viewer);
        assert_eq!(view.seed, None);
        assert!(view.decks.iter().all(|d| d.cards.is_none()));
        assert!(!json(&view).contains(&String::from(seed)));
    }
}

// R5 ---------------------------------------------------------------------------------------------

#[test]
fn r5_the_fugitive_moves_first_then_turns_alternate() {
    let mut game = game(&HAND);
    assert_eq!(game.to_move(), Some(Fugitive));
    play(&mut game, Fugitive, place(3, &[]));
    assert_eq!(game.to_move(), Some(Fugitive));
    play(&mut game, Fugitive, Action::EndTurn);
    for _ in 0..3 {
        assert_eq!(game.to_move(), Some(Marshal));
        marshal_turn(&mut game, &[41]);
        assert_eq!(game.to_move(), Some(Fugitive));
        fugitive_turn(&mut game, 3, Action::Pass);
    }
}

#[test]
fn r5_out_of_turn_and_wrong_role_actions_are_refused_and_change_nothing() {
    let mut game = game(&HAND);
    let not_marshals_turn = ActionError::NotYourTurn { expected: Fugitive, actual: Marshal };
    assert_eq!(refused(&mut game, Marshal, draw(1)), not_marshals_turn);
    assert_eq!(refused(&mut game, Marshal, guess(&[3])), not_marshals_turn);
    assert_eq!(refused(&mut game, Marshal, place(3, &[])), ActionError::WrongRole(Fugitive));
    assert_eq!(refused(&mut game, Marshal, Action::Pass), ActionError::WrongRole(Fugitive));
    assert_eq!(refused(&mut game, Fugitive, guess(&[3])), ActionError::WrongRole(Marshal));

    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    let err = refused(&mut game, Fugitive, draw(1));
    assert_eq!(err, ActionError::NotYourTurn { expected: Marshal, actual: Fugitive });
    assert_eq!(err.to_string(), "it is the Marshal's turn, not the Fugitive's (R5)");
    assert_eq!(err.code(), "not_your_turn");
    let err = refused(&mut game, Marshal, Action::EndTurn);
    assert_eq!(err, ActionError::WrongRole(Fugitive));
    assert_eq!(err.to_string(), "only the Fugitive may do that (R5)");
    assert_eq!(err.code(), "wrong_role");
}

#[test]
fn r5_every_refusal_names_its_rule() {
    // The crate promises that each error message names the rule it enforces.
    let c = card(7);
    let errors = [
        ActionError::GameOver,
        ActionError::NotYourTurn { expected: Fugitive, actual: Marshal },
        ActionError::WrongRole(Fugitive),
        ActionError::DeckEmpty(Deck::One),
        ActionError::NotInHand(c),
        ActionError::SprintNotInHand(c),
        ActionError::SprintIsHideout(c),
        ActionError::SprintIs42,
        ActionError::NotAbove { hideout: c, last: c },
        ActionError::TooFar { hideout: c, last: c, sprint: 0 },
        ActionError::NoSecondHideout,
        ActionError::EmptyGuess,
        ActionError::GuessOutOfRange(c),
        ActionError::GuessFaceUp(c),
        ActionError::ManhuntOneNumber,
    ];
    for err in errors {
        let message = err.to_string();
        assert!(message.ends_with(')') && message.contains("(R"), "{message:?} names no rule");
    }
}

// R6 ---------------------------------------------------------------------------------------------

#[test]
fn r6_one_or_two_opening_hideouts_and_no_draw() {
    let mut one = game(&HAND);
    let err = refused(&mut one, Fugitive, Action::EndTurn);
    assert!(matches!(err, ActionError::WrongPhase { .. }) && err.to_string().contains("(R6)"), "{err}");
    assert_eq!(err.reason(), Some("place_first"));
    let err = refused(&mut one, Fugitive, draw(1));
    assert!(err.to_string().contains("(R6)"), "{err}");
    assert_eq!(err.code(), "wrong_phase");
    assert_eq!(err.reason(), Some("no_draw_first_turn"));
    play(&mut one, Fugitive, place(3, &[]));
    assert_eq!(one.phase(), Phase::Opening { placed: 1 });
    assert_eq!(play(&mut one, Fugitive, Action::EndTurn), [Event::TurnEnded]);
    assert_eq!(one.phase(), Phase::Draw { role: Marshal, left: 2 });

    // A second hideout ends the turn by itself.
    let mut two = game(&HAND);
    play(&mut two, Fugitive, place(3, &[]));
    play(&mut two, Fugitive, place(6, &[]));
    assert_eq!(two.phase(), Phase::Draw { role: Marshal, left: 2 });
    assert_eq!(hidden(&two), [3, 6]);
    refused(&mut two, Fugitive, place(15, &[1, 2]));
}

#[test]
fn r6_exactly_two_refuses_a_first_hideout_with_no_legal_second() {
    // Hideout 4 over every other card but 42 leaves only 42, which cannot follow 4. Hideout 2
    // over all but 6 and 42 leaves 6, one too far above 2, and 6 cannot sprint over itself.
    let greedy = [place(4, &[1, 2, 3, 5, 6, 15, 16]), place(2, &[1, 3, 4, 5, 15, 16])];
    let mut game = game_with(exactly_two(), deal(&HAND));
    for first in greedy {
        assert!(common::game(&HAND).is_legal(Fugitive, &first), "legal under one_or_two");
        let err = refused(&mut game, Fugitive, first);
        assert_eq!(err, ActionError::NoSecondHideout);
        assert_eq!(err.code(), "no_second_hideout");
        assert!(err.to_string().contains("(R6)"));
    }
    // Leaving 6 and 5 is fine: 6 follows 2 over 5.
    assert!(game.is_legal(Fugitive, &place(2, &[1, 3, 4, 15, 16])));

    play(&mut game, Fugitive, place(3, &[]));
    let err = refused(&mut game, Fugitive, Action::EndTurn);
    assert!(matches!(err, ActionError::WrongPhase { .. }) && err.to_string().contains("(R6)"), "{err}");
    assert_eq!(refused_now(&mut game, Fugitive, Action::EndTurn), PhaseReason::TwoHideoutsFirstTurn);
    assert!(!game.legal_actions(Fugitive).end_turn);
    play(&mut game, Fugitive, place(6, &[]));
    assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 2 });
}

// R7, R8 -----------------------------------------------------------------------------------------

#[test]
fn r7_later_turn_draw_first_then_place_exactly_one() {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    marshal_turn(&mut game, &[41]);
    assert_eq!(game.phase(), Phase::Draw { role: Fugitive, left: 1 });
    for action in [place(6, &[]), Action::Pass, Action::EndTurn] {
        let err = refused(&mut game, Fugitive, action);
        assert!(err.to_string().contains("R7"), "{err}");
        assert_eq!(refused_now(&mut game, Fugitive, action), PhaseReason::DrawFirst);
    }
    let drew = Event::Drew { role: Fugitive, deck: Deck::Three, card: Some(card(29)) };
    assert_eq!(play(&mut game, Fugitive, draw(3)), [drew]);
    assert!(game.hand(Fugitive).contains(card(29)));
    assert_eq!(game.phase(), Phase::PlaceOrPass);
    for (action, reason) in
        [(draw(1), PhaseReason::DrawnAlready), (Action::EndTurn, PhaseReason::PlaceOrPass)]
    {
        let err = refused(&mut game, Fugitive, action);
        assert!(err.to_string().contains("(R7)"), "{err}");
        assert_eq!(refused_now(&mut game, Fugitive, action), reason);
    }
    play(&mut game, Fugitive, place(6, &[]));
    assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
    refused(&mut game, Fugitive, place(15, &[1, 2]));
}

#[test]
fn r8_marshal_draws_two_on_her_first_turn_then_one() {
    // Her two first draws may come from the same deck or from two different ones.
    for (first, second) in [(1, 1), (1, 3), (2, 3), (3, 3)] {
        let mut game = game(&HAND);
        play(&mut game, Fugitive, place(3, &[]));
        play(&mut game, Fugitive, Action::EndTurn);
        assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 2 });
        let top = game.deck(deck(first))[0].hideout().expect("a hideout card");
        play(&mut game, Marshal, draw(first));
        assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
        assert!(refused(&mut game, Marshal, guess(&[3])).to_string().contains("R8"));
        assert_eq!(refused_now(&mut game, Marshal, guess(&[3])), PhaseReason::DrawFirst);
        let next = game.deck(deck(second))[0].hideout().expect("a hideout card");
        play(&mut game, Marshal, draw(second));
        assert_eq!(game.phase(), Phase::Guess);
        assert_eq!(game.hand(Marshal), Cards::from(top).with(next));
        assert!(refused(&mut game, Marshal, draw(2)).to_string().contains("(R8)"));
        assert_eq!(refused_now(&mut game, Marshal, draw(2)), PhaseReason::GuessNow);

        // Her guess ends her turn; on her next one she draws once.
        play(&mut game, Marshal, guess(&[41]));
        assert_eq!(game.phase(), Phase::Draw { role: Fugitive, left: 1 });
        fugitive_turn(&mut game, 2, Action::Pass);
        assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
        play(&mut game, Marshal, draw(2));
        assert_eq!(game.phase(), Phase::Guess);
        assert_eq!(game.hand(Marshal).len(), 3);
        assert_eq!(game.marshal_turns(), 2);
    }
}

#[test]
fn r7_r8_an_empty_deck_is_refused_while_another_has_cards() {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    // Deck 1 holds 7–14: the Marshal takes two, then each takes one in turn until it is empty.
    play(&mut game, Marshal, draw(1));
    marshal_turn(&mut game, &[41]);
    for _ in 0..3 {
        fugitive_turn(&mut game, 1, Action::Pass);
        play(&mut game, Marshal, draw(1));
        play(&mut game, Marshal, guess(&[41]));
    }
    assert_eq!(game.deck(Deck::One), []);
    let err = refused(&mut game, Fugitive, draw(1));
    assert_eq!(err, ActionError::DeckEmpty(Deck::One));
    assert_eq!(err.to_string(), "deck 1 is empty (R7, R8)");
    assert_eq!(err.code(), "deck_empty");
    assert_eq!(game.legal_actions(Fugitive).draws, [Deck::Two, Deck::Three]);
    fugitive_turn(&mut game, 2, Action::Pass);
    assert_eq!(refused(&mut game, Marshal, draw(1)), ActionError::DeckEmpty(Deck::One));
    play(&mut game, Marshal, draw(3));
}

#[test]
fn r7_r8_draws_are_skipped_when_every_deck_is_empty() {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    // Both draw from the lowest non-empty deck; he passes, she misses with 41. The Marshal's
    // first turn takes 2 of the 33 cards, so the Fugitive draws the last one.
    let mut pass_events = Vec::new();
    while cards_in_decks(&game) > 0 {
        marshal_turn(&mut game, &[41]);
        let n = lowest_deck(&game).expect("he draws the last card").number();
        pass_events = fugitive_turn(&mut game, n, Action::Pass);
    }
    assert_eq!(pass_events, [Event::Passed, Event::DrawSkipped { role: Marshal }]);
    assert_eq!(game.phase(), Phase::Guess);
    assert!(game.legal_actions(Marshal).draws.is_empty());
    refused(&mut game, Marshal, draw(1));

    let missed = Event::Guessed { numbers: cards(&[41]), right: false };
    assert_eq!(play(&mut game, Marshal, guess(&[41])), [missed, Event::DrawSkipped { role: Fugitive }]);
    assert_eq!(game.phase(), Phase::PlaceOrPass);
    assert!(game.legal_actions(Fugitive).draws.is_empty());
    let events = play(&mut game, Fugitive, Action::Pass);
    assert_eq!(events, [Event::Passed, Event::DrawSkipped { role: Marshal }]);
}

#[test]
fn r8a_draws_show_the_deck_to_everyone_and_the_card_to_the_drawer() {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    play(&mut game, Marshal, draw(2));
    play(&mut game, Marshal, draw(1));
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(3));
    let drew = |role, n, c: Option<u8>| Event::Drew { role, deck: deck(n), card: c.map(card) };
    let expected = [
        (Viewer::Fugitive, [drew(Marshal, 2, None), drew(Marshal, 1, None), drew(Fugitive, 3, Some(29))]),
        (Viewer::Marshal, [drew(Marshal, 2, Some(17)), drew(Marshal, 1, Some(7)), drew(Fugitive, 3, None)]),
        (Viewer::Spectator, [drew(Marshal, 2, None), drew(Marshal, 1, None), drew(Fugitive, 3, None)]),
    ];
    for (viewer, draws) in expected {
        let history = game.view(viewer).history;
        let seen: Vec<Event> = history.into_iter().filter(|e| matches!(e, Event::Drew { .. })).collect();
        assert_eq!(seen, draws, "{viewer:?}");
    }
}

// R9, R10 ----------------------------------------------------------------------------------------

#[test]
fn r9_hideout_must_be_above_and_within_3_plus_sprint() {
    use ActionError::{NotInHand, SprintIsHideout, SprintNotInHand, TooFar};
    let too_far = |h, sprint| Err(TooFar { hideout: card(h), last: Card::START, sprint });
    // From card 0, with the usual hand.
    let cases: [(u8, &[u8], Result<(), ActionError>); 13] = [
        (1, &[], Ok(())),
        (3, &[], Ok(())),
        (4, &[], too_far(4, 0)),
        (4, &[1], Ok(())), // an odd sprint card is worth 1 (R1)
        (5, &[1], too_far(5, 1)),
        (5, &[2], Ok(())),    // an even one is worth 2 (R1)
        (6, &[1, 2], Ok(())), // 6 - 0 = 3 + 3
        (15, &[1, 2, 3, 4, 5, 6, 16], too_far(15, 11)),
        (42, &[1, 2, 3, 4, 5, 6, 15, 16], too_far(42, 12)),
        (7, &[], Err(NotInHand(card(7)))),
        (0, &[], Err(NotInHand(Card::START))),
        (3, &[3], Err(SprintIsHideout(card(3)))),
        (3, &[7], Err(SprintNotInHand(card(7)))),
    ];
    for (hideout, sprints, expected) in cases {
        let mut game = game(&HAND);
        let action = place(hideout, sprints);
        match expected {
            Ok(()) => {
                play(&mut game, Fugitive, action);
                assert_eq!(game.trail().last_card(), card(hideout));
            }
            Err(err) => assert_eq!(refused(&mut game, Fugitive, action), err, "{action:?}"),
        }
    }
}

#[test]
fn r9_too_far_names_the_numbers() {
    // The Fugitive holds 1, 2, 3, 7, 12, 14, 15, 16, 42 and opens with 7 over 2 and 14 (sprint 4).
    let mut game = game(&[7, 12, 14, 15, 16]);
    play(&mut game, Fugitive, place(7, &[2, 14]));
    let err = refused(&mut game, Fugitive, place(12, &[1]));
    assert_eq!(err, ActionError::TooFar { hideout: card(12), last: card(7), sprint: 1 });
    assert_eq!(err.to_string(), "hideout 12 is more than 3 + sprint 1 above 7 (R9)");
    assert_eq!(err.code(), "too_far");
    play(&mut game, Fugitive, place(12, &[1, 3]));
}

#[test]
fn r9_the_last_card_counts_face_up_or_face_down() {
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, place(6, &[]));
    marshal_turn(&mut game, &[6]);
    assert_eq!(hidden(&game), [3]);
    play(&mut game, Fugitive, draw(1)); // 9: the Marshal took 7 and 8
    // 5 is above the face-down 3 but not above the face-up 6, the last card.
    let err = refused(&mut game, Fugitive, place(5, &[]));
    assert_eq!(err, ActionError::NotAbove { hideout: card(5), last: card(6) });
    assert_eq!(err.to_string(), "hideout 5 is not above 6, the last card of the trail (R9)");
    play(&mut game, Fugitive, place(9, &[]));
}

#[test]
fn r10_overpaid_and_bluff_sprints_are_legal() {
    let mut game = game(&HAND);
    // 5 needs sprint 2; 1 + 2 + 4 is worth 5.
    play(&mut game, Fugitive, place(5, &[1, 2, 4]));
    // 6 needs none after 5: a sprint card under it is a bluff.
    play(&mut game, Fugitive, place(6, &[3]));
    let positions: Vec<(u8, Cards)> =
        game.trail().positions().iter().map(|h| (h.card.number(), h.sprints)).collect();
    assert_eq!(positions, [(0, Cards::EMPTY), (5, cards(&[1, 2, 4])), (6, cards(&[3]))]);
    assert_eq!(game.hand(Fugitive), cards(&[15, 16, 42]));
}

#[test]
fn r10_the_sprint_count_is_public_at_once_the_numbers_are_not() {
    let mut game = game(&HAND);
    let events = play(&mut game, Fugitive, place(3, &[1, 2]));
    let placed = |hideout: Option<u8>, sprints: Option<&[u8]>| Event::Placed {
        position: 1,
        hideout: hideout.map(card),
        sprint_count: 2,
        sprints: sprints.map(cards),
    };
    assert_eq!(events, [placed(Some(3), Some(&[1, 2]))]);
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let view = game.view(viewer);
        let face_down = TrailCard { card: None, face_up: false, sprint_count: 2, sprints: None };
        assert_eq!(view.trail[1], face_down, "{viewer:?}");
        assert_eq!(view.history, [placed(None, None)], "{viewer:?}");
    }
}

// R11, R11a --------------------------------------------------------------------------------------

#[test]
fn r11_42_is_refused_as_a_sprint_card() {
    let mut game = game(&HAND);
    for action in [place(3, &[42]), place(6, &[1, 42])] {
        let err = refused(&mut game, Fugitive, action);
        assert_eq!(err, ActionError::SprintIs42);
        assert!(err.to_string().contains("(R11)"), "{err}");
        assert_eq!(err.code(), "sprint_is_42");
    }
}

#[test]
fn r11_42_lies_face_up_and_its_sprint_cards_stay_hidden_until_the_end() {
    let mut game = chase(30, false);
    let events = play(&mut game, Fugitive, place(42, &[26]));
    let placed = |sprints: Option<Cards>| Event::Placed {
        position: 11,
        hideout: Some(Card::ESCAPE),
        sprint_count: 1,
        sprints,
    };
    assert_eq!(events[0], placed(Some(cards(&[26]))));
    let escape = Hideout { card: Card::ESCAPE, sprints: cards(&[26]), face_up: true, shown: None };
    assert_eq!(game.trail().positions()[11], escape);

    let shown = |sprints| TrailCard { card: Some(Card::ESCAPE), face_up: true, sprint_count: 1, sprints };
    assert_eq!(game.view(Viewer::Fugitive).trail[11], shown(Some(cards(&[26]))));
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let view = game.view(viewer);
        assert_eq!(view.trail[11], shown(None), "{viewer:?}");
        assert!(view.history.contains(&placed(None)), "{viewer:?}");
    }
    play(&mut game, Marshal, guess(&[41]));
    assert_eq!(game.view(Viewer::Spectator).trail[11], shown(Some(cards(&[26]))));
}

#[test]
fn r11a_pass_is_refused_on_the_first_turn_and_legal_later() {
    let mut game = game(&HAND);
    let err = refused(&mut game, Fugitive, Action::Pass);
    assert!(matches!(err, ActionError::WrongPhase { .. }) && err.to_string().contains("(R11a)"), "{err}");
    assert_eq!(refused_now(&mut game, Fugitive, Action::Pass), PhaseReason::NoPassFirstTurn);
    play(&mut game, Fugitive, place(3, &[]));
    assert!(refused(&mut game, Fugitive, Action::Pass).to_string().contains("(R11a)"));
    play(&mut game, Fugitive, Action::EndTurn);
    marshal_turn(&mut game, &[41]);
    play(&mut game, Fugitive, draw(3));
    assert!(game.legal_actions(Fugitive).pass);
    // Without pass_bonus_draw (the default) a pass draws nothing.
    assert_eq!(play(&mut game, Fugitive, Action::Pass), [Event::Passed]);
    assert_eq!(game.hand(Fugitive).len(), 9);
}

#[test]
fn r11a_pass_bonus_draw_is_his_choice_from_the_lowest_non_empty_deck() {
    let rules = RuleOptions { pass_bonus_draw: true, ..RuleOptions::default() };
    let mut game = game_with(rules, deal(&HAND));
    play(&mut game, Fugitive, place(3, &[]));
    play(&mut game, Fugitive, Action::EndTurn);
    let bonus = |n, c| Event::Drew { role: Fugitive, deck: deck(n), card: Some(card(c)) };
    let take = |n| Action::Choose { choice: Choice::Deck { deck: deck(n) } };
    let offered = |n| vec![Choice::Deck { deck: deck(n) }, Choice::Decline];
    let pending = Phase::Pending { role: Fugitive, card: None, decision: Decision::PassBonus };
    // Deck 1 is 7–14. The Marshal takes 7, 8; he draws from deck 3, passes, and may draw 9.
    marshal_turn(&mut game, &[41]);
    assert_eq!(fugitive_turn(&mut game, 3, Action::Pass), [Event::Passed]);
    assert_eq!(game.phase(), pending);
    let json = serde_json::to_string(&game.view(Viewer::Spectator).phase).unwrap();
    assert_eq!(json, r#"{"phase":"pending","role":"fugitive","card":null,"decision":{"kind":"pass_bonus"}}"#);
    assert_eq!(game.legal_actions(Fugitive).choices, offered(1));
    assert_eq!(game.view(Viewer::Fugitive).legal_actions().choices, offered(1));
    assert_eq!(refused(&mut game, Fugitive, take(2)).code(), "bad_choice");
    assert!(matches!(refused(&mut game, Marshal, draw(1)), ActionError::NotYourTurn { .. }));
    assert_eq!(play(&mut game, Fugitive, take(1)), [bonus(1, 9)]);
    assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
    marshal_turn(&mut game, &[41]); // 10
    // He may decline: nothing is drawn, and it is the Marshal's turn.
    fugitive_turn(&mut game, 1, Action::Pass); // 11
    let (hand, decline) = (game.hand(Fugitive), Action::Choose { choice: Choice::Decline });
    assert_eq!(play(&mut game, Fugitive, decline), [Event::Declined { role: Fugitive, card: None }]);
    assert_eq!((game.hand(Fugitive), game.deck(Deck::One).len()), (hand, 3));
    assert_eq!(game.phase(), Phase::Draw { role: Marshal, left: 1 });
    marshal_turn(&mut game, &[41]); // 12
    fugitive_turn(&mut game, 1, Action::Pass); // 13
    assert_eq!(play(&mut game, Fugitive, take(1)), [bonus(1, 14)]);
    assert_eq!(game.deck(Deck::One), []);
    marshal_turn(&mut game, &[41]); // 17
    // Deck 1 is empty: the bonus comes from deck 2.
    fugitive_turn(&mut game, 2, Action::Pass); // 18
    assert_eq!(game.legal_actions(Fugitive).choices, offered(2));
    assert_eq!(play(&mut game, Fugitive, take(2)), [bonus(2, 19)]);
    let seen = game.view(Viewer::Marshal).history.last().copied();
    assert_eq!(seen, Some(Event::Drew { role: Fugitive, deck: Deck::Two, card: None }), "R8a");
}

// R12, R13, R14 ----------------------------------------------------------------------------------

#[test]
fn r12_all_right_reveals_every_named_hideout_with_its_sprint_cards() {
    let mut game = three_hideouts();
    let events = marshal_turn(&mut game, &[3, 9]);
    let revealed = |position, h, s: &[u8]| Event::Revealed { position, hideout: card(h), sprints: cards(s) };
    let expected =
        [Event::Guessed { numbers: cards(&[3, 9]), right: true }, revealed(1, 3, &[1]), revealed(3, 9, &[2])];
    assert_eq!(events, expected);
    assert_eq!(hidden(&game), [6]);
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.trail[1],
        TrailCard { card: Some(card(3)), face_up: true, sprint_count: 1, sprints: Some(cards(&[1])) }
    );
    assert_eq!(game.phase(), Phase::Draw { role: Fugitive, left: 1 });
}

#[test]
fn r12_one_wrong_number_reveals_nothing_and_says_only_wrong() {
    let mut game = three_hideouts();
    let trail = game.trail().clone();
    // 3 and 6 are face down, 10 is not on the trail.
    let events = marshal_turn(&mut game, &[3, 6, 10]);
    assert_eq!(events, [Event::Guessed { numbers: cards(&[3, 6, 10]), right: false }]);
    assert_eq!(*game.trail(), trail);
    assert!(!game.history().iter().any(|e| matches!(e, Event::Revealed { .. })));
    assert_eq!(game.phase(), Phase::Draw { role: Fugitive, left: 1 });
}

#[test]
fn r12_a_face_up_number_is_refused_without_ending_the_turn() {
    let mut game = three_hideouts();
    marshal_turn(&mut game, &[3]);
    fugitive_turn(&mut game, 3, Action::Pass);
    play(&mut game, Marshal, draw(3));
    for numbers in [&[3][..], &[3, 6]] {
        let err = refused(&mut game, Marshal, guess(numbers));
        assert_eq!(err, ActionError::GuessFaceUp(card(3)));
        assert_eq!(err.to_string(), "3 is already face up on the trail (R12)");
        assert_eq!(err.code(), "guess_face_up");
        assert_eq!(game.phase(), Phase::Guess);
    }
    play(&mut game, Marshal, guess(&[6]));
    assert_eq!(hidden(&game), [9]);
}

#[test]
fn r12_a_face_up_sprint_card_is_refused_like_a_face_up_hideout() {
    let mut game = three_hideouts();
    marshal_turn(&mut game, &[3]); // 3 turns face up with its sprint card 1.
    fugitive_turn(&mut game, 3, Action::Pass);
    play(&mut game, Marshal, draw(3));
    for numbers in [&[1][..], &[1, 6]] {
        let err = refused(&mut game, Marshal, guess(numbers));
        assert_eq!(err, ActionError::GuessFaceUp(card(1)));
        assert_eq!(err.to_string(), "1 is already face up on the trail (R12)");
        assert_eq!(game.phase(), Phase::Guess);
    }
    let open = |legal: fugitive_core::LegalActions| legal.guess.expect("she guesses").numbers;
    assert!(!open(game.legal_actions(Marshal)).contains(card(1)));
    assert_eq!(open(game.view(Viewer::Marshal).legal_actions()), open(game.legal_actions(Marshal)));
    play(&mut game, Marshal, guess(&[6]));
    assert_eq!(hidden(&game), [9]);
}

#[test]
fn r12_in_the_manhunt_a_face_up_sprint_card_is_refused_not_a_miss() {
    let mut game = manhunt();
    // 30 lies over 1, 2, 20, 22, 24; 26 lies under 42, face down until the end (R11).
    play(&mut game, Marshal, guess(&[30]));
    for n in [1, 20, 24] {
        assert_eq!(refused(&mut game, Marshal, guess(&[n])), ActionError::GuessFaceUp(card(n)));
        assert_eq!(game.phase(), Phase::Manhunt);
    }
    assert!(game.is_legal(Marshal, &guess(&[26])));
}

#[test]
fn r12_guesses_name_numbers_from_1_to_41() {
    let mut game = three_hideouts();
    play(&mut game, Marshal, draw(1));
    let cases = [
        (&[0][..], ActionError::GuessOutOfRange(Card::START)),
        (&[42], ActionError::GuessOutOfRange(Card::ESCAPE)),
        (&[3, 42], ActionError::GuessOutOfRange(Card::ESCAPE)),
        (&[], ActionError::EmptyGuess),
    ];
    for (numbers, expected) in cases {
        let err = refused(&mut game, Marshal, guess(numbers));
        assert_eq!(err, expected);
        assert!(err.to_string().contains("(R12)"), "{err}");
    }
    assert!(game.is_legal(Marshal, &guess(&[1])) && game.is_legal(Marshal, &guess(&[41])));
    // Distinct numbers: a repeat does not even parse.
    assert!(serde_json::from_str::<Action>(r#"{"type":"guess","numbers":[5,5]}"#).is_err());
}

#[test]
fn r12_numbers_in_her_own_hand_are_legal_but_wrong() {
    let mut game = three_hideouts();
    assert_eq!(game.hand(Marshal), cards(&[7, 8]));
    let events = marshal_turn(&mut game, &[7]);
    assert_eq!(events, [Event::Guessed { numbers: cards(&[7]), right: false }]);
}

#[test]
fn r12_sprint_cards_are_never_guessed() {
    // 1 lies under 3 and 2 under 9: naming them finds nothing.
    let mut game = three_hideouts();
    let events = marshal_turn(&mut game, &[1]);
    assert_eq!(events, [Event::Guessed { numbers: cards(&[1]), right: false }]);
    fugitive_turn(&mut game, 3, Action::Pass);
    assert_eq!(marshal_turn(&mut game, &[2, 9])[0], Event::Guessed { numbers: cards(&[2, 9]), right: false });
    assert_eq!(hidden(&game), [3, 6, 9]);
}

#[test]
fn r13_every_guess_is_in_every_view() {
    let mut game = three_hideouts();
    marshal_turn(&mut game, &[3, 7]);
    fugitive_turn(&mut game, 3, Action::Pass);
    marshal_turn(&mut game, &[3]);
    let guesses = |history: &[Event]| -> Vec<Event> {
        history
            .iter()
            .copied()
            .filter(|e| matches!(e, Event::Guessed { .. } | Event::Revealed { .. }))
            .collect()
    };
    let all = guesses(game.history());
    assert_eq!(all.len(), 4, "41, 3+7, 3 and its reveal: {all:?}");
    for viewer in Viewer::ALL {
        assert_eq!(guesses(&game.view(viewer).history), all, "{viewer:?}");
    }
}

#[test]
fn r14_the_marshal_wins_when_the_last_face_down_hideout_is_found() {
    let mut game = three_hideouts();
    marshal_turn(&mut game, &[3, 6]);
    assert!(!game.is_over());
    fugitive_turn(&mut game, 3, Action::Pass);
    let events = marshal_turn(&mut game, &[9]);
    let won = Outcome { winner: Marshal, reason: Reason::AllHideoutsFound };
    assert_eq!(events.last(), Some(&Event::GameOver { outcome: won }));
    assert_eq!(game.outcome(), Some(won));
    assert_eq!(game.phase(), Phase::Over);
    assert_eq!(game.to_move(), None);
    assert_eq!(refused(&mut game, Fugitive, draw(1)), ActionError::GameOver);
}

// R15, R16 ---------------------------------------------------------------------------------------

#[test]
fn r15_42_starts_the_manhunt_up_to_29_and_escapes_from_30() {
    // (high card, whether the Marshal found it, what 42 does)
    let manhunt_from = |h| Event::ManhuntStarted { highest_revealed: h };
    let escape = Event::GameOver { outcome: Outcome { winner: Fugitive, reason: Reason::Escape } };
    let cases = [(29, true, manhunt_from(29)), (30, true, escape), (30, false, manhunt_from(0))];
    for (high, reveal, expected) in cases {
        let mut game = chase(high, reveal);
        let events = play(&mut game, Fugitive, place(42, &[26]));
        assert_eq!(events.last(), Some(&expected), "high {high}, revealed {reveal}");
        let phase = if expected == escape { Phase::Over } else { Phase::Manhunt };
        assert_eq!(game.phase(), phase);
    }
}

#[test]
fn r15_r14_42_always_finds_a_face_down_hideout() {
    // R15's "no face-down hideout left" cannot arise: the opening lays one, and R14 ends the game
    // as soon as the last is found. Random games check that, and R15's threshold.
    let mut escapes = 0;
    for seed in 0..200u64 {
        let mut game = Game::new(Setup::new(seed));
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while let Some(role) = game.to_move() {
            let action = game.legal_actions(role).sample(&mut rng).expect("the mover has a move");
            let high = game.trail().highest_revealed();
            play(&mut game, role, action);
            if let Action::Place { hideout: Card::ESCAPE, .. } = action {
                escapes += 1;
                assert!(game.trail().hidden_count() > 0, "seed {seed}");
                let expected = if high >= 30 { Phase::Over } else { Phase::Manhunt };
                assert_eq!(game.phase(), expected, "seed {seed}, H = {high}");
            }
        }
    }
    assert!(escapes > 0, "no random game reached 42");
}

#[test]
fn r16_manhunt_guesses_one_number_at_a_time() {
    let mut game = manhunt();
    let err = refused(&mut game, Marshal, guess(&[3, 6]));
    assert_eq!(err, ActionError::ManhuntOneNumber);
    assert!(err.to_string().contains("(R16)"));
    assert_eq!(err.code(), "manhunt_one_number");
    assert!(refused(&mut game, Marshal, draw(3)).to_string().contains("(R16)"));
    assert_eq!(refused_now(&mut game, Marshal, draw(3)), PhaseReason::ManhuntGuessesOnly);
    let fugitives_turn = ActionError::NotYourTurn { expected: Marshal, actual: Fugitive };
    assert_eq!(refused(&mut game, Fugitive, Action::Pass), fugitives_turn);
    assert_eq!(refused(&mut game, Marshal, guess(&[42])), ActionError::GuessOutOfRange(Card::ESCAPE));
    assert_eq!(game.legal_actions(Marshal).guess.map(|g| g.single), Some(true));

    // Same validation as R12: a face-up number is refused and she guesses again.
    let mut found = chase(29, true);
    play(&mut found, Fugitive, place(42, &[26]));
    assert_eq!(refused(&mut found, Marshal, guess(&[29])), ActionError::GuessFaceUp(card(29)));
    play(&mut found, Marshal, guess(&[3]));
}

#[test]
fn r16_right_guesses_go_on_until_every_hideout_is_found() {
    let mut game = manhunt();
    let mut left = hidden(&game);
    assert_eq!(left, [3, 6, 9, 12, 15, 18, 30, 32, 35, 38]);
    let last = left.pop().expect("hideouts to find");
    for n in left {
        let events = play(&mut game, Marshal, guess(&[n]));
        assert_eq!(events[0], Event::Guessed { numbers: cards(&[n]), right: true });
        assert!(matches!(events[1], Event::Revealed { hideout, .. } if hideout == card(n)));
        assert_eq!(game.phase(), Phase::Manhunt);
    }
    let events = play(&mut game, Marshal, guess(&[last]));
    let won = Outcome { winner: Marshal, reason: Reason::ManhuntSuccess };
    assert_eq!(events.last(), Some(&Event::GameOver { outcome: won }));
    assert_eq!(game.outcome(), Some(won));
}

#[test]
fn r16_the_first_wrong_guess_ends_the_manhunt() {
    let mut game = manhunt();
    play(&mut game, Marshal, guess(&[12]));
    let events = play(&mut game, Marshal, guess(&[13]));
    let survived = Outcome { winner: Fugitive, reason: Reason::ManhuntSurvived };
    let missed = Event::Guessed { numbers: cards(&[13]), right: false };
    assert_eq!(events, [missed, Event::GameOver { outcome: survived }]);
    assert_eq!(game.outcome(), Some(survived));
}

// R17, R18 ---------------------------------------------------------------------------------------

#[test]
fn r17_either_player_may_resign_at_any_time_even_off_turn() {
    let mut marshal_to_draw = game(&HAND);
    play(&mut marshal_to_draw, Fugitive, place(3, &[]));
    play(&mut marshal_to_draw, Fugitive, Action::EndTurn);
    let positions = [("opening", game(&HAND)), ("marshal to draw", marshal_to_draw), ("manhunt", manhunt())];
    for (name, position) in positions {
        for role in Role::ALL {
            let mut game = position.clone();
            let events = play(&mut game, role, Action::Resign);
            let outcome = Outcome { winner: role.opponent(), reason: Reason::Resignation };
            assert_eq!(events, [Event::Resigned { role }, Event::GameOver { outcome }], "{name}");
            assert_eq!(refused(&mut game, role.opponent(), Action::Resign), ActionError::GameOver);
        }
    }
}

#[test]
fn r17_only_the_player_to_move_can_time_out() {
    let mut game = game(&HAND);
    let err = timed_out(&mut game, Marshal).unwrap_err();
    assert_eq!(err, ActionError::NotYourTurn { expected: Fugitive, actual: Marshal });
    let events = timed_out(&mut game, Fugitive).expect("the mover's clock runs out");
    let outcome = Outcome { winner: Marshal, reason: Reason::TimeOut };
    assert_eq!(events, [Event::TimedOut { role: Fugitive }, Event::GameOver { outcome }]);
    assert_eq!(game.actions().last(), Some(&(Fugitive, Entry::TimeOut)), "the record holds it");
    assert_eq!(timed_out(&mut game, Fugitive).unwrap_err(), ActionError::GameOver);

    let mut game = manhunt();
    assert_eq!(timed_out(&mut game, Fugitive).unwrap_err().code(), "not_your_turn");
    timed_out(&mut game, Marshal).expect("the Marshal's clock runs in the Manhunt");
    assert_eq!(game.outcome(), Some(Outcome { winner: Fugitive, reason: Reason::TimeOut }));
}

/// Runs `role`'s clock out; a refusal changes nothing, and agrees with `legal.time_out`.
#[track_caller]
fn timed_out(game: &mut Game, role: Role) -> Result<Vec<Event>, ActionError> {
    let before = game.clone();
    let result = game.time_out(role);
    assert_eq!(result.is_ok(), before.legal_actions(role).time_out, "legal.time_out for {role}");
    if result.is_err() {
        assert_eq!(*game, before, "a refused time out changed the game");
    }
    result
}

#[test]
fn r17_a_stored_time_out_reads_back_as_it_was_written() {
    // Records have always stored the clock's entry as an action of type `time_out`; a client's
    // action never is one.
    let mut game = game(&HAND);
    play(&mut game, Fugitive, place(3, &[]));
    timed_out(&mut game, Fugitive).expect("the mover's clock runs out");
    let json = serde_json::to_string(game.actions()).expect("a record serializes");
    let placed = r#"{"type":"place","hideout":3,"sprints":[]}"#;
    assert_eq!(json, format!(r#"[["fugitive",{placed}],["fugitive",{{"type":"time_out"}}]]"#));
    let back: Vec<(Role, Entry)> = serde_json::from_str(&json).expect("a record deserializes");
    assert_eq!(back, game.actions());
    assert!(serde_json::from_str::<Action>(r#"{"type":"time_out"}"#).is_err(), "no client action");
    assert!(serde_json::from_str::<Entry>(r#"{"type":"fly"}"#).is_err());
}

#[test]
fn r18_after_the_end_every_view_shows_everything() {
    let seed = Seed::from(7u64);
    let mut game = Game::new(Setup::new(seed));
    play(&mut game, Fugitive, place(3, &[1]));
    play(&mut game, Fugitive, Action::EndTurn);
    marshal_turn(&mut game, &[41]);
    play(&mut game, Fugitive, draw(3));
    play(&mut game, Fugitive, Action::Pass);
    play(&mut game, Marshal, draw(2));
    assert_eq!(game.view(Viewer::Spectator).trail[1].card, None, "hidden while it runs");
    play(&mut game, Marshal, Action::Resign);

    for viewer in Viewer::ALL {
        let view = game.view(viewer);
        for role in Role::ALL {
            let hand = game.hand(role);
            assert_eq!(view.hands[role], HandView { size: hand.len(), cards: Some(hand) }, "{viewer:?}");
        }
        for (seen, h) in view.trail.iter().zip(game.trail().positions()) {
            let whole = TrailCard {
                card: Some(h.card),
                face_up: h.face_up,
                sprint_count: h.sprints.len(),
                sprints: Some(h.sprints),
            };
            assert_eq!(*seen, whole, "{viewer:?}");
        }
        assert_eq!(view.trail.len(), 2);
        for (seen, d) in view.decks.iter().zip(Deck::ALL) {
            assert_eq!(seen.cards.as_deref(), Some(game.deck(d)), "{viewer:?}");
        }
        assert_eq!(view.seed, Some(seed));
        assert_eq!(view.history, game.history(), "{viewer:?}");
        assert_eq!(view.outcome, game.outcome());
    }
}

// R19, R20, R21, R22 -----------------------------------------------------------------------------

/// [`three_hideouts`] after the Marshal drew 10 and found 3: the trail is 0, 3 {1} face up,
/// 6 {} and 9 {2} face down; the Fugitive holds 4, 5, 15, 16, 42 and the Marshal 7, 8, 10.
fn one_found() -> Game {
    let mut game = three_hideouts();
    marshal_turn(&mut game, &[3]);
    game
}

fn trail_card(card: Option<u8>, face_up: bool, sprint_count: usize, sprints: Option<&[u8]>) -> TrailCard {
    TrailCard { card: card.map(common::card), face_up, sprint_count, sprints: sprints.map(cards) }
}

#[test]
fn r19_the_fugitive_sees_his_hand_and_the_whole_trail() {
    let view = one_found().view(Viewer::Fugitive);
    assert_eq!(view.hands.fugitive, HandView { size: 5, cards: Some(cards(&[4, 5, 15, 16, 42])) });
    assert_eq!(view.hands.marshal, HandView { size: 3, cards: None });
    let trail = [
        trail_card(Some(0), true, 0, Some(&[])),
        trail_card(Some(3), true, 1, Some(&[1])),
        trail_card(Some(6), false, 0, Some(&[])),
        trail_card(Some(9), false, 1, Some(&[2])),
    ];
    assert_eq!(view.trail, trail);
    assert_eq!(
        view.decks.each_ref().map(|d| (d.size, d.cards.is_some())),
        [(4, false), (12, false), (13, false)]
    );
}

#[test]
fn r20_the_marshal_sees_her_hand_and_face_down_positions_as_counts() {
    let view = one_found().view(Viewer::Marshal);
    assert_eq!(view.hands.marshal, HandView { size: 3, cards: Some(cards(&[7, 8, 10])) });
    assert_eq!(view.hands.fugitive, HandView { size: 5, cards: None });
    let trail = [
        trail_card(Some(0), true, 0, Some(&[])),
        trail_card(Some(3), true, 1, Some(&[1])),
        trail_card(None, false, 0, None),
        trail_card(None, false, 1, None),
    ];
    assert_eq!(view.trail, trail);
    assert_eq!(
        view.decks.each_ref().map(|d| (d.size, d.cards.is_some())),
        [(4, false), (12, false), (13, false)]
    );
    let json = json(&view);
    assert!(json.contains(r#"{"card":null,"face_up":false,"sprint_count":1,"sprints":null}"#), "{json}");
}

#[test]
fn r21_a_spectator_sees_the_marshals_view_without_her_hand() {
    let game = one_found();
    let spectator = game.view(Viewer::Spectator);
    assert_eq!(spectator.hands.fugitive, HandView { size: 5, cards: None });
    assert_eq!(spectator.hands.marshal, HandView { size: 3, cards: None });
    assert!(spectator.trail.iter().all(|t| t.face_up || (t.card.is_none() && t.sprints.is_none())));
    let mut marshal = game.view(Viewer::Marshal);
    marshal.viewer = Viewer::Spectator;
    marshal.hands.marshal.cards = None;
    marshal.history = marshal.history.into_iter().map(|e| e.seen_by(Viewer::Spectator)).collect();
    assert_eq!(marshal, spectator);
}

#[test]
fn r22_views_hide_what_their_viewer_may_not_know() {
    // Same deal; the Fugitive opens with 3 in one game and 2 in the other, each over card 1.
    let open = |deal: Deal, hideout| {
        let mut game = game_with(RuleOptions::default(), deal);
        play(&mut game, Fugitive, place(hideout, &[1]));
        play(&mut game, Fugitive, Action::EndTurn);
        game
    };
    let three = open(deal(&HAND), 3);
    let two = open(deal(&HAND), 2);
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        assert_eq!(json(&three.view(viewer)), json(&two.view(viewer)), "{viewer:?}");
    }
    assert_ne!(json(&three.view(Viewer::Fugitive)), json(&two.view(Viewer::Fugitive)));
    // The order of the decks is hidden from everyone, the Fugitive too.
    let reordered = open(deal_with_tops(&HAND, [&[14], &[28], &[41]]), 3);
    for viewer in Viewer::ALL {
        assert_eq!(json(&three.view(viewer)), json(&reordered.view(viewer)), "{viewer:?}");
    }
}

// legal_actions and is_legal -------------------------------------------------------------------

/// Every action worth asking about in `game`: all draws, stops and guesses of one or two
/// numbers, and every hideout with every set of sprint cards from the Fugitive's hand.
fn candidate_actions(game: &Game) -> Vec<Action> {
    let mut actions = vec![Action::Pass, Action::EndTurn, Action::Resign];
    actions.extend(Deck::ALL.map(|deck| Action::Draw { deck }));
    actions.push(Action::Guess { numbers: Cards::EMPTY });
    for a in Card::all() {
        for b in Card::all().filter(|&b| b >= a) {
            actions.push(Action::Guess { numbers: Cards::from(a).with(b) });
        }
    }
    let hand = game.hand(Fugitive);
    for hideout in Card::all() {
        let odd_sets = [Cards::from(hideout), cards(&[0]), cards(&[41]), cards(&[1, 42])];
        let sprints = hand.without(hideout).subsets().chain(odd_sets);
        actions.extend(sprints.map(|sprints| Action::Place { hideout, sprints }));
    }
    actions
}

#[test]
fn legal_actions_agree_with_is_legal() {
    let step = |mut game: Game, role, action| {
        play(&mut game, role, action);
        game
    };
    let opening = game(&HAND);
    let one_placed = step(opening.clone(), Fugitive, place(3, &[]));
    let marshal_draws = step(one_placed.clone(), Fugitive, Action::EndTurn);
    let marshal_guesses = step(step(marshal_draws.clone(), Marshal, draw(1)), Marshal, draw(2));
    let fugitive_draws = step(marshal_guesses.clone(), Marshal, guess(&[41]));
    let fugitive_places = step(fugitive_draws.clone(), Fugitive, draw(1));
    let over = step(fugitive_places.clone(), Fugitive, Action::Resign);
    let positions = [
        opening,
        game_with(exactly_two(), deal(&HAND)),
        step(game_with(exactly_two(), deal(&HAND)), Fugitive, place(3, &[])),
        one_placed,
        marshal_draws,
        marshal_guesses,
        fugitive_draws,
        fugitive_places,
        three_hideouts(),
        chase(29, true),
        manhunt(),
        over,
    ];
    for game in positions {
        let actions = candidate_actions(&game);
        for role in Role::ALL {
            let legal = game.legal_actions(role);
            let mut some_legal = false;
            for action in &actions {
                let is_legal = game.is_legal(role, action);
                assert_eq!(legal.contains(action), is_legal, "{role} {action:?} in {:?}", game.phase());
                some_legal |= is_legal && !matches!(action, Action::Resign);
            }
            assert_eq!(legal.time_out, game.clone().time_out(role).is_ok(), "{role} {:?}", game.phase());
            assert_eq!(some_legal, game.to_move() == Some(role), "{role} in {:?}", game.phase());
        }
    }
}
