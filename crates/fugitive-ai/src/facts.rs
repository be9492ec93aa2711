//! What the event cards (`EVENTS.md`) told the Marshal beyond the trail count's evidence, read
//! from her view for the exact count of worlds (`worlds.rs`).
//!
//! - **M3 Stakeout**: how many of the face-down hideouts of then lay in a deck's range.
//! - **M6 Eyewitness**: the group of one position's hideout.
//! - **F4 Bad Intel, N6 Change of Plans (hers), N5 Town Gossip (her peek)**: cards she knows lie
//!   in a deck; they are not his while they stay there. The history says, draw by draw, how
//!   deep each lies (every draw, return and move to the bottom names its deck), so it says
//!   when one leaves the deck too.
//! - **N6 Change of Plans (his)**: one of the cards he held then (dealt or drawn before it, not
//!   placed) went back to a deck; it is not his from then on.
//! - **F5 Smoke Screen, N3 Hot Tip (his)**: one card he held then went under a face-down
//!   hideout; it is a sprint card there that did not count for the placement's reach. When the
//!   sprint cards are known (revealed, or shown by M2 Informant after it), which of them it was
//!   is part of the world.
//!
//! - **His draw of a card she knows** (one she put back or looked at): a draw whose card is
//!   known. It is his from then on, in its own slot of his draws: a hideout, a sprint or smoke
//!   card placed after it, or in his hand (`KnownDraw`).
//!
//! `None` (the caller gives the trail count) when a card he returned left its deck again or she
//! saw it, when a card he drew that she knew lies among sprint cards she has seen or he put a
//! card of its deck back after drawing it, or for more
//! smoke cards, stakeouts or known draws than a real game can have.

use fugitive_core::{Card, Cards, Deck, DeckCard, Event, Role, View};

/// The most F5 Smoke Screen cards a game has: F5 and N3 drawn by him (each card is dealt once).
pub(crate) const MAX_SMOKES: usize = 2;

/// The most of his draws whose card she knew that the count follows (one bit each).
pub(crate) const MAX_KNOWN_DRAWS: usize = 4;

/// A draw of his whose card she knew (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownDraw {
    pub(crate) card: Card,
    /// The placements made before he drew it: it can be placed at the later ones.
    pub(crate) after: usize,
    /// How many steps between placements (`Facts::between[after]`) came before it.
    pub(crate) step: usize,
    /// Whether it is face up as a hideout (its place is known: no choice).
    pub(crate) public: bool,
}

impl KnownDraw {
    /// Whether he held it by the step `step` after `placed` placements (or by the placement
    /// `placed + 1`, with `step` past the last).
    pub(crate) fn held_at(&self, placed: usize, step: usize) -> bool {
        self.after < placed || (self.after == placed && self.step <= step)
    }
}

/// One step between two placements (or after the last): it takes one of the cards he held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Between {
    /// A smoke card (F5) whose number is hidden: any card he held then.
    HiddenSmoke {
        /// Per deck (1–3 at index 1–3), the cards he had taken by then, less those returned.
        had: [i64; 4],
    },
    /// A smoke card among a known stack: which card is the world's (the key's pending deck).
    KnownSmoke {
        /// The index of the smoke card (0 or 1), its pending slot in the key.
        slot: usize,
        had: [i64; 4],
    },
    /// He put a card of `deck` back (N6): one of the cards of it he held then.
    Return { deck: usize, had: [i64; 4] },
}

/// A known sprint stack at a position: the cards shown, and which of them are smoke cards
/// (each smoke's slot), or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KnownStack {
    pub(crate) cards: Cards,
    /// The slots of the smoke cards among `cards`.
    pub(crate) smokes: Vec<usize>,
}

/// M3 Stakeout: of the positions `1..=horizon` that were face down then (`hidden[i]`), `count`
/// held a hideout of `deck` (1–3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stakeout {
    pub(crate) horizon: usize,
    pub(crate) deck: usize,
    pub(crate) count: u8,
    pub(crate) hidden: Vec<bool>,
}

/// What the events told her (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Cards she knows lie in a deck.
    pub(crate) in_decks: Cards,
    /// Per position (index `i − 1`), the numbers M6 left it.
    pub(crate) groups: Vec<Cards>,
    /// Per position, how many hidden smoke cards lie under it (not in a known stack).
    pub(crate) hidden_smokes: Vec<u8>,
    /// Per position, its known stack when the sprint cards are known.
    pub(crate) known: Vec<Option<KnownStack>>,
    /// Per position, what he had taken of each deck (1–3) when he placed it, less returns.
    pub(crate) had: Vec<[i64; 4]>,
    /// The steps after `L` placements, by `L` (0..=n), in time order.
    pub(crate) between: Vec<Vec<Between>>,
    pub(crate) stakeout: Option<Stakeout>,
    /// His draws whose card she knew, in time order.
    pub(crate) known_draws: Vec<KnownDraw>,
}

/// A card lying in a deck at a known depth (cards above it).
struct Tracked {
    deck: usize,
    depth: usize,
    /// The card, if hers to know; `None`: one he returned.
    card: Option<Card>,
}

impl Facts {
    /// Reads the facts from the Marshal's view (see the module documentation).
    pub(crate) fn read(view: &View) -> Option<Facts> {
        let n = view.trail.len() - 1;
        let all = Cards::range(1, 41);
        let mut facts = Facts {
            in_decks: Cards::EMPTY,
            groups: vec![all; n],
            hidden_smokes: vec![0; n],
            known: vec![None; n],
            had: vec![[0, i64::MAX, i64::MAX, i64::MAX]; n],
            between: vec![Vec::new(); n + 1],
            stakeout: None,
            known_draws: Vec::new(),
        };
        let removed = |e: &Event| match *e {
            Event::Drew { deck, .. } | Event::CatchupDrawn { deck, .. } => Some(deck),
            Event::EventDrawn { deck, .. } => deck,
            _ => None,
        };
        // Deck sizes at the start: the current ones, less what came in, plus what went out.
        let mut sizes: [i64; 3] = std::array::from_fn(|d| view.decks[d].size as i64);
        for e in &view.history {
            if let Some(deck) = removed(e) {
                sizes[deck.index()] += 1;
            }
            if let Event::ReturnedToDeck { deck, .. } = *e {
                sizes[deck.index()] -= 1;
            }
        }
        let mut tracked: Vec<Tracked> = Vec::new();
        let mut drawn = [0i64, 3, 2, 0];
        let mut returned = [0i64; 4];
        let mut placed = 0usize;
        let mut revealed = vec![false; n + 1];
        // Each smoke card: its position, its slot, and whether it lies among known cards.
        let mut smokes: Vec<(usize, usize, bool)> = Vec::new();
        let shown_last: Vec<Option<usize>> = (0..=n)
            .map(|p| {
                view.history
                    .iter()
                    .rposition(|e| matches!(*e, Event::SprintsShown { position, .. } if position == p))
            })
            .collect();
        let face_up_stack = |p: usize| view.trail[p].face_up && view.trail[p].card != Some(Card::ESCAPE);
        for (at, e) in view.history.iter().enumerate() {
            if let Some(deck) = removed(e) {
                let d = deck.index();
                let mut taken = None;
                for (j, t) in tracked.iter_mut().enumerate() {
                    if t.deck == d {
                        if t.depth == 0 {
                            taken = Some(j);
                        } else {
                            t.depth -= 1;
                        }
                    }
                }
                if let Some(j) = taken {
                    // A card she knows or one he returned left the deck: only her own draw of
                    // a card she knows keeps the worlds what the programme counts.
                    match (*e, tracked[j].card) {
                        (Event::Drew { role: Role::Marshal, .. }, Some(_)) => {}
                        (Event::Drew { role: Role::Fugitive, .. }, Some(card)) => {
                            if facts.known_draws.len() >= MAX_KNOWN_DRAWS {
                                return None;
                            }
                            let step = facts.between[placed].len();
                            facts.known_draws.push(KnownDraw { card, after: placed, step, public: false });
                            // Its own slot, not one of the draws of its deck he took unseen.
                            drawn[d + 1] -= 1;
                        }
                        _ => return None,
                    }
                    tracked.remove(j);
                }
                sizes[d] -= 1;
                if sizes[d] < 0 {
                    return None;
                }
            }
            match *e {
                Event::Drew { role: Role::Fugitive, deck, .. } => drawn[deck.index() + 1] += 1,
                Event::Placed { position, .. } if (1..=n).contains(&position) => {
                    placed = position;
                    facts.had[position - 1] = std::array::from_fn(|d| drawn[d] - returned[d]);
                    facts.had[position - 1][0] = 0;
                }
                Event::Revealed { position, .. } if position <= n => revealed[position] = true,
                Event::ReturnedToDeck { role, deck, card } => {
                    let d = deck.index();
                    let card = match role {
                        Role::Marshal => Some(card?),
                        Role::Fugitive => None,
                    };
                    // A card he put back while he may hold one he drew that she knew, of its
                    // deck: which it was is not followed.
                    if role == Role::Fugitive
                        && facts.known_draws.iter().any(|k| deck_number(k.card) == d + 1)
                    {
                        return None;
                    }
                    if role == Role::Fugitive {
                        let had = std::array::from_fn(|i| drawn[i] - returned[i]);
                        facts.between[placed].push(Between::Return { deck: d + 1, had });
                        returned[d + 1] += 1;
                    }
                    tracked.push(Tracked { deck: d, depth: sizes[d] as usize, card });
                    sizes[d] += 1;
                }
                Event::Peeked { role: Role::Marshal, deck, card } => {
                    // The card he put back, seen: a known card of his, which the programme
                    // does not model.
                    if tracked.iter().any(|t| t.deck == deck.index() && t.depth == 0 && t.card.is_none()) {
                        return None;
                    }
                    if let Some(DeckCard::Hideout(card)) = card
                        && !tracked.iter().any(|t| t.card == Some(card))
                    {
                        tracked.push(Tracked { deck: deck.index(), depth: 0, card: Some(card) });
                    }
                }
                Event::MovedToBottom { deck, moved: true } => {
                    let d = deck.index();
                    for t in tracked.iter_mut().filter(|t| t.deck == d) {
                        t.depth = if t.depth == 0 { sizes[d] as usize - 1 } else { t.depth - 1 };
                    }
                }
                Event::SprintAdded { position, .. } if (1..=n).contains(&position) => {
                    let slot = smokes.len();
                    if slot >= MAX_SMOKES {
                        return None;
                    }
                    let known = face_up_stack(position) || shown_last[position].is_some_and(|s| s > at);
                    smokes.push((position, slot, known));
                    let had = std::array::from_fn(|i| if i == 0 { 0 } else { drawn[i] - returned[i] });
                    facts.between[placed].push(if known {
                        Between::KnownSmoke { slot, had }
                    } else {
                        facts.hidden_smokes[position - 1] += 1;
                        Between::HiddenSmoke { had }
                    });
                }
                Event::StakeoutCounted { deck, count } => {
                    if facts.stakeout.is_some() {
                        return None;
                    }
                    let hidden = (0..=placed)
                        .map(|i| i > 0 && !revealed[i] && view.trail[i].card != Some(Card::ESCAPE))
                        .collect();
                    facts.stakeout = Some(Stakeout {
                        horizon: placed,
                        deck: deck.index() + 1,
                        count: count as u8,
                        hidden,
                    });
                }
                Event::Eyewitness { position, low, high } if (1..=n).contains(&position) => {
                    facts.groups[position - 1] =
                        facts.groups[position - 1].intersection(Cards::range(low, high));
                }
                _ => {}
            }
        }
        facts.in_decks = tracked.iter().filter_map(|t| t.card).collect();
        for (p, shown) in shown_last.iter().enumerate().skip(1) {
            // Known: revealed with the hideout, or shown by M2 while face down.
            let cards = view.trail[p].sprints.filter(|_| face_up_stack(p) || shown.is_some());
            if let Some(cards) = cards {
                let smokes = smokes.iter().filter(|s| s.0 == p && s.2).map(|s| s.1).collect();
                facts.known[p - 1] = Some(KnownStack { cards, smokes });
            }
        }
        for k in &mut facts.known_draws {
            k.public = view.trail.iter().any(|t| t.face_up && t.card == Some(k.card));
            // Among sprint cards she has seen: which of them were placed when is not followed.
            if facts.known.iter().flatten().any(|s| s.cards.contains(k.card)) {
                return None;
            }
        }
        Some(facts)
    }
}

/// The deck of a card as the programme numbers them: 0 for 1–3, 1–3 for the decks.
pub(crate) fn deck_number(card: Card) -> usize {
    Deck::of(card).map_or(0, |d| d.index() + 1)
}
