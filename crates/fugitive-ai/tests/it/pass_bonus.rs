//! R11a: with `pass_bonus_draw`, a pass asks the Fugitive whether he draws the bonus card (a
//! pending decision, answered like an event's). Every Fugitive bot answers it with a legal
//! choice, and the game goes on to its end.

use fugitive_ai::{FugitiveBot, FugitiveView, Level, MarshalBot, MarshalView};
use fugitive_core::{Action, Decision, Game, Phase, Role, RuleOptions, Seed, Setup};

#[test]
fn every_fugitive_bot_answers_the_pass_bonus() {
    let rules = RuleOptions { pass_bonus_draw: true, ..RuleOptions::default() };
    for level in Level::ALL {
        let mut asked = 0;
        for seed in 0..30 {
            let mut game = Game::new(Setup::new(Seed::from(seed)).with_rules(rules));
            let mut fugitive = FugitiveBot::new(level, seed).with_rollouts(2);
            let mut marshal = MarshalBot::new(Level::Easy, seed);
            while let Some(role) = game.to_move() {
                assert!(game.actions().len() < 2_000, "no end");
                let action = match role {
                    Role::Fugitive => fugitive.act(&FugitiveView::of(&game)),
                    Role::Marshal => marshal.act(&MarshalView::of(&game)),
                };
                let action =
                    action.unwrap_or_else(|| panic!("the {role} bot has no move in {:?}", game.phase()));
                if let Phase::Pending { decision: Decision::PassBonus, card, .. } = game.phase() {
                    assert_eq!(card, None);
                    assert!(matches!(action, Action::Choose { .. }), "{level}: {action:?}");
                    asked += 1;
                }
                if let Err(error) = game.apply(role, action) {
                    panic!("the {level} {role} bot's {action:?} was refused in {:?}: {error}", game.phase());
                }
            }
        }
        assert!(asked > 0, "the {level} Fugitive never passed");
    }
}
