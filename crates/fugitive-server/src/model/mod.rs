//! Pure types of the place around the tables: no tokio, no sqlx, no axum.

pub mod profile;
pub mod rating;
pub mod seek;
