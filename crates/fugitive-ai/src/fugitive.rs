//! The computer Fugitive: it reads only a [`FugitiveView`].

use fugitive_core::{
    Action, Card, Cards, Choice, Deal, Decision, Deck, DeckCard, Event, EventVariant, Game, Icon,
    LegalActions, Phase, Role, RuleOptions, SprintOptions,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::deduction::Deduction;
use crate::marshal::MarshalBot;
use crate::view::{FugitiveView, Level, MarshalView, best_choice, last_card, peeked};

/// Worlds the `hard` Fugitive samples per decision (one rollout per candidate move in each), unless set otherwise.
pub const DEFAULT_ROLLOUTS: usize = 64;

/// What a lost rollout is worth at most, for how far the trail got.
const PROGRESS_WORTH: f64 = 0.2;

/// No rollout runs longer than this many actions; an unfinished one counts as half a win.
const ROLLOUT_ACTIONS: usize = 400;

/// A computer Fugitive.
///
/// - `random`: any legal action (`LegalActions::sample`).
/// - `easy`: draws from the deck just ahead of his trail; places the hideout that gets
///   furthest for the fewest live cards, sprinting with cards already behind him, bluffs with
///   a spare card under a hideout now and then, passes when every placement would burn live
///   cards, and plays 42 when it wins at once (R15) or leaves three or more hideouts to find.
/// - `hard`: plays the hiding game by determinized Monte Carlo from his own view. It samples
///   [`DEFAULT_ROLLOUTS`] worlds that agree with his view (the Marshal's hand from the decks
///   she drew from, the decks' order), replays the game so far in each, and plays every
///   candidate move out in every world (the same worlds for each move): each placement with
///   its cheapest sprint cards, with one and with two bluff cards more (spare cards below the
///   hideout), every hideout he can reach (a number she just guessed included), passing, and
///   on a draw every deck. The rollouts' Marshal is our own: the `hard` Marshal, who reads
///   the exact deduction of her view in that world and guesses where her belief is strongest,
///   so a move scores by how well it hides from that belief; or the `easy` one, in the share
///   of the worlds that his belief gives her (a Bayesian update over her past draws and
///   guesses, replayed in a few worlds against both models). His own play in the rollouts is
///   `easy`; a rollout he wins is worth 1, a lost one a little for how far his trail got. Its
///   rollouts are games without events: the event cards he cannot see are not dealt (a
///   simplification; the current position's events already count through his legal moves).
///   Its budget is bounded: [`DEFAULT_ROLLOUTS`] rollouts of at most 400 actions per move.
/// - Events (`easy` and `hard`, [`choose`]): F5 Smoke Screen puts his lowest dead card (below
///   the end of the trail) under the most recent face-down hideout, or declines; N6 Change of
///   Plans returns his lowest dead card, or declines; N5 Town Gossip looks at the deck he would
///   draw from and keeps a card he can use or a footprints event on top, else moves it down.
#[derive(Clone, Debug)]
pub struct FugitiveBot {
    level: Level,
    rng: ChaCha8Rng,
    rollouts: usize,
}

impl FugitiveBot {
    /// A Fugitive of this level; `seed` makes its choices reproducible.
    pub fn new(level: Level, seed: u64) -> FugitiveBot {
        FugitiveBot { level, rng: ChaCha8Rng::seed_from_u64(seed), rollouts: DEFAULT_ROLLOUTS }
    }

    /// The same bot with another number of sampled worlds per decision (`hard` only).
    #[must_use]
    pub fn with_rollouts(self, rollouts: usize) -> FugitiveBot {
        FugitiveBot { rollouts: rollouts.max(1), ..self }
    }

    /// Its action, or `None` when it is not the Fugitive's move.
    pub fn act(&mut self, view: &FugitiveView) -> Option<Action> {
        let legal = view.legal_actions();
        if self.level == Level::Random {
            return legal.sample(&mut self.rng);
        }
        if !legal.choices.is_empty() {
            return Some(Action::Choose { choice: choose(view, &legal.choices) });
        }
        if !legal.draws.is_empty() {
            let easy = Action::Draw { deck: draw_choice(view, &legal.draws) };
            if self.level == Level::Hard && legal.draws.len() > 1 {
                let draws: Vec<Action> = legal.draws.iter().map(|&deck| Action::Draw { deck }).collect();
                return Some(self.search(view, &draws).unwrap_or(easy));
            }
            return Some(easy);
        }
        let moves = moves(view, &legal);
        if moves.is_empty() {
            return None;
        }
        let easy = easy_choice(view, &moves, &mut self.rng);
        match self.level {
            Level::Hard if moves.len() > 1 => {
                let actions: Vec<Action> = moves.iter().map(|m| m.action).collect();
                Some(self.search(view, &actions).unwrap_or(easy))
            }
            _ => Some(easy),
        }
    }

    /// Determinized Monte Carlo over `moves`: every candidate is played out in the same
    /// sampled worlds (common random numbers). The rollouts' Marshal is the `hard` one in a
    /// share of the worlds that is his belief that she plays like it (see [`hard_belief`]),
    /// the `easy` one in the others.
    fn search(&mut self, view: &FugitiveView, moves: &[Action]) -> Option<Action> {
        let mut worlds = Vec::with_capacity(self.rollouts);
        let mut evidence = Vec::new();
        for i in 0..self.rollouts {
            let mut llr = 0.0;
            let check = (i < MODEL_WORLDS).then_some(&mut llr);
            if let Some(world) = determinize(view, &mut self.rng, check) {
                worlds.push(world);
                if i < MODEL_WORLDS {
                    evidence.push(llr);
                }
            }
        }
        if worlds.is_empty() {
            return None;
        }
        let hard = hard_belief(&evidence);
        let n = worlds.len();
        let mut best = (f64::MIN, moves[0]);
        for &action in moves {
            let mut value = 0.0;
            for (i, world) in worlds.iter().enumerate() {
                let mut game = world.clone();
                if game.apply(Role::Fugitive, action).is_err() {
                    return None;
                }
                let level = if (i as f64 + 0.5) / n as f64 <= hard { Level::Hard } else { Level::Easy };
                value += rollout(&mut game, level, i as u64, &mut self.rng);
            }
            if value > best.0 {
                best = (value, action);
            }
        }
        Some(best.1)
    }
}

/// His belief that the Marshal plays like the `hard` one before she has moved.
const HARD_PRIOR: f64 = 0.1;

/// How many of the sampled worlds check the Marshal's past actions against the two models.
const MODEL_WORLDS: usize = 8;

/// How likely a `hard` Marshal's move differs from the one the model makes in a sampled
/// world (her hand there is a guess, and the deduction depends on it).
const HARD_SLIP: f64 = 0.03;

/// His belief that the Marshal plays like the `hard` one: from even odds, the mean over the
/// checked worlds of the posterior given her past draws and guesses there.
fn hard_belief(evidence: &[f64]) -> f64 {
    let prior = (HARD_PRIOR / (1.0 - HARD_PRIOR)).ln();
    if evidence.is_empty() {
        return HARD_PRIOR;
    }
    let posterior = |llr: f64| 1.0 / (1.0 + (-(prior + llr).clamp(-50.0, 50.0)).exp());
    evidence.iter().map(|&llr| posterior(llr)).sum::<f64>() / evidence.len() as f64
}

/// The log-likelihood ratio of the Marshal's `action` in `game` under the `hard` model against
/// the `easy` one (`MarshalBot`): the hard one is deterministic, the easy one draws from a
/// random deck and names one number with the deduction's odds.
fn hard_evidence(game: &Game, action: Action) -> f64 {
    let view = MarshalView::of(game);
    let legal = view.legal_actions();
    let hard = if MarshalBot::new(Level::Hard, 0).fast().act(&view) == Some(action) {
        1.0 - HARD_SLIP
    } else {
        HARD_SLIP
    };
    let easy = match action {
        Action::Draw { .. } => 1.0 / legal.draws.len().max(1) as f64,
        Action::Guess { numbers } if numbers.len() == 1 => {
            let deduction = Deduction::trails_only(&view);
            let open = legal.guess.map(|g| g.numbers).unwrap_or_default();
            let total: f64 = open.iter().map(|n| deduction.hideout_share(n)).sum();
            let number = numbers.first().expect("one number");
            if total > 0.0 { deduction.hideout_share(number) / total } else { 1.0 / open.len().max(1) as f64 }
        }
        _ => 0.0,
    };
    (hard.ln() - easy.max(1e-3).ln()).clamp(-10.0, 10.0)
}

/// A candidate place, pass or end of turn, with a rough worth: how far it gets, less three
/// for each live card (one he could still place as a hideout) it spends as a sprint card.
#[derive(Clone, Copy, Debug)]
struct Move {
    action: Action,
    score: i32,
    bluff: bool,
}

/// Draws from the deck whose cards lie just ahead of the trail (R7).
fn draw_choice(view: &FugitiveView, decks: &[Deck]) -> Deck {
    let target = last_card(view.view()).number() + 5;
    decks
        .iter()
        .copied()
        .find(|d| d.range().1 >= target)
        .unwrap_or(*decks.last().expect("a deck to draw from"))
}

/// The Fugitive's answer to an event's pending decision (E3), one of `choices`.
pub(crate) fn choose(view: &FugitiveView, choices: &[Choice]) -> Choice {
    let v = view.view();
    // R11a: the pass bonus is a card more to place or sprint with; he always takes it.
    let bonus = matches!(v.phase, Phase::Pending { decision: Decision::PassBonus, .. });
    let last = last_card(v);
    let newest = v.trail.iter().rposition(|t| !t.face_up);
    let target = last.number() + 5;
    let score = |choice: &Choice| -> i32 {
        match *choice {
            // F5 and N6: a dead card (below the trail's end) is free to spend; a live one is not.
            Choice::Sprint { card, position } if card < last => {
                100 - i32::from(card.number()) + if Some(position) == newest { 50 } else { 0 }
            }
            Choice::Card { card } if card < last => 100 - i32::from(card.number()),
            Choice::Sprint { .. } | Choice::Card { .. } => -1,
            Choice::Decline => 0,
            Choice::Deck { .. } if bonus => 1,
            // N5: the deck he would draw from.
            Choice::Deck { deck } => {
                if deck.range().1 >= target {
                    10 - i32::from(deck.number())
                } else {
                    0
                }
            }
            Choice::Move { bottom } => {
                let keep = match peeked(v) {
                    Some(DeckCard::Hideout(card)) => card > last,
                    Some(DeckCard::Event(event)) => event.icon() == Icon::Footprints,
                    _ => true,
                };
                i32::from(bottom != keep)
            }
            // The Marshal's decisions never wait for him.
            Choice::Hideout { .. } | Choice::Range { .. } | Choice::Number { .. } => 0,
        }
    };
    best_choice(choices, score)
}

/// The candidate moves now.
fn moves(view: &FugitiveView, legal: &LegalActions) -> Vec<Move> {
    let hand = view.hand();
    let last = last_card(view.view()).number() as i32;
    let mut moves = Vec::new();
    for placement in &legal.placements {
        let h = placement.hideout;
        let live = |s: Cards| s.iter().filter(|c| *c > h).count() as i32;
        let sprints = match &placement.sprints {
            SprintOptions::AtLeast { value, from } => cheapest(*from, *value, h),
            SprintOptions::OneOf { sets } => sets.iter().copied().min_by_key(|s| (live(*s), s.len())),
        };
        let Some(sprints) = sprints else { continue };
        let score = h.number() as i32 - last - 3 * live(sprints);
        moves.push(Move { action: Action::Place { hideout: h, sprints }, score, bluff: false });
        let spare = hand.without(h).without(Card::ESCAPE).difference(sprints);
        let bluff_card = spare.iter().filter(|c| *c < h).min_by_key(|c| (c.sprint_value(), c.number()));
        // A bluff card only where sprint cards are allowed (not on an M1 Roadblock space).
        let allowed = |card: Card| matches!(&placement.sprints, SprintOptions::AtLeast { from, .. } if from.contains(card));
        if let Some(card) = bluff_card.filter(|&c| allowed(c)) {
            let action = Action::Place { hideout: h, sprints: sprints.with(card) };
            moves.push(Move { action, score: score - 1, bluff: true });
            // Two bluff cards: a reach of four more for the Marshal to consider.
            let second = spare.without(card).iter().filter(|c| *c < h && allowed(*c));
            if let Some(other) = second.min_by_key(|c| (c.sprint_value(), c.number())) {
                let action = Action::Place { hideout: h, sprints: sprints.with(card).with(other) };
                moves.push(Move { action, score: score - 2, bluff: true });
            }
        }
    }
    if legal.pass {
        moves.push(Move { action: Action::Pass, score: 0, bluff: false });
    }
    if legal.end_turn {
        moves.push(Move { action: Action::EndTurn, score: 1, bluff: false });
    }
    moves
}

/// The fewest cards of `from` worth at least `value`, spending cards below `hideout` (dead
/// once it is placed) first.
fn cheapest(from: Cards, value: u8, hideout: Card) -> Option<Cards> {
    let mut cards: Vec<Card> = from.iter().collect();
    cards.sort_by_key(|c| (*c > hideout, std::cmp::Reverse(c.sprint_value()), std::cmp::Reverse(c.number())));
    let mut sprints = Cards::EMPTY;
    for card in cards {
        if sprints.sprint_value() >= value {
            break;
        }
        sprints.insert(card);
    }
    (sprints.sprint_value() >= value).then_some(sprints)
}

/// The `easy` Fugitive's choice among `moves` (see [`FugitiveBot`]).
fn easy_choice(view: &FugitiveView, moves: &[Move], rng: &mut impl Rng) -> Action {
    let v = view.view();
    let highest = v.highest_revealed();
    let hidden = v.trail.iter().filter(|t| !t.face_up).count();
    let escape = |m: &&Move| matches!(m.action, Action::Place { hideout, .. } if hideout == Card::ESCAPE);
    if let Some(m) = moves.iter().find(escape) {
        if highest >= 30 || hidden == 0 || hidden >= 3 {
            return m.action;
        }
    }
    let places = moves.iter().filter(|m| matches!(m.action, Action::Place { .. }) && !escape(m));
    let stop = moves.iter().find(|m| matches!(m.action, Action::Pass | Action::EndTurn));
    let best = places.clone().filter(|m| !m.bluff).max_by_key(|m| m.score);
    match (best, stop) {
        (Some(best), Some(stop)) if best.score < stop.score + 1 => stop.action,
        (Some(best), _) => {
            let bluff = places.clone().find(|m| m.bluff && m.action_hideout() == best.action_hideout());
            match bluff {
                Some(b) if rng.random_bool(0.25) => b.action,
                _ => best.action,
            }
        }
        (None, Some(stop)) => stop.action,
        (None, None) => moves[0].action,
    }
}

impl Move {
    fn action_hideout(&self) -> Option<Card> {
        match self.action {
            Action::Place { hideout, .. } => Some(hideout),
            _ => None,
        }
    }
}

/// A whole game agreeing with the Fugitive's view: the cards he cannot see (the Marshal's
/// hand, the decks' order) dealt at random, then the game so far replayed.
///
/// With `evidence`, it also adds up [`hard_evidence`] for each of the Marshal's draws and
/// guesses replayed.
fn determinize(view: &FugitiveView, rng: &mut impl Rng, mut evidence: Option<&mut f64>) -> Option<Game> {
    let v = view.view();
    let mut known = view.hand();
    for card in &v.trail {
        known = known.union(card.sprints.unwrap_or_default());
        if let Some(c) = card.card {
            known.insert(c);
        }
    }
    let mut his_draws: [Vec<Card>; 3] = Default::default();
    let mut order: [Vec<Role>; 3] = Default::default();
    for event in &v.history {
        if let Event::Drew { role, deck, card } = *event {
            order[deck.index()].push(role);
            if role == Role::Fugitive {
                his_draws[deck.index()].push(card?);
            }
        }
    }
    let drawn: Cards = his_draws.iter().flatten().copied().collect();
    let start = known.difference(drawn).without(Card::START);
    let decks = Deck::ALL.map(|deck| {
        let mut unseen: Vec<Card> = deck.cards().difference(known).iter().collect();
        unseen.shuffle(rng);
        let mut his = his_draws[deck.index()].iter().copied();
        let mut cards = Vec::new();
        for role in &order[deck.index()] {
            match role {
                Role::Fugitive => cards.extend(his.next()),
                Role::Marshal => cards.extend(unseen.pop()),
            }
        }
        cards.extend(unseen);
        cards
    });
    let rules = RuleOptions { events: EventVariant::Off, ..v.rules };
    let mut game = Game::from_deal(rules, Deal { decks, fugitive_hand: start }).ok()?;
    let mut next = 0;
    while next < v.history.len() {
        let event = &v.history[next];
        let action = match (game.phase(), *event) {
            // R11a: after a pass, his bonus draw or his decline answered a decision.
            (Phase::Pending { decision: Decision::PassBonus, .. }, Event::Drew { deck, .. }) => {
                Some((Role::Fugitive, Action::Choose { choice: Choice::Deck { deck } }))
            }
            (Phase::Pending { decision: Decision::PassBonus, .. }, Event::Declined { .. }) => {
                Some((Role::Fugitive, Action::Choose { choice: Choice::Decline }))
            }
            _ => action_of(event),
        };
        match action {
            Some((role, action)) => {
                if let (Some(llr), Role::Marshal) = (evidence.as_deref_mut(), role) {
                    *llr += hard_evidence(&game, action);
                }
                game.apply(role, action).ok()?;
                next = game.history().len();
            }
            None => next += 1,
        }
    }
    Some(game)
}

/// The action behind a history entry the Fugitive sees, if it was one.
fn action_of(event: &Event) -> Option<(Role, Action)> {
    match *event {
        Event::Drew { role, deck, .. } => Some((role, Action::Draw { deck })),
        Event::Placed { hideout: Some(hideout), sprints: Some(sprints), .. } => {
            Some((Role::Fugitive, Action::Place { hideout, sprints }))
        }
        Event::Passed => Some((Role::Fugitive, Action::Pass)),
        Event::TurnEnded => Some((Role::Fugitive, Action::EndTurn)),
        Event::Guessed { numbers, .. } => Some((Role::Marshal, Action::Guess { numbers })),
        _ => None,
    }
}

/// Plays `game` out, `easy` Fugitive against a `marshal` of that level. Worth 1 if the Fugitive
/// wins; a loss is worth a little for how far his trail got (a tie-break among moves that
/// all lose against a strong Marshal).
fn rollout(game: &mut Game, marshal: Level, seed: u64, rng: &mut impl Rng) -> f64 {
    // The notepad's cheap count: the exact one costs too much for thousands of rollouts.
    let mut marshal = MarshalBot::new(marshal, seed).fast();
    for _ in 0..ROLLOUT_ACTIONS {
        let Some(role) = game.to_move() else { break };
        let action = match role {
            Role::Fugitive => {
                let view = FugitiveView::of(game);
                let legal = view.legal_actions();
                if !legal.choices.is_empty() {
                    Action::Choose { choice: choose(&view, &legal.choices) }
                } else if !legal.draws.is_empty() {
                    Action::Draw { deck: draw_choice(&view, &legal.draws) }
                } else {
                    easy_choice(&view, &moves(&view, &legal), rng)
                }
            }
            Role::Marshal => match marshal.act(&MarshalView::of(game)) {
                Some(action) => action,
                None => return 0.5,
            },
        };
        if game.apply(role, action).is_err() {
            return 0.5;
        }
    }
    let progress = f64::from(game.trail().last_card().number()) / 42.0;
    match game.outcome() {
        Some(o) if o.winner == Role::Fugitive => 1.0,
        Some(_) => PROGRESS_WORTH * progress,
        None => 0.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fugitive_core::{Setup, Viewer};

    #[test]
    fn a_determinized_game_agrees_with_his_view() {
        for seed in 0..30u64 {
            // R11a: with the pass bonus, his bonus draws and declines replay as his choices.
            let rules = RuleOptions { pass_bonus_draw: seed % 2 == 1, ..RuleOptions::default() };
            let mut game = Game::new(Setup::new(seed).with_rules(rules));
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(role) = game.to_move() {
                let view = FugitiveView::of(&game);
                let sample = determinize(&view, &mut rng, None).expect("a deal that fits his view");
                assert_eq!(sample.view(Viewer::Fugitive), game.view(Viewer::Fugitive));
                let action = game.legal_actions(role).sample(&mut rng).unwrap();
                game.apply(role, action).unwrap();
            }
        }
    }
}
