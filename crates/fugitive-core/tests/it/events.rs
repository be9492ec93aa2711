//! The event cards and variants of `EVENTS.md`: one test or more per card (F1–F6, M1–M6,
//! N1–N6), per mechanic (E1–E5) and per variant, each named after its id.
//!
//! Deals are hand-built (see `common`): the Fugitive holds 1, 2, 3, 4, 5, 6, 15, 16, 42; the
//! decks are 7–14, 17–28 and 29–41, lowest on top, with the named events put where each test
//! says.

use crate::common;
use crate::support;

use common::{HAND, card, cards, deal, draw, guess, place, play, refused, refused_now};
use fugitive_core::{
    Action, ActionError, Blocked, Cards, Choice, ChoiceReason, Decision, Deck, DeckCard, Event, EventCard,
    EventDeal, EventVariant, Game, Icon, Outcome, Phase, PhaseReason, Reason, Role, RuleOptions, Setup,
    TrailEffect, Viewer, Why,
};
use support::Play;

use EventCard::*;
use Role::{Fugitive, Marshal};

fn rules(events: EventVariant) -> RuleOptions {
    RuleOptions { events, ..RuleOptions::default() }
}

/// A game of `variant` with these events at these indexes of decks 1, 2 and 3, and these piles.
fn game_with(variant: EventVariant, in_decks: [&[(usize, DeckCard)]; 3], piles: [&[EventCard]; 3]) -> Game {
    let events = EventDeal { in_decks: in_decks.map(<[_]>::to_vec), piles: piles.map(<[_]>::to_vec) };
    Game::from_deal_with_events(rules(variant), deal(&HAND), events).expect("a legal event deal")
}

/// Random Events with `cards` on top of deck 1, in order.
fn deck_1_tops(cards: &[EventCard]) -> Game {
    let tops: Vec<(usize, DeckCard)> =
        cards.iter().enumerate().map(|(i, &c)| (i, DeckCard::Event(c))).collect();
    game_with(EventVariant::Random, [&tops, &[], &[]], [&[], &[], &[]])
}

fn choose(choice: Choice) -> Action {
    Action::Choose { choice }
}

/// The Fugitive opens with these hideouts (no sprint cards) and ends his turn.
fn open(game: &mut Game, hideouts: &[u8]) {
    for &h in hideouts {
        play(game, Fugitive, place(h, &[]));
    }
    if hideouts.len() == 1 {
        play(game, Fugitive, Action::EndTurn);
    }
}

/// Draws as long as `role` has draws due, from deck `n`.
fn draw_all(game: &mut Game, role: Role, n: u8) {
    while matches!(game.phase(), Phase::Draw { role: r, .. } if r == role) {
        play(game, role, draw(n));
    }
}

fn pending(game: &Game) -> Option<(Role, EventCard, Decision)> {
    match game.phase() {
        Phase::Pending { role, card, decision } => Some((role, card?, decision)),
        _ => None,
    }
}

fn draws_due(game: &Game) -> Option<(Role, u8)> {
    match game.phase() {
        Phase::Draw { role, left } => Some((role, left)),
        _ => None,
    }
}

#[test]
fn e2_an_event_is_shown_to_everyone_and_the_drawer_draws_a_replacement() {
    let mut game = deck_1_tops(&[M6]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    let drawn = Event::EventDrawn { role: Marshal, deck: Some(Deck::One), card: M6 };
    assert_eq!(events[0], drawn);
    for viewer in Viewer::ALL {
        assert!(game.view(viewer).history.contains(&drawn), "{viewer:?}");
    }
    // The event did not count: still two draws due, and the Marshal's hand is empty.
    assert_eq!(draws_due(&game), Some((Marshal, 2)));
    assert_eq!(game.hand(Marshal), Cards::EMPTY);
    draw_all(&mut game, Marshal, 1);
    assert_eq!(game.hand(Marshal), cards(&[7, 8]));
    assert_eq!(game.phase(), Phase::Guess);
}

#[test]
fn e2_an_event_drawn_as_a_replacement_is_resolved_and_replaced_too() {
    let mut game = deck_1_tops(&[M6, M5]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1)); // M6, replaced by…
    play(&mut game, Marshal, draw(1)); // …M5 Reinforcements: its replacement and two more.
    assert_eq!(draws_due(&game), Some((Marshal, 4)));
    draw_all(&mut game, Marshal, 1);
    assert_eq!(game.hand(Marshal), cards(&[7, 8, 9, 10]));
}

#[test]
fn e2_events_never_enter_the_starting_hand() {
    for seed in 0..200u64 {
        for variant in EventVariant::ALL {
            let game = Game::new(Setup::new(seed).with_rules(rules(variant)));
            assert_eq!(game.hand(Fugitive).len(), 9, "R3");
            let in_decks: usize = Deck::ALL.iter().map(|&d| game.deck(d).len()).sum();
            let extra = match variant {
                EventVariant::Off | EventVariant::Discovery => 0,
                _ => 6,
            };
            assert_eq!(in_decks, 33 + extra, "{variant:?}");
        }
    }
}

#[test]
fn e3_a_pending_decision_is_in_every_view_and_blocks_everything_else() {
    let mut game = deck_1_tops(&[M4]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    let phase = Phase::Pending { role: Marshal, card: Some(M4), decision: Decision::Dragnet };
    assert_eq!(game.phase(), phase);
    for viewer in Viewer::ALL {
        assert_eq!(game.view(viewer).phase, phase);
    }
    assert_eq!(refused_now(&mut game, Marshal, draw(1)), PhaseReason::ChoiceFirst);
    assert_eq!(refused_now(&mut game, Marshal, guess(&[3])), PhaseReason::ChoiceFirst);
    assert!(matches!(refused(&mut game, Fugitive, choose(Choice::Decline)), ActionError::NotYourTurn { .. }));
    let bad = refused(&mut game, Marshal, choose(Choice::Number { number: card(0) }));
    assert_eq!(bad.code(), "bad_choice");
    assert_eq!(bad, ActionError::BadChoice(ChoiceReason::Dragnet));
    assert_eq!(bad.reason(), Some("dragnet"));
    assert_eq!(bad.to_string(), "name one number from 1 to 41 that is not face up (M4 Dragnet) (E3)");
    assert_eq!(game.legal_actions(Marshal).choices.len(), 41);
    assert!(game.legal_actions(Fugitive).choices.is_empty());
    // Nothing to choose outside a pending decision.
    let mut plain = deck_1_tops(&[]);
    open(&mut plain, &[3]);
    assert_eq!(refused_now(&mut plain, Marshal, choose(Choice::Decline)), PhaseReason::NothingToChoose);
}

#[test]
fn f1_safe_house_lets_the_next_hideout_lie_5_above() {
    let mut game = deck_1_tops(&[F1]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::TrailEventLaid {
        position: 2,
        card: F1,
        effect: TrailEffect::SafeHouse
    }));
    draw_all(&mut game, Marshal, 3);
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(1)); // 7
    assert!(game.legal_actions(Fugitive).contains(&place(8, &[])) || !game.hand(Fugitive).contains(card(8)));
    play(&mut game, Fugitive, place(7, &[])); // 4 above 3, no sprint: only on a Safe House.
    let view = game.view(Viewer::Marshal);
    assert_eq!(view.events.expect("an event game").trail[0].position, 2);
    // Without the event the same placement is too far (R9).
    let mut plain = deck_1_tops(&[]);
    open(&mut plain, &[3]);
    draw_all(&mut plain, Marshal, 3);
    play(&mut plain, Marshal, guess(&[41]));
    play(&mut plain, Fugitive, draw(1));
    assert!(matches!(refused(&mut plain, Fugitive, place(7, &[])), ActionError::TooFar { .. }));
}

#[test]
fn f1_safe_house_the_legal_actions_say_what_a_blocked_card_needs() {
    // The web client once worked the need out as `hideout - last - 3`, wrong on a Safe House:
    // the legal actions say it, from the rules.
    let blocked_of = |game: &Game| {
        let legal = game.legal_actions(Fugitive);
        assert_eq!(game.view(Viewer::Fugitive).legal_actions(), legal);
        let placed: Cards = legal.placements.iter().map(|p| p.hideout).collect();
        let blocked: Cards = legal.blocked.iter().map(|b| b.hideout).collect();
        assert_eq!(placed.union(blocked), game.hand(Fugitive), "every card is placeable or blocked");
        assert!(placed.intersection(blocked).is_empty());
        legal.blocked
    };
    let mut game = deck_1_tops(&[F1]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    draw_all(&mut game, Marshal, 3);
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(1));
    let blocked = blocked_of(&game);
    assert!(blocked.contains(&Blocked { hideout: card(42), why: Why::TooFar { need: 42 - 3 - 5 } }));
    assert!(blocked.contains(&Blocked { hideout: card(2), why: Why::NotAbove { last: card(3) } }));
    let json = serde_json::to_string(&blocked[0]).unwrap();
    assert_eq!(json, r#"{"hideout":1,"why":{"kind":"not_above","last":3}}"#);
    let mut plain = deck_1_tops(&[]);
    open(&mut plain, &[3]);
    draw_all(&mut plain, Marshal, 3);
    play(&mut plain, Marshal, guess(&[41]));
    play(&mut plain, Fugitive, draw(1));
    assert!(
        blocked_of(&plain).contains(&Blocked { hideout: card(42), why: Why::TooFar { need: 42 - 3 - 3 } })
    );
    // The Marshal's legal actions never carry any.
    assert!(plain.legal_actions(Marshal).blocked.is_empty());
}

#[test]
fn f2_underground_contacts_the_fugitive_draws_two_then_the_marshal_replaces() {
    let mut game = deck_1_tops(&[F2]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(draws_due(&game), Some((Fugitive, 2)));
    play(&mut game, Fugitive, draw(2));
    play(&mut game, Fugitive, draw(3));
    assert!(game.hand(Fugitive).contains(card(17)) && game.hand(Fugitive).contains(card(29)));
    assert_eq!(draws_due(&game), Some((Marshal, 2)));
}

#[test]
fn f3_lie_low_the_next_guess_names_one_number() {
    let mut game = deck_1_tops(&[F3]);
    open(&mut game, &[3]);
    draw_all(&mut game, Marshal, 1);
    assert!(game.view(Viewer::Spectator).events.expect("events").single_guess);
    assert!(game.legal_actions(Marshal).guess.expect("guessing").single);
    assert_eq!(refused(&mut game, Marshal, guess(&[40, 41])), ActionError::LieLowOneNumber);
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(2));
    play(&mut game, Fugitive, Action::Pass);
    draw_all(&mut game, Marshal, 2);
    play(&mut game, Marshal, guess(&[40, 41])); // only the next guess
}

#[test]
fn f4_bad_intel_the_marshal_returns_a_card_the_fugitive_sees_only_the_deck() {
    let mut game = game_with(EventVariant::Random, [&[(1, DeckCard::Event(F4))], &[], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1)); // 7
    play(&mut game, Marshal, draw(1)); // F4
    assert_eq!(pending(&game), Some((Marshal, F4, Decision::BadIntel)));
    assert_eq!(game.legal_actions(Marshal).choices, vec![Choice::Card { card: card(7) }]);
    let events = play(&mut game, Marshal, choose(Choice::Card { card: card(7) }));
    assert_eq!(events[0], Event::ReturnedToDeck { role: Marshal, deck: Deck::One, card: Some(card(7)) });
    assert_eq!(game.deck(Deck::One).last(), Some(&DeckCard::Hideout(card(7))));
    assert_eq!(game.hand(Marshal), Cards::EMPTY);
    let seen = |viewer| {
        game.view(viewer).history.iter().rev().find(|e| matches!(e, Event::ReturnedToDeck { .. })).copied()
    };
    assert_eq!(
        seen(Viewer::Fugitive),
        Some(Event::ReturnedToDeck { role: Marshal, deck: Deck::One, card: None })
    );
    assert_eq!(seen(Viewer::Marshal), Some(events[0]));
    // Her replacement draw is still due.
    assert_eq!(draws_due(&game), Some((Marshal, 1)));
}

#[test]
fn f4_bad_intel_with_an_empty_hand_has_no_effect() {
    let mut game = deck_1_tops(&[F4]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::NoEffect { card: F4 }));
    assert_eq!(draws_due(&game), Some((Marshal, 2)));
}

/// The Fugitive's later turn: the Marshal draws what is due and misses; he draws from deck `n`.
fn to_fugitive_draw(game: &mut Game, n: u8) -> Vec<Event> {
    draw_all(game, Marshal, 3);
    play(game, Marshal, guess(&[41]));
    play(game, Fugitive, draw(n))
}

#[test]
fn f5_smoke_screen_the_count_is_public_the_card_is_his() {
    let mut game = game_with(EventVariant::Random, [&[], &[(0, DeckCard::Event(F5))], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    to_fugitive_draw(&mut game, 2);
    assert_eq!(pending(&game), Some((Fugitive, F5, Decision::SmokeScreen)));
    let choices = game.legal_actions(Fugitive).choices;
    assert!(
        choices.contains(&Choice::Decline)
            && !choices.contains(&Choice::Sprint { card: card(42), position: 1 })
    );
    let events = play(&mut game, Fugitive, choose(Choice::Sprint { card: card(15), position: 1 }));
    assert_eq!(events[0], Event::SprintAdded { position: 1, card: Some(card(15)) });
    assert_eq!(game.view(Viewer::Marshal).trail[1].sprint_count, 1);
    assert_eq!(game.view(Viewer::Marshal).trail[1].sprints, None);
    assert_eq!(game.view(Viewer::Fugitive).trail[1].sprints, Some(cards(&[15])));
    let told = game
        .view(Viewer::Spectator)
        .history
        .iter()
        .rev()
        .find(|e| matches!(e, Event::SprintAdded { .. }))
        .copied();
    assert_eq!(told, Some(Event::SprintAdded { position: 1, card: None }));
    assert_eq!(draws_due(&game), Some((Fugitive, 1)), "his replacement draw");
}

#[test]
fn f6_head_start_the_fugitive_draws_the_top_of_the_highest_deck() {
    let mut game = deck_1_tops(&[F6]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::Drew { role: Fugitive, deck: Deck::Three, card: Some(card(29)) }));
    assert!(game.hand(Fugitive).contains(card(29)));
    assert_eq!(draws_due(&game), Some((Marshal, 2)));
}

#[test]
fn m1_roadblock_forbids_sprint_cards_on_its_space() {
    let mut game = deck_1_tops(&[M1]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    to_fugitive_draw(&mut game, 2);
    assert_eq!(refused(&mut game, Fugitive, place(6, &[2])), ActionError::RoadblockSprints);
    assert!(game.legal_actions(Fugitive).contains(&place(6, &[])));
    assert!(!game.legal_actions(Fugitive).contains(&place(6, &[2])));
    play(&mut game, Fugitive, place(6, &[]));
}

#[test]
fn e4_a_second_trail_event_skips_the_occupied_space() {
    let mut game = deck_1_tops(&[F1, M1]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::TrailEventLaid {
        position: 3,
        card: M1,
        effect: TrailEffect::Roadblock
    }));
    let trail = game.view(Viewer::Spectator).events.expect("events").trail;
    assert_eq!(trail.iter().map(|t| t.position).collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn m2_informant_shows_the_sprint_cards_to_everyone() {
    let mut game = deck_1_tops(&[M2]);
    play(&mut game, Fugitive, place(3, &[1]));
    play(&mut game, Fugitive, Action::EndTurn);
    play(&mut game, Marshal, draw(1));
    assert_eq!(game.legal_actions(Marshal).choices, vec![Choice::Hideout { position: 1 }]);
    let events = play(&mut game, Marshal, choose(Choice::Hideout { position: 1 }));
    assert_eq!(events[0], Event::SprintsShown { position: 1, sprints: cards(&[1]) });
    let spectator = game.view(Viewer::Spectator);
    assert_eq!((spectator.trail[1].card, spectator.trail[1].sprints), (None, Some(cards(&[1]))));
}

#[test]
fn m2_informant_on_a_hideout_without_sprint_cards_shows_that_there_are_none() {
    let mut game = deck_1_tops(&[M2]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    let events = play(&mut game, Marshal, choose(Choice::Hideout { position: 1 }));
    assert_eq!(events[0], Event::SprintsShown { position: 1, sprints: Cards::EMPTY });
    for viewer in Viewer::ALL {
        assert_eq!(game.view(viewer).trail[1].sprints, Some(Cards::EMPTY), "{viewer:?}");
    }
}

#[test]
fn m2_informant_then_smoke_screen_the_shown_cards_stay_those_shown() {
    let in_decks: [&[(usize, DeckCard)]; 3] = [&[(0, DeckCard::Event(M2))], &[(0, DeckCard::Event(F5))], &[]];
    let mut game = game_with(EventVariant::Random, in_decks, [&[], &[], &[]]);
    play(&mut game, Fugitive, place(3, &[1]));
    play(&mut game, Fugitive, Action::EndTurn);
    play(&mut game, Marshal, draw(1));
    play(&mut game, Marshal, choose(Choice::Hideout { position: 1 }));
    // R12: a shown sprint card is face up, so it cannot be guessed.
    draw_all(&mut game, Marshal, 3);
    assert_eq!(refused(&mut game, Marshal, guess(&[1])), ActionError::GuessFaceUp(card(1)));
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(2));
    play(&mut game, Fugitive, choose(Choice::Sprint { card: card(15), position: 1 }));
    for viewer in [Viewer::Marshal, Viewer::Spectator] {
        let seen = game.view(viewer).trail[1];
        assert_eq!((seen.sprint_count, seen.sprints), (2, Some(cards(&[1]))), "{viewer:?}");
    }
    assert_eq!(game.view(Viewer::Fugitive).trail[1].sprints, Some(cards(&[1, 15])));
}

#[test]
fn m3_stakeout_counts_the_face_down_hideouts_in_a_range() {
    let mut game = deck_1_tops(&[M3]);
    open(&mut game, &[3, 6]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(game.legal_actions(Marshal).choices.len(), 3);
    let events = play(&mut game, Marshal, choose(Choice::Range { deck: Deck::One }));
    assert_eq!(events[0], Event::StakeoutCounted { deck: Deck::One, count: 1 });
}

#[test]
fn m4_dragnet_a_miss_costs_nothing() {
    let mut game = deck_1_tops(&[M4]);
    open(&mut game, &[3, 6]);
    play(&mut game, Marshal, draw(1));
    let events = play(&mut game, Marshal, choose(Choice::Number { number: card(41) }));
    assert_eq!(events[0], Event::Guessed { numbers: cards(&[41]), right: false });
    assert_eq!(draws_due(&game), Some((Marshal, 2)), "her turn goes on");
}

#[test]
fn m4_dragnet_finding_the_last_hideout_wins() {
    let mut game = deck_1_tops(&[M4]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    play(&mut game, Marshal, choose(Choice::Number { number: card(3) }));
    assert_eq!(game.outcome(), Some(Outcome { winner: Marshal, reason: Reason::AllHideoutsFound }));
    assert_eq!(game.phase(), Phase::Over);
}

#[test]
fn m5_reinforcements_the_marshal_draws_two_more() {
    let mut game = deck_1_tops(&[M5]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(draws_due(&game), Some((Marshal, 4)));
}

#[test]
fn m6_eyewitness_names_the_group_of_the_most_recent_hideout() {
    let mut game = deck_1_tops(&[M6]);
    open(&mut game, &[3, 6]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::Eyewitness { position: 2, low: 4, high: 14 }));
    let mut game = deck_1_tops(&[M6]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::Eyewitness { position: 1, low: 1, high: 3 }));
}

#[test]
fn n1_windfall_two_replacements() {
    let mut game = deck_1_tops(&[N1]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(draws_due(&game), Some((Marshal, 3)));
}

#[test]
fn n2_detour_the_opponent_skips_the_next_draw() {
    // Drawn by the Marshal: the Fugitive's next draw is lost.
    let mut game = deck_1_tops(&[N2]);
    open(&mut game, &[3]);
    draw_all(&mut game, Marshal, 1);
    let events = play(&mut game, Marshal, guess(&[41]));
    assert!(events.contains(&Event::DrawMissed { role: Fugitive }));
    assert_eq!(game.phase(), Phase::PlaceOrPass);
    // Drawn by the Fugitive: the Marshal loses one draw of her next turn.
    let mut game = game_with(EventVariant::Random, [&[], &[(0, DeckCard::Event(N2))], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    to_fugitive_draw(&mut game, 2);
    assert_eq!(game.skips().marshal, 1);
    play(&mut game, Fugitive, draw(2));
    let events = play(&mut game, Fugitive, Action::Pass);
    assert!(events.contains(&Event::DrawMissed { role: Marshal }));
    assert_eq!(game.phase(), Phase::Guess);
}

#[test]
fn n3_hot_tip_is_informant_for_the_marshal_and_smoke_screen_for_the_fugitive() {
    let mut game = deck_1_tops(&[N3]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(pending(&game), Some((Marshal, N3, Decision::Informant)));
    let mut game = game_with(EventVariant::Random, [&[], &[(0, DeckCard::Event(N3))], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    to_fugitive_draw(&mut game, 2);
    assert_eq!(pending(&game), Some((Fugitive, N3, Decision::SmokeScreen)));
    let events = play(&mut game, Fugitive, choose(Choice::Decline));
    assert_eq!(events[0], Event::Declined { role: Fugitive, card: Some(N3) });
}

#[test]
fn n4_shortcut_is_safe_house_for_the_fugitive_and_roadblock_for_the_marshal() {
    let mut game = deck_1_tops(&[N4]);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert!(events.contains(&Event::TrailEventLaid {
        position: 2,
        card: N4,
        effect: TrailEffect::Roadblock
    }));
    let mut game = game_with(EventVariant::Random, [&[], &[(0, DeckCard::Event(N4))], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    let events = to_fugitive_draw(&mut game, 2);
    assert!(events.contains(&Event::TrailEventLaid {
        position: 2,
        card: N4,
        effect: TrailEffect::SafeHouse
    }));
}

#[test]
fn n5_town_gossip_the_drawer_sees_the_top_card_everyone_sees_the_deck() {
    let mut game = deck_1_tops(&[N5]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1));
    assert_eq!(pending(&game), Some((Marshal, N5, Decision::TownGossip)));
    let events = play(&mut game, Marshal, choose(Choice::Deck { deck: Deck::Three }));
    let peeked = Event::Peeked { role: Marshal, deck: Deck::Three, card: Some(DeckCard::Hideout(card(29))) };
    assert_eq!(events[0], peeked);
    let last = |viewer| game.view(viewer).history.last().copied();
    assert_eq!(last(Viewer::Fugitive), Some(Event::Peeked { role: Marshal, deck: Deck::Three, card: None }));
    assert_eq!(last(Viewer::Marshal), Some(peeked));
    assert_eq!(pending(&game), Some((Marshal, N5, Decision::TownGossipMove { deck: Deck::Three })));
    play(&mut game, Marshal, choose(Choice::Move { bottom: true }));
    assert_eq!(game.deck(Deck::Three)[0], DeckCard::Hideout(card(30)));
    assert_eq!(game.deck(Deck::Three).last(), Some(&DeckCard::Hideout(card(29))));
    assert_eq!(game.history().last(), Some(&Event::MovedToBottom { deck: Deck::Three, moved: true }));
}

#[test]
fn n6_change_of_plans_return_a_card_then_draw_one() {
    let mut game = game_with(EventVariant::Random, [&[(1, DeckCard::Event(N6))], &[], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    play(&mut game, Marshal, draw(1)); // 7
    play(&mut game, Marshal, draw(1)); // N6
    assert_eq!(game.legal_actions(Marshal).choices, vec![Choice::Card { card: card(7) }, Choice::Decline]);
    play(&mut game, Marshal, choose(Choice::Card { card: card(7) }));
    // The replacement and the card N6 gives.
    assert_eq!(draws_due(&game), Some((Marshal, 2)));
    assert_eq!(game.deck(Deck::One).last(), Some(&DeckCard::Hideout(card(7))));
}

#[test]
fn n6_change_of_plans_the_fugitive_may_not_return_his_fixed_cards() {
    let mut game = game_with(EventVariant::Random, [&[], &[(0, DeckCard::Event(N6))], &[]], [&[], &[], &[]]);
    open(&mut game, &[3]);
    to_fugitive_draw(&mut game, 2);
    let choices = game.legal_actions(Fugitive).choices;
    assert!(
        !choices.contains(&Choice::Card { card: card(1) })
            && !choices.contains(&Choice::Card { card: card(42) })
    );
    assert!(choices.contains(&Choice::Card { card: card(15) }));
    assert!(matches!(
        refused(&mut game, Fugitive, choose(Choice::Card { card: card(42) })),
        ActionError::BadChoice(ChoiceReason::ChangeOfPlans)
    ));
    play(&mut game, Fugitive, choose(Choice::Decline));
    assert_eq!(draws_due(&game), Some((Fugitive, 2)));
}

#[test]
fn random_events_two_of_the_18_in_each_deck() {
    let game = Game::new(Setup::new(11u64).with_rules(rules(EventVariant::Random)));
    let mut all = Vec::new();
    for deck in Deck::ALL {
        let events: Vec<DeckCard> =
            game.deck(deck).iter().copied().filter(|c| c.hideout().is_none()).collect();
        assert_eq!(events.len(), 2, "{deck}");
        all.extend(events);
    }
    all.sort_by_key(|c| format!("{c}"));
    all.dedup();
    assert_eq!(all.len(), 6, "six different events");
    // The hideout deal is the seed's, with or without events.
    assert_eq!(game.deal(), Game::new(Setup::new(11u64)).deal());
}

#[test]
fn helpful_events_one_sides_six_spread_two_per_deck() {
    for (variant, icon) in
        [(EventVariant::HelpfulFugitive, Icon::Footprints), (EventVariant::HelpfulMarshal, Icon::Binoculars)]
    {
        let game = Game::new(Setup::new(5u64).with_rules(rules(variant)));
        let mut found = Vec::new();
        for deck in Deck::ALL {
            let events: Vec<EventCard> = game
                .deck(deck)
                .iter()
                .filter_map(|c| match c {
                    DeckCard::Event(e) => Some(*e),
                    _ => None,
                })
                .collect();
            assert_eq!(events.len(), 2);
            found.extend(events);
        }
        found.sort();
        assert_eq!(found, EventCard::with_icon(icon).collect::<Vec<_>>(), "{variant:?}");
    }
    let json = serde_json::to_string(&rules(EventVariant::HelpfulMarshal)).expect("serializes");
    assert!(json.contains(r#""events":"helpful:marshal""#), "{json}");
    assert_eq!(
        serde_json::to_string(&RuleOptions::default()).expect("serializes"),
        r#"{"opening_hideouts":"one_or_two","pass_bonus_draw":false}"#
    );
    let old: RuleOptions =
        serde_json::from_str(r#"{"opening_hideouts":"one_or_two","pass_bonus_draw":true}"#)
            .expect("old rules");
    assert_eq!(old.events, EventVariant::Off);
}

#[test]
fn discovery_after_a_successful_multi_guess_the_fugitive_resolves_one_without_replacement() {
    let pile = [M6, F2, N1];
    let mut game = game_with(EventVariant::Discovery, [&[], &[], &[]], [&pile, &[], &[]]);
    open(&mut game, &[3, 6]);
    draw_all(&mut game, Marshal, 3);
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(1)); // 7
    play(&mut game, Fugitive, place(7, &[]));
    play(&mut game, Marshal, draw(3));
    let events = play(&mut game, Marshal, guess(&[3, 6]));
    assert!(events.contains(&Event::EventDrawn { role: Fugitive, deck: None, card: M6 }));
    assert!(events.contains(&Event::Eyewitness { position: 3, low: 4, high: 14 }));
    // His usual draw, and no replacement: the event came from the pile.
    assert_eq!(draws_due(&game), Some((Fugitive, 1)));
    assert_eq!(game.piles()[0], [F2, N1]);
    assert_eq!(game.view(Viewer::Marshal).events.expect("events").piles, [2, 0, 0]);
    // A miss draws nothing.
    play(&mut game, Fugitive, draw(1));
    play(&mut game, Fugitive, Action::Pass);
    play(&mut game, Marshal, draw(1));
    play(&mut game, Marshal, guess(&[40]));
    assert_eq!(game.piles()[0].len(), 2);
}

/// Catchup with a placeholder at `index` of deck 1 and one-card piles F3, N2, M6.
fn catchup(index: usize) -> Game {
    game_with(EventVariant::Catchup, [&[(index, DeckCard::Placeholder)], &[], &[]], [&[F3], &[N2], &[M6]])
}

#[test]
fn catchup_one_face_down_hideout_takes_the_footprints_pile() {
    let mut game = catchup(0);
    open(&mut game, &[3]);
    let events = play(&mut game, Marshal, draw(1));
    assert_eq!(
        events[0],
        Event::CatchupDrawn { role: Marshal, deck: Deck::One, hidden: 1, pile: Icon::Footprints }
    );
    assert_eq!(events[1], Event::EventDrawn { role: Marshal, deck: None, card: F3 });
    assert_eq!(draws_due(&game), Some((Marshal, 2)), "the replacement");
}

#[test]
fn catchup_two_face_down_hideouts_take_the_no_icon_pile() {
    let mut game = catchup(0);
    open(&mut game, &[3, 6]);
    let events = play(&mut game, Marshal, draw(1));
    assert_eq!(
        events[0],
        Event::CatchupDrawn { role: Marshal, deck: Deck::One, hidden: 2, pile: Icon::None }
    );
    assert_eq!(events[1], Event::EventDrawn { role: Marshal, deck: None, card: N2 });
}

#[test]
fn catchup_three_or_more_face_down_hideouts_take_the_binoculars_pile() {
    let mut game = catchup(1);
    open(&mut game, &[3, 6]);
    draw_all(&mut game, Marshal, 2);
    play(&mut game, Marshal, guess(&[41]));
    play(&mut game, Fugitive, draw(1)); // 7
    play(&mut game, Fugitive, place(7, &[]));
    let events = play(&mut game, Marshal, draw(1));
    assert_eq!(
        events[0],
        Event::CatchupDrawn { role: Marshal, deck: Deck::One, hidden: 3, pile: Icon::Binoculars }
    );
    assert!(events.contains(&Event::EventDrawn { role: Marshal, deck: None, card: M6 }));
}

#[test]
fn catchup_the_player_whose_turn_it_is_draws_the_replacement() {
    // F2 drawn by the Marshal: the Fugitive draws, finds a placeholder, resolves its event
    // (N2 Detour: the Marshal loses a draw), and the Marshal, whose turn it is, replaces it.
    let events = EventDeal {
        in_decks: [vec![(0, DeckCard::Event(F2))], vec![(0, DeckCard::Placeholder)], vec![]],
        piles: [vec![], vec![N2], vec![]],
    };
    let mut game =
        Game::from_deal_with_events(rules(EventVariant::Catchup), deal(&HAND), events).expect("legal");
    open(&mut game, &[3, 6]);
    play(&mut game, Marshal, draw(1)); // F2
    let events = play(&mut game, Fugitive, draw(2)); // the placeholder
    assert!(events.contains(&Event::EventDrawn { role: Fugitive, deck: None, card: N2 }));
    assert_eq!(draws_due(&game), Some((Fugitive, 1)), "his second F2 draw");
    play(&mut game, Fugitive, draw(3));
    // The Marshal's two draws, her F2 replacement and the placeholder's, less one for Detour.
    let mut drawn = 0;
    while draws_due(&game).is_some() {
        play(&mut game, Marshal, draw(3));
        drawn += 1;
    }
    assert_eq!(drawn, 2);
    assert!(game.history().contains(&Event::DrawMissed { role: Marshal }));
}

#[test]
fn e5_hidden_parts_stay_hidden_in_every_variant() {
    // Deck order and piles never show while the game runs; after the end they do (R18).
    for variant in EventVariant::ALL {
        let setup = Setup::new(9u64).with_rules(rules(variant));
        let game = Play::to_the_end(9).run(Game::new(setup), |game| {
            if game.is_over() {
                return;
            }
            for viewer in Viewer::ALL {
                let view = game.view(viewer);
                assert!(view.decks.iter().all(|d| d.cards.is_none()));
                if let Some(events) = view.events {
                    assert!(events.pile_cards.is_none());
                }
            }
        });
        let view = game.view(Viewer::Spectator);
        assert!(view.decks.iter().all(|d| d.cards.is_some()));
        assert_eq!(view.events.is_some(), variant != EventVariant::Off);
    }
}

/// Plays `games` random games of `variant`; returns how many the Fugitive won.
fn self_play(variant: EventVariant, games: u64) -> u64 {
    let mut fugitive_wins = 0;
    for seed in 0..games {
        let setup = Setup::new(seed).with_rules(rules(variant));
        let game = Play::to_the_end(seed).run(Game::new(setup), |_| {});
        let outcome = game.outcome().expect("every game ends");
        fugitive_wins += u64::from(outcome.winner == Fugitive);
        assert_eq!(Game::replay(setup, game.actions()).expect("replays"), game, "R4");
    }
    fugitive_wins
}

#[test]
fn every_variant_self_play_ends() {
    for variant in EventVariant::ALL {
        let wins = self_play(variant, 100);
        assert!(wins > 0 && wins < 100, "{variant:?}: the Fugitive won {wins} of 100");
    }
}

/// The big run for `BENCHMARKS.md`: `cargo test --release -p fugitive-core --test events --
/// --ignored --nocapture`.
#[test]
#[ignore = "2,000 games per variant: run in release mode for BENCHMARKS.md"]
fn every_variant_self_play_2000_games() {
    for variant in EventVariant::ALL {
        let games = 2_000;
        let wins = self_play(variant, games);
        println!(
            "{variant:?}: random play, the Fugitive won {wins} of {games} ({:.1} %)",
            wins as f64 * 100.0 / games as f64
        );
    }
}
