//! The integration tests of `fugitive-core`, in one test binary (issue 24): each module was a
//! binary of its own. Run one module with a filter on its name:
//! `cargo test -p fugitive-core --test it rules::`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../support/mod.rs"]
mod support;

mod candidates;
mod events;
mod indistinguishability;
mod properties;
mod rules;
