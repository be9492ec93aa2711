//! The integration tests of `fugitive-ai`, in one test binary (issue 24): each module was a
//! binary of its own. In one binary the long searches run beside the short tests on every test
//! thread, where one binary after another left a core idle while each binary's last test ran.
//! Run one module with a filter on its name: `cargo test -p fugitive-ai --test it deduction::`.

#[path = "../common/mod.rs"]
mod common;

mod analysis;
mod deduction;
mod events;
mod levels;
mod pass_bonus;
mod puzzles;
mod worlds;
