//! The computer Fugitive: it reads only a [`FugitiveView`].

use std::time::{Duration, Instant};

use cpu_time::ThreadTime;
use fugitive_core::{
    Action, Card, Cards, Choice, Decision, Deck, DeckCard, Game, Icon, LegalActions, Phase, Role,
    SprintOptions,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::deduction::Deduction;
use crate::marshal::MarshalBot;
use crate::view::{FugitiveView, Level, MarshalView, best_choice, last_card, peeked};
use crate::world;

/// Rollouts per candidate move of the `hard` Fugitive's search, unless set otherwise: its budget
/// per decision is this many times the number of candidates.
pub const DEFAULT_ROLLOUTS: usize = 64;

/// Rollouts per candidate move of the `medium` Fugitive's search. Over games 0-299 of
/// `fugitive-sim --seed 2` against the `easy` Marshal, 8 won 200 (66.7 %), 24 won 220 (73.3 %):
/// a clear step (at least 65 %) above the `easy` Fugitive's 49.6 %, at about a third of the
/// `hard` one's cost per decision.
const MEDIUM_ROLLOUTS: usize = 24;

/// What a lost rollout is worth at most, for how far the trail got.
const PROGRESS_WORTH: f64 = 0.2;

/// No rollout runs longer than this many actions; an unfinished one counts as half a win.
const ROLLOUT_ACTIONS: usize = 400;

/// On how many of her next turns the rollouts' `hard` Marshal guesses from the exact notepad.
/// One turn: the exact notepad made the real `hard` Marshal stronger than the trail count, and
/// the Fugitive whose rollouts only read the trail count hoped too much (21.9 % of his games
/// won against her at 2,000 games, against 26.9–28.7 % before the exact notepad). Over the
/// same 600 games, one exact turn won 162 against 144 at 1.4 times the time per decision; two
/// won no more at 1.7 times; exact draws too won no more at 2 times.
const EXACT_TURNS: u32 = 1;

/// A computer Fugitive.
///
/// - `random`: any legal action (`LegalActions::sample`).
/// - `easy`: draws from the deck just ahead of his trail; places the hideout that gets
///   furthest for the fewest live cards, sprinting with cards already behind him, bluffs with
///   a spare card under a hideout now and then, passes when every placement would burn live
///   cards, and plays 42 when it wins at once (R15) or leaves three or more hideouts to find.
/// - `hard`: plays the hiding game by determinized Monte Carlo from his own view. It samples
///   worlds that agree with his view (`world.rs`: the Marshal's hand from the decks she drew
///   from, the decks' order, and with events on, the event deck he can infer: the variant,
///   the events seen so far and when, what is left in each pile), replays the game so far in
///   each, and plays every candidate move out in the same worlds: each placement with its
///   cheapest sprint cards, with one and with two bluff cards more (spare cards below the
///   hideout), every hideout he can reach (a number she just guessed included), passing, and
///   on a draw every deck. Against a Marshal he takes for the `easy` one, the candidates
///   compete by sequential halving: after each round the worse half drops out and the rest
///   play on in new worlds, so most rollouts go to telling the best moves apart; against one
///   he takes for the `hard` one, every candidate plays in every world. The rollouts' Marshal
///   is our own: the `hard` Marshal, who on her next turn guesses as the real one does, from
///   the exact notepad of her view in that world (where her belief is strongest), so a move
///   scores by how well it hides from that belief, and later reads the cheaper trail count;
///   or the `easy` one, in the share of the worlds that his belief gives her (a Bayesian
///   update over her past draws and guesses, replayed in a few worlds against both models).
///   His own play in the rollouts is `easy`; a rollout he wins is worth 1, a lost one a little
///   for how far his trail got.
///   Its budget is bounded: [`DEFAULT_ROLLOUTS`] rollouts per candidate (twice that against
///   a Marshal he takes for the `easy` one) of at most 400 actions each, and optionally a limit
///   of CPU and wall-clock time per decision ([`FugitiveBot::with_budget`], [`Budget`]).
/// - `medium`: the same search with a shorter plan: [`MEDIUM_ROLLOUTS`] rollouts per
///   candidate, every candidate in every world, always against the `easy` Marshal (he forms no
///   belief about her and never models her exact notepad).
/// - Events (every level but `random`, [`choose`]): F5 Smoke Screen puts his lowest dead card (below
///   the end of the trail) under the most recent face-down hideout, or declines; N6 Change of
///   Plans returns his lowest dead card, or declines; N5 Town Gossip looks at the deck he would
///   draw from and keeps a card he can use or a footprints event on top, else moves it down.
#[derive(Clone, Debug)]
pub struct FugitiveBot {
    level: Level,
    rng: ChaCha8Rng,
    rollouts: usize,
    budget: Budget,
}

/// How long one decision's search may run. The budget is the searching thread's CPU time, so
/// the bot plays as well on a busy machine as on a quiet one; a wall-clock target keeps the
/// player's wait short when the machine is so busy that CPU time comes slowly; a wall-clock
/// cap is never passed. Past the CPU budget or the target, once every candidate has played in
/// one world, the search stops at its next rollout and plays the best move of the worlds it
/// finished; past the cap it stops at its next rollout even in its first world, and a search
/// that finished no world plays the `easy` move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// The most CPU time of the searching thread.
    pub cpu: Option<Duration>,
    /// The wall-clock time after which the search stops once it has one world.
    pub wall: Option<Duration>,
    /// The wall-clock time after which the search stops whatever it has.
    pub cap: Option<Duration>,
}

impl Budget {
    /// Whether a search that began at `wall` is past the cap.
    fn past_cap(&self, wall: Instant) -> bool {
        self.cap.is_some_and(|b| wall.elapsed() >= b)
    }

    /// Whether a search that began at `wall`, its thread having used `cpu`, has spent its CPU
    /// time or is past the wall-clock target.
    fn spent(&self, wall: Instant, cpu: Option<ThreadTime>) -> bool {
        self.wall.is_some_and(|b| wall.elapsed() >= b)
            || self.cpu.zip(cpu).is_some_and(|(b, cpu)| cpu.try_elapsed().is_ok_and(|t| t >= b))
    }
}

/// What the last search did, for the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Searched {
    /// Worlds sampled that agree with his view.
    pub worlds: usize,
    /// Rollouts played.
    pub rollouts: usize,
}

impl FugitiveBot {
    /// A Fugitive of this level; `seed` makes its choices reproducible.
    pub fn new(level: Level, seed: u64) -> FugitiveBot {
        let rollouts = match level {
            Level::Medium => MEDIUM_ROLLOUTS,
            _ => DEFAULT_ROLLOUTS,
        };
        FugitiveBot { level, rng: ChaCha8Rng::seed_from_u64(seed), rollouts, budget: Budget::default() }
    }

    /// The same bot with another number of rollouts per candidate move (`hard` only): the
    /// search plays at most this many times the number of candidates, or [`AGAINST_EASY`]
    /// times that against a Marshal he takes for the `easy` one.
    #[must_use]
    pub fn with_rollouts(self, rollouts: usize) -> FugitiveBot {
        FugitiveBot { rollouts: rollouts.max(1), ..self }
    }

    /// The same bot with a time limit per decision (the searching levels only, see [`Budget`]):
    /// the search plays every candidate in one world, then stops at the first rollout past
    /// the limit and plays the best move of the worlds it finished. The rollout count still
    /// bounds it; without a limit the bot plays the same moves on any machine.
    #[must_use]
    pub fn with_budget(self, budget: Budget) -> FugitiveBot {
        FugitiveBot { budget, ..self }
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
            if matches!(self.level, Level::Hard | Level::Medium) && legal.draws.len() > 1 {
                let draws: Vec<Action> = legal.draws.iter().map(|&deck| Action::Draw { deck }).collect();
                return Some(self.search(view, &draws).0.unwrap_or(easy));
            }
            return Some(easy);
        }
        let moves = moves(view, &legal);
        if moves.is_empty() {
            return None;
        }
        let easy = easy_choice(view, &moves, &mut self.rng);
        match self.level {
            Level::Hard | Level::Medium if moves.len() > 1 => {
                let actions: Vec<Action> = moves.iter().map(|m| m.action).collect();
                Some(self.search(view, &actions).0.unwrap_or(easy))
            }
            _ => Some(easy),
        }
    }

    /// Determinized Monte Carlo over `moves`: every candidate still in the running is played
    /// out in the same sampled worlds (common random numbers). Against a Marshal he takes for
    /// the `easy` one, by sequential halving: the worse half drops out and the rest play in
    /// more worlds, so the budget goes to telling the best moves apart. The rollouts' Marshal is the `hard` one in a share of the worlds
    /// that is his belief that she plays like it (see [`hard_belief`]), the `easy` one in the
    /// others. `None` when no world agrees with his view (it should not happen).
    pub(crate) fn search(&mut self, view: &FugitiveView, moves: &[Action]) -> (Option<Action>, Searched) {
        let started = Instant::now();
        let cpu = self.budget.cpu.and_then(|_| ThreadTime::try_now().ok());
        let mut searched = Searched::default();
        let mut evidence = Vec::new();
        let mut worlds = Vec::new();
        // The `medium` Fugitive takes her for the `easy` Marshal whatever she did: he reads
        // nothing of her past moves.
        let medium = self.level == Level::Medium;
        for _ in 0..MODEL_WORLDS * SAMPLE_TRIES {
            if worlds.len() == MODEL_WORLDS || medium || self.budget.past_cap(started) {
                break;
            }
            let mut llr = 0.0;
            let mut judge = |game: &Game, action| llr += hard_evidence(game, action);
            if let Some(world) = world::sample(view, &mut self.rng, Some(&mut judge)) {
                worlds.push(world);
                evidence.push(llr);
            }
        }
        if worlds.is_empty() && !medium {
            return (None, searched);
        }
        let hard = if medium { 0.0 } else { hard_belief(&evidence) };
        let base: u64 = self.rng.random();
        // Against a Marshal he takes for the `hard` one, every candidate plays in every world
        // (one round); against the `easy` one, whose guesses make each rollout a lottery,
        // sequential halving spends [`AGAINST_EASY`] times the rollouts on the best few. The
        // `medium` Fugitive plays every candidate in every world, his few rollouts each.
        let (budget, rounds) = match (medium, hard < 0.5) {
            (true, _) | (false, false) => (self.rollouts * moves.len(), 1),
            (false, true) => {
                let rounds = (usize::BITS - (moves.len() - 1).leading_zeros()).max(1) as usize;
                (self.rollouts * AGAINST_EASY * moves.len(), rounds)
            }
        };
        let mut alive: Vec<usize> = (0..moves.len()).collect();
        let mut value = vec![0.0; moves.len()];
        let mut done = 0;
        let mut left = budget;
        'rounds: for round in 0..rounds {
            // Every candidate plays in at least FIRST_ROUND worlds before any drops out: a
            // strong Marshal beats most rollouts, and a few worlds cannot tell moves apart.
            let share = (left / (rounds - round) / alive.len()).max(1);
            let more = match round {
                0 => share.max(FIRST_ROUND.min(self.rollouts)),
                _ if left < alive.len() => break,
                _ => share,
            };
            left = left.saturating_sub(more * alive.len());
            let end = done + more;
            while done < end {
                let w = done;
                while worlds.len() <= w {
                    let world = (0..SAMPLE_TRIES).find_map(|_| world::sample(view, &mut self.rng, None));
                    match world {
                        Some(world) => worlds.push(world),
                        None => break 'rounds,
                    }
                }
                // The `hard` Marshal in a `hard` share of the worlds, spread evenly.
                let level =
                    if ((w as f64 + 0.5) * GOLDEN).fract() < hard { Level::Hard } else { Level::Easy };
                let seed = base ^ (w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                // A world counts once every candidate still running has played in it (common
                // random numbers): past the budget, a world begun is dropped.
                let mut played = Vec::with_capacity(alive.len());
                for &m in &alive {
                    if self.budget.past_cap(started) || (done > 0 && self.budget.spent(started, cpu)) {
                        break 'rounds;
                    }
                    let mut game = worlds[w].clone();
                    if game.apply(Role::Fugitive, moves[m]).is_err() {
                        return (None, searched);
                    }
                    played.push((m, rollout(&mut game, level, seed)));
                    searched.rollouts += 1;
                }
                for (m, worth) in played {
                    value[m] += worth;
                }
                done = w + 1;
            }
            if alive.len() > 1 {
                alive.sort_by(|a, b| value[*b].total_cmp(&value[*a]).then(a.cmp(b)));
                alive.truncate(alive.len().div_ceil(2));
            }
        }
        searched.worlds = worlds.len();
        if done == 0 {
            return (None, searched);
        }
        let best = alive.iter().copied().max_by(|a, b| value[*a].total_cmp(&value[*b]).then(b.cmp(a)));
        (best.map(|m| moves[m]), searched)
    }
}

/// How many times the rollouts the search plays against a Marshal he takes for the `easy` one.
/// Her guesses are drawn at random, so each rollout tells little; against her the search cost
/// about half as much per decision as against the `hard` one (whose guesses are solved
/// exactly on her next turn). Over games 0-599 of `fugitive-sim --seed 1` against the `easy`
/// Marshal, twice the rollouts won 495 against 475 (one and a half times: 244 against 235 of
/// the first 300).
const AGAINST_EASY: usize = 2;

/// The fewest worlds every candidate plays in before the first ones drop out.
const FIRST_ROUND: usize = 16;

/// How many draws of the unseen cards a world may take before the search gives up on it.
const SAMPLE_TRIES: usize = 8;

/// The golden ratio's fractional part: spreads the `hard` worlds evenly over any prefix.
const GOLDEN: f64 = 0.618_033_988_749_895;

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

/// Plays `game` out, `easy` Fugitive against a `marshal` of that level. Worth 1 if the Fugitive
/// wins; a loss is worth a little for how far his trail got (a tie-break among moves that
/// all lose against a strong Marshal).
///
/// The `hard` Marshal guesses on her next [`EXACT_TURNS`] turns as the real one does, from the
/// exact notepad ([`Deduction::trails_within_worlds`]): those guesses decide most of what the
/// move he is trying is worth. Her draws, and her turns after those, read the trail count
/// ([`Deduction::trails_only`]), about a hundred times cheaper than the exact one.
fn rollout(game: &mut Game, level: Level, seed: u64) -> f64 {
    let exact_until = game.marshal_turns() + EXACT_TURNS;
    let mut exact = MarshalBot::new(level, seed);
    let mut fast = MarshalBot::new(level, seed).fast();
    let rng = &mut ChaCha8Rng::seed_from_u64(seed ^ 0xf0e1_d2c3);
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
            Role::Marshal => {
                let marshal = match (level, game.phase()) {
                    (Level::Hard, Phase::Draw { .. }) => &mut fast,
                    (Level::Hard, _) if game.marshal_turns() <= exact_until => &mut exact,
                    _ => &mut fast,
                };
                match marshal.act(&MarshalView::of(game)) {
                    Some(action) => action,
                    None => return 0.5,
                }
            }
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
    use fugitive_core::{EventVariant, RuleOptions, Setup};

    /// The candidates `act` searches over in this view, if it searches.
    fn candidates(view: &FugitiveView) -> Vec<Action> {
        let legal = view.legal_actions();
        if !legal.choices.is_empty() {
            Vec::new()
        } else if !legal.draws.is_empty() {
            legal.draws.iter().map(|&deck| Action::Draw { deck }).collect()
        } else {
            moves(view, &legal).iter().map(|m| m.action).collect()
        }
    }

    /// With every event variant (EVENTS.md), the search plays its rollouts with the event deck
    /// it infers: at every decision with a choice of moves it finds worlds and plays them out
    /// (it never falls back to the `easy` move), and every move it makes is legal.
    #[test]
    fn with_events_it_searches_and_plays_legal_moves() {
        for variant in EventVariant::ALL {
            let mut searches = 0;
            for seed in 0..3u64 {
                let rules =
                    RuleOptions { events: variant, pass_bonus_draw: seed == 1, ..RuleOptions::default() };
                let mut game = Game::new(Setup::new(seed).with_rules(rules));
                let mut fugitive = FugitiveBot::new(Level::Hard, seed).with_rollouts(2);
                let mut marshal = MarshalBot::new(if seed == 0 { Level::Easy } else { Level::Hard }, seed);
                while let Some(role) = game.to_move() {
                    let action = match role {
                        Role::Fugitive => {
                            let view = FugitiveView::of(&game);
                            let candidates = candidates(&view);
                            if candidates.len() > 1 {
                                let (best, searched) = fugitive.clone().search(&view, &candidates);
                                assert!(
                                    best.is_some() && searched.rollouts >= candidates.len(),
                                    "{variant:?}"
                                );
                                searches += 1;
                            }
                            fugitive.act(&view).expect("his move")
                        }
                        Role::Marshal => marshal.act(&MarshalView::of(&game)).expect("her move"),
                    };
                    if let Err(e) = game.apply(role, action) {
                        panic!("{variant:?} seed {seed}: {role:?} {action:?} refused: {e}");
                    }
                }
            }
            assert!(searches >= 5, "{variant:?}: {searches} searches");
        }
    }

    /// The CPU budget and the wall-clock target: every candidate plays in one world, then the
    /// search stops at the first rollout past them; with none at all it plays exactly one
    /// world, and answers.
    #[test]
    fn a_spent_budget_or_target_stops_the_search_after_one_world() {
        let game = Game::new(Setup::new(5u64));
        let view = FugitiveView::of(&game);
        let moves = candidates(&view);
        let spent = [
            Budget { cpu: Some(Duration::ZERO), ..Budget::default() },
            Budget { wall: Some(Duration::ZERO), ..Budget::default() },
        ];
        for (level, budget) in [Level::Medium, Level::Hard].into_iter().flat_map(|l| spent.map(|b| (l, b))) {
            let mut bot = FugitiveBot::new(level, 5).with_budget(budget);
            let (best, searched) = bot.search(&view, &moves);
            assert!(best.is_some_and(|m| moves.contains(&m)), "{level:?} {budget:?}");
            assert_eq!(searched.rollouts, moves.len(), "{level:?} {budget:?}");
            // A budget it cannot spend leaves the rollout count to bound it.
            let hour = Some(Duration::from_secs(3600));
            let budget = Budget { cpu: hour, wall: hour, cap: hour };
            let (_, searched) = FugitiveBot::new(level, 5).with_budget(budget).search(&view, &moves);
            assert!(searched.rollouts > moves.len(), "{level:?}");
        }
    }

    /// The `medium` Fugitive plays [`MEDIUM_ROLLOUTS`] in every candidate, no more: he reads
    /// nothing of her past and never halves.
    #[test]
    fn the_medium_fugitive_plays_his_rollouts_in_every_candidate() {
        let game = Game::new(Setup::new(5u64));
        let view = FugitiveView::of(&game);
        let moves = candidates(&view);
        let (best, searched) = FugitiveBot::new(Level::Medium, 5).search(&view, &moves);
        assert!(best.is_some_and(|m| moves.contains(&m)));
        assert_eq!(searched.rollouts, MEDIUM_ROLLOUTS * moves.len());
    }

    /// The wall-clock cap: past it, the search stops at once, even in its first world, and the
    /// bot plays the `easy` move: with no time at all it plays no rollout and still answers.
    #[test]
    fn a_spent_wall_clock_stops_the_search_at_once_and_the_bot_still_answers() {
        let mut game = Game::new(Setup::new(5u64));
        let budget = Budget { cap: Some(Duration::ZERO), ..Budget::default() };
        let mut bot = FugitiveBot::new(Level::Hard, 5).with_budget(budget);
        let view = FugitiveView::of(&game);
        let moves = candidates(&view);
        assert!(moves.len() > 2);
        let (best, searched) = bot.search(&view, &moves);
        assert_eq!((best, searched.rollouts), (None, 0));
        let action = bot.act(&view).unwrap();
        let easy = FugitiveBot::new(Level::Easy, 5).act(&view).unwrap();
        assert_eq!(action, easy);
        game.apply(Role::Fugitive, action).unwrap();
        // Without a limit, the rollout count bounds it: at most that many per candidate, or
        // twice that against the `easy` Marshal.
        for rollouts in [1, 8, 32] {
            let mut bot = FugitiveBot::new(Level::Hard, 5).with_rollouts(rollouts);
            let (_, searched) = bot.search(&view, &moves);
            // Before the Marshal has moved he takes her for the `easy` one.
            let most = rollouts * AGAINST_EASY * moves.len();
            assert!(searched.rollouts >= moves.len() && searched.rollouts <= most);
        }
    }
}
