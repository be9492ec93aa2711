//! The records of the server, with no tokio, sqlx or axum in them: a seat and its secrets
//! (`seat`), the table's rules (names, chat, series: `table`), a room's options (`options`) and
//! a finished game step by step (`replay`). Everything above builds on these.

pub mod options;
pub mod replay;
pub mod seat;
pub mod table;
