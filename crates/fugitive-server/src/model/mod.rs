//! The records of the server, with no tokio, sqlx or axum in them: a seat and its secrets
//! (`seat`), the table's rules (names, chat, series: `table`), a room's options (`options`), a
//! finished game step by step (`replay`), and the place around the tables: a profile
//! (`profile`), its ratings by role (`rating`), a seek in the lobby (`seek`), what a Web Push
//! notification tells (`push`). Everything above
//! builds on these.

pub mod options;
pub mod profile;
pub mod push;
pub mod puzzle;
pub mod rating;
pub mod replay;
pub mod seat;
pub mod seek;
pub mod table;
