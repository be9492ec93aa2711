//! The server's integration tests, in one test binary: each module was a test binary of its
//! own, and each of those linked the whole server again (issue 24: a clean clone's CI spent most
//! of its test build linking them). Run one module with a filter on its name:
//! `cargo test -p fugitive-server --test it faults::`. The `#[ignore]`d tests keep their names'
//! prefixes (`postgres_`, `tmpfs_`), which `.ci/run` filters on.
//!
//! Two tests stay in binaries of their own, as each changes something process-wide that any
//! other test would disturb or be disturbed by: `tests/drops.rs` counts the process's sockets in
//! the metrics recorder, `tests/open_files.rs` lowers the process's open-files limit. A test here
//! that compares a count of the metrics runs its server as a child process (`common::child`):
//! the recorder of this process counts every module's servers at once.

#[path = "../common/mod.rs"]
mod common;
mod translations;

mod analysis;
mod computer;
mod events;
mod faults;
mod frames;
mod games;
mod hardening;
mod layers;
mod lobby;
mod nodes;
mod operations;
mod page;
mod persistence;
mod profiles;
mod push;
mod puzzles;
mod ratings;
mod robustness;
mod rooms;
mod startup;
mod table;
mod tutorial;
mod web_card_texts;
mod web_refusal_texts;
