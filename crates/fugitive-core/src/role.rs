//! The two roles, the viewers, and a container indexed by role.

use std::fmt;
use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

/// A player's role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Lays the trail of hideouts towards 42.
    Fugitive,
    /// Guesses numbers to uncover the hideouts.
    Marshal,
}

impl Role {
    /// Both roles, Fugitive first.
    pub const ALL: [Role; 2] = [Role::Fugitive, Role::Marshal];

    /// The other role.
    pub const fn opponent(self) -> Role {
        match self {
            Role::Fugitive => Role::Marshal,
            Role::Marshal => Role::Fugitive,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Fugitive => "Fugitive",
            Role::Marshal => "Marshal",
        })
    }
}

/// Who a view is for (R19–R21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// R19.
    Fugitive,
    /// R20.
    Marshal,
    /// R21: public information only.
    Spectator,
}

impl Viewer {
    /// All three viewers.
    pub const ALL: [Viewer; 3] = [Viewer::Fugitive, Viewer::Marshal, Viewer::Spectator];

    /// The role this viewer plays, if any.
    pub const fn role(self) -> Option<Role> {
        match self {
            Viewer::Fugitive => Some(Role::Fugitive),
            Viewer::Marshal => Some(Role::Marshal),
            Viewer::Spectator => None,
        }
    }

    /// Whether this viewer is the player in `role`.
    pub fn is(self, role: Role) -> bool {
        self.role() == Some(role)
    }
}

impl From<Role> for Viewer {
    fn from(role: Role) -> Viewer {
        match role {
            Role::Fugitive => Viewer::Fugitive,
            Role::Marshal => Viewer::Marshal,
        }
    }
}

/// One `T` per role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByRole<T> {
    /// The Fugitive's.
    pub fugitive: T,
    /// The Marshal's.
    pub marshal: T,
}

impl<T> ByRole<T> {
    /// Builds both entries from a function of the role.
    pub fn new_with(mut f: impl FnMut(Role) -> T) -> ByRole<T> {
        ByRole { fugitive: f(Role::Fugitive), marshal: f(Role::Marshal) }
    }

    /// Maps both entries.
    pub fn map<U>(self, mut f: impl FnMut(Role, T) -> U) -> ByRole<U> {
        ByRole { fugitive: f(Role::Fugitive, self.fugitive), marshal: f(Role::Marshal, self.marshal) }
    }
}

impl<T> Index<Role> for ByRole<T> {
    type Output = T;

    fn index(&self, role: Role) -> &T {
        match role {
            Role::Fugitive => &self.fugitive,
            Role::Marshal => &self.marshal,
        }
    }
}

impl<T> IndexMut<Role> for ByRole<T> {
    fn index_mut(&mut self, role: Role) -> &mut T {
        match role {
            Role::Fugitive => &mut self.fugitive,
            Role::Marshal => &mut self.marshal,
        }
    }
}
