//! The lobby (issue 25): open seeks pushed live to every lobby socket, taking a seek (once), and
//! quick pairing in pools that widen the accepted rating gap as players wait. Seeks live in the
//! database (`db/lobby.rs`); what is live on this node (the sockets, who waits in a pool, the
//! seat tokens of the seeks made here) lives in [`Lobby`].
//!
//! Every change is one role-neutral JSON text on a `broadcast` channel that each lobby socket
//! forwards (`socket_lobby.rs`); a socket that lags behind gets a fresh list instead.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fugitive_core::{Role, RuleOptions};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use crate::db::lobby::{self as db_lobby, StoredSeek};
use crate::db::profiles::{self, OwnProfile};
use crate::db::ratings;
use crate::db::{Db, DbError, now_ms};
use crate::model::options::Computer;
use crate::model::profile as model;
use crate::model::push::{Kind, Notice};
use crate::model::rating::Rating;
use crate::model::seat::{Seat, hash_secret, new_secret};
use crate::model::seek::{self, MAX_SEEKS, Pool, SeekRequest, Waiter, Wanted};
use crate::rooms::Rooms;

/// How many lobby events a slow socket may fall behind before it gets the whole list again.
const EVENTS: usize = 1024;

/// A refusal of a lobby request, with its stable code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LobbyError {
    /// Seeking and pairing need a profile (`POST /api/profile`).
    #[error("seeking and pairing need a profile: open the landing page once")]
    NoProfile,
    /// The seek is not what a seek may be.
    #[error(
        "a seek has a role (fugitive, marshal or random), rules, a turn clock of 1 s to 7 days, and rated"
    )]
    BadSeek,
    /// The profile has its 3 open seeks.
    #[error("a profile may have at most 3 open seeks")]
    TooManySeeks,
    /// The seek was taken, cancelled or has expired.
    #[error("this seek is gone: taken, cancelled or expired")]
    SeekGone,
    /// A player cannot take his own seek.
    #[error("this is your own seek")]
    OwnSeek,
    /// No such pool.
    #[error("no such pool")]
    NoPool,
    /// Too many seeks and pool joins from this address.
    #[error("too many seeks from this address; try again in a minute")]
    RateLimited,
    /// The database failed.
    #[error("the server could not do this now; try again")]
    Unavailable,
}

impl LobbyError {
    /// The code on the wire.
    pub fn code(self) -> &'static str {
        match self {
            LobbyError::NoProfile => "no_profile",
            LobbyError::BadSeek => "bad_seek",
            LobbyError::TooManySeeks => "too_many_seeks",
            LobbyError::SeekGone => "seek_gone",
            LobbyError::OwnSeek => "own_seek",
            LobbyError::NoPool => "no_pool",
            LobbyError::RateLimited => "rate_limited",
            LobbyError::Unavailable => "unavailable",
        }
    }
}

impl From<DbError> for LobbyError {
    fn from(error: DbError) -> LobbyError {
        tracing::error!(%error, "lobby storage failed");
        LobbyError::Unavailable
    }
}

/// A lobby socket's player: the profile and the secret its cookie holds, and where to tell it.
#[derive(Clone, Debug)]
pub struct Player {
    /// The socket's id on this node.
    pub socket: u64,
    /// The profile.
    pub profile: OwnProfile,
    /// Its secret (to seal the seats given to it).
    pub secret: String,
    /// The socket's outbound queue (JSON texts).
    pub tell: mpsc::Sender<String>,
}

/// The lobby of this node; cheap to clone.
#[derive(Clone, Debug)]
pub struct Lobby {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    rooms: Rooms,
    events: broadcast::Sender<Arc<str>>,
    /// A std `Mutex`: held only for map reads and writes, never across an `.await`.
    live: Mutex<Live>,
    /// The list every lobby page gets first, made once per change (`fugitive-load --mode lobby`:
    /// made for each page, it cost two queries per seek, and 5,000 pages over 1,000 seeks took
    /// minutes to open).
    list: Mutex<List>,
}

/// The list as last made, and the number of changes so far: a list made while a change came
/// is not kept.
#[derive(Debug, Default)]
struct List {
    changes: u64,
    text: Option<Arc<str>>,
}

#[derive(Debug, Default)]
struct Live {
    /// Lobby sockets per profile on this node.
    sockets: HashMap<String, usize>,
    /// The seeks made on this node: their seeker's token, and who to tell when it is taken.
    seekers: HashMap<String, (String, mpsc::Sender<String>)>,
    /// Who waits in each pool, with the player to tell.
    pools: HashMap<&'static str, Vec<(Waiter<u64>, Player)>>,
}

impl Lobby {
    /// The lobby over `rooms`.
    pub fn new(rooms: Rooms) -> Lobby {
        let (events, _) = broadcast::channel(EVENTS);
        Lobby { inner: Arc::new(Inner { rooms, events, live: Mutex::default(), list: Mutex::default() }) }
    }

    fn db(&self) -> &Db {
        self.inner.rooms.db()
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Live> {
        self.inner.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The events every lobby socket forwards.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.inner.events.subscribe()
    }

    /// The list is no longer what it was: made again when next asked for.
    fn changed(&self) {
        let mut list = self.inner.list.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        list.changes += 1;
        list.text = None;
    }

    /// The first message of a lobby page of `profile` (or of nobody): the list ([`Lobby::snapshot`])
    /// with `"profile"`, made once per change and shared by every page.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn first_list(&self, profile: Option<&str>) -> Result<String, LobbyError> {
        let (kept, changes) = {
            let list = self.inner.list.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            (list.text.clone(), list.changes)
        };
        let text = match kept {
            Some(text) => text,
            None => {
                let text: Arc<str> = self.snapshot().await?.to_string().into();
                let mut list = self.inner.list.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if list.changes == changes {
                    list.text = Some(text.clone());
                }
                text
            }
        };
        // `{"pools":…` → `{"profile":…,"pools":…`: the shared text is not parsed again per page.
        let profile = serde_json::to_string(&profile).unwrap_or_else(|_| "null".into());
        Ok(format!("{{\"profile\":{profile},{}", text.strip_prefix('{').unwrap_or(&text)))
    }

    /// Tells every lobby socket of this node, and (PostgreSQL) the other nodes, which tell theirs.
    fn announce(&self, event: Value) {
        self.changed();
        let text = event.to_string();
        let _ = self.inner.events.send(text.as_str().into());
        self.notify(format!("l {} {} {text}", self.db().node(), now_ms()));
    }

    /// Sends a lobby notice line to the other nodes (`db::CHANNEL`; nothing on SQLite). Spawned:
    /// a lobby event never waits for the database a second time.
    fn notify(&self, line: String) {
        if !self.db().is_postgres() {
            return;
        }
        let db = self.db().clone();
        tokio::spawn(async move {
            if let Err(error) = db.notify_line(&line).await {
                tracing::warn!(%error, "could not tell the other nodes of a lobby change");
            }
        });
    }

    /// A lobby notice of another node (`cluster.rs` hears it): `l NODE MS EVENT` (a change every
    /// lobby socket is told of) or `t NODE MS SEEK ROOM ROLE` (a seek made here was taken there:
    /// its seeker gets his seat).
    pub fn hear(&self, kind: &str, rest: &str) {
        match kind {
            "l" => {
                // A seek of this node removed there keeps its seeker's token here: the `t`
                // notice that it was taken may come after.
                self.changed();
                let _ = self.inner.events.send(rest.into());
            }
            "t" => {
                let fields: Vec<&str> = rest.split(' ').collect();
                let [seek, room, role] = fields[..] else { return };
                let Some((token, tell)) = self.live().seekers.remove(seek) else { return };
                if tell.try_send(paired(room, role, &token)).is_ok() {
                    // Told: the taker's node noted the pairing for a seeker it could not tell.
                    let (db, room) = (self.db().clone(), room.to_string());
                    tokio::spawn(async move {
                        if let Err(error) = db_lobby::told_pairing(&db, &room).await {
                            tracing::warn!(%error, "could not note that a seeker was told of his game");
                        }
                    });
                }
            }
            _ => {}
        }
    }

    fn removed(&self, ids: &[String]) {
        for id in ids {
            self.announce(json!({ "type": "seek_removed", "id": id }));
        }
    }

    /// The list every socket gets first: `{"type": "seeks", "seeks": […], "pools": […]}`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn snapshot(&self) -> Result<Value, LobbyError> {
        let mut seeks = Vec::new();
        for seek in db_lobby::open(self.db(), now_ms()).await? {
            seeks.push(self.describe(&seek).await?);
        }
        let pools: Vec<Value> = seek::pools()
            .iter()
            .map(
                |pool| json!({ "id": pool.id, "rules": pool.rules, "turn_clock_secs": pool.turn_clock_secs }),
            )
            .collect();
        Ok(json!({ "type": "seeks", "seeks": seeks, "pools": pools }))
    }

    /// A seek as every lobby page shows it: with its seeker's name and rating in the role he
    /// plays (none for a random role).
    async fn describe(&self, seek: &StoredSeek) -> Result<Value, LobbyError> {
        let profile = profiles::public(self.db(), &seek.profile).await?;
        let rating = match seek.role.as_str() {
            "fugitive" | "marshal" => {
                let all = ratings::of_profile(self.db(), &seek.profile).await?;
                let role = if seek.role == "fugitive" { Role::Fugitive } else { Role::Marshal };
                let rating =
                    all.into_iter().find(|(r, _)| *r == role).map_or_else(Rating::default, |(_, r)| r);
                json!({ "rating": rating.rating.round(), "provisional": rating.provisional() })
            }
            _ => Value::Null,
        };
        let rules: Value = serde_json::from_str(&seek.rules).unwrap_or(Value::Null);
        Ok(json!({
            "id": seek.id,
            "profile": seek.profile,
            "name": profile.and_then(|p| p.name),
            "role": seek.role,
            "rules": rules,
            "turn_clock_secs": seek.turn_clock_secs,
            "rated": seek.rated,
            "correspondence": seek.expires_at.is_some(),
            "rating": rating,
        }))
    }

    /// A lobby socket of `profile` opened.
    pub fn joined(&self, profile: &str) {
        *self.live().sockets.entry(profile.to_string()).or_default() += 1;
    }

    /// A lobby socket closed: it leaves the pools, and with its profile's last socket on this
    /// node its real-time seeks die.
    pub async fn left(&self, player: Option<&Player>) {
        let Some(player) = player else {
            return;
        };
        let last = {
            let mut live = self.live();
            for waiting in live.pools.values_mut() {
                waiting.retain(|(w, _)| w.key != player.socket);
            }
            let count = live.sockets.entry(player.profile.id.clone()).or_default();
            *count = count.saturating_sub(1);
            let last = *count == 0;
            if last {
                live.sockets.remove(&player.profile.id);
            }
            last
        };
        if last {
            match db_lobby::drop_realtime(self.db(), &player.profile.id, &self.db().node().to_string()).await
            {
                Ok(ids) => {
                    self.forget(&ids);
                    self.removed(&ids);
                }
                Err(error) => tracing::warn!(%error, "could not drop the seeks of a closed lobby socket"),
            }
        }
    }

    fn forget(&self, ids: &[String]) {
        let mut live = self.live();
        for id in ids {
            live.seekers.remove(id);
        }
    }

    /// Opens a seek: its id.
    ///
    /// # Errors
    /// [`LobbyError`]: `bad_seek`, `too_many_seeks`, `unavailable`.
    pub async fn seek(&self, player: &Player, request: &SeekRequest) -> Result<String, LobbyError> {
        seek::check(request).map_err(|_| LobbyError::BadSeek)?;
        let id = Uuid::new_v4().to_string();
        let room = Uuid::new_v4().to_string();
        let token = new_secret();
        let sealed = seal_token(&player.secret, &room, Seat::Host, &token);
        let now = now_ms();
        let stored = StoredSeek {
            id: id.clone(),
            profile: player.profile.id.clone(),
            role: request.role.name().to_string(),
            rules: serde_json::to_string(&request.rules).unwrap_or_default(),
            turn_clock_secs: request.turn_clock_secs as i64,
            rated: request.rated,
            room,
            token_hash: hash_secret(&token),
            sealed_token: sealed,
            node: self.db().node().to_string(),
            created_at: now,
            expires_at: seek::correspondence(request.turn_clock_secs)
                .then_some(now + seek::CORRESPONDENCE_SEEK_MS),
        };
        if !db_lobby::insert(self.db(), &stored, MAX_SEEKS as i64).await? {
            return Err(LobbyError::TooManySeeks);
        }
        self.live().seekers.insert(id.clone(), (token, player.tell.clone()));
        self.announce(json!({ "type": "seek_added", "seek": self.describe(&stored).await? }));
        Ok(id)
    }

    /// Cancels one of the player's seeks.
    ///
    /// # Errors
    /// `seek_gone` when it is not (or no longer) one of the player's open seeks.
    pub async fn cancel(&self, player: &Player, id: &str) -> Result<(), LobbyError> {
        if !db_lobby::cancel(self.db(), id, &player.profile.id).await? {
            return Err(LobbyError::SeekGone);
        }
        let ids = [id.to_string()];
        self.forget(&ids);
        self.removed(&ids);
        Ok(())
    }

    /// Takes a seek: both players get their seat in a new room (`paired`), the seek disappears
    /// everywhere. Two takers at once get one game and one `seek_gone`.
    ///
    /// # Errors
    /// `seek_gone`, `own_seek`, `unavailable`.
    pub async fn accept(&self, player: &Player, id: &str) -> Result<(), LobbyError> {
        let open = db_lobby::open(self.db(), now_ms()).await?;
        match open.iter().find(|s| s.id == id) {
            None => return Err(LobbyError::SeekGone),
            Some(seek) if seek.profile == player.profile.id => return Err(LobbyError::OwnSeek),
            Some(_) => {}
        }
        let seek = db_lobby::take(self.db(), id, now_ms()).await?.ok_or(LobbyError::SeekGone)?;
        self.removed(std::slice::from_ref(&seek.id));
        let seeker = self.live().seekers.remove(&seek.id);
        let wanted = Wanted::from_name(&seek.role).unwrap_or(Wanted::Random);
        let seeker_role = wanted.resolve(rand::random());
        let rules: RuleOptions = serde_json::from_str(&seek.rules).unwrap_or_default();
        let room = Uuid::parse_str(&seek.room).map_err(|_| LobbyError::Unavailable)?;
        // The seeker's token: known here when the seek was made on this node.
        let token = seeker.as_ref().map(|(token, _)| token.clone());
        let host = Seated::Sealed {
            profile: seek.profile.clone(),
            sealed: seek.sealed_token.clone(),
            hash: seek.token_hash.clone(),
            token,
        };
        let role = role_name(seeker_role);
        if seeker.is_none() {
            // The seek was made on another node: that node tells its seeker, if it is up and he
            // is there; until then he is told when he next opens the lobby (noted first: that
            // node forgets the note once it told him).
            db_lobby::note_pairing(self.db(), &seek.profile, &seek.room, role, now_ms()).await?;
            self.notify(format!("t {} {} {} {} {role}", self.db().node(), now_ms(), seek.id, seek.room));
        }
        let local = seeker.is_some();
        let tell_host = seeker.map(|(_, tell)| tell);
        if tell_host.is_none() || seek::correspondence(seek.turn_clock_secs as u64) {
            // Not on a lobby page of this node (or by correspondence, likely away): told by Web Push.
            self.inner.rooms.push().to_profile(&seek.profile, Notice { kind: Kind::Paired, room });
        }
        let made = NewGame {
            room,
            host_role: seeker_role,
            rules,
            turn_clock_secs: seek.turn_clock_secs as u64,
            rated: seek.rated,
        };
        let profile = seek.profile.clone();
        if !self.start(made, host, tell_host, player).await? && local {
            // His lobby page closed: he is told when he next opens one.
            db_lobby::note_pairing(self.db(), &profile, &seek.room, role, now_ms()).await?;
        }
        Ok(())
    }

    /// The games made from `player`'s seeks while he could not be told (the node that kept
    /// his seek was down, his lobby page was closed): a `paired` message each, once.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn missed_pairings(&self, player: &Player) -> Result<Vec<String>, LobbyError> {
        let missed = db_lobby::take_pairings(self.db(), &player.profile.id).await?;
        if missed.is_empty() {
            return Ok(Vec::new());
        }
        let seats = profiles::seats(self.db(), &player.profile.id).await?;
        Ok(missed
            .iter()
            .filter_map(|(room, role)| {
                let seat = seats.iter().find(|s| &s.room == room && s.seat == 0)?;
                let purpose = model::seat_purpose(room, Seat::Host.index());
                let token = model::open(&player.secret, &purpose, &seat.sealed_token)?;
                use base64::Engine;
                Some(paired(room, role, &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(token)))
            })
            .collect())
    }

    /// Makes the room of a pairing, seats both, and tells both (whoever is on this node):
    /// whether the host was told.
    async fn start(
        &self,
        game: NewGame,
        host: Seated,
        tell_host: Option<mpsc::Sender<String>>,
        guest: &Player,
    ) -> Result<bool, LobbyError> {
        let rooms = &self.inner.rooms;
        // The seeker's token was chosen with his seek (only its hash and his sealed copy are
        // stored); a player of a pool gets a new one.
        let (host_hash, host_token) = match &host {
            Seated::Sealed { token, hash, .. } => (hash.clone(), token.clone()),
            Seated::Live(_) => {
                let token = new_secret();
                (hash_secret(&token), Some(token))
            }
        };
        let invite = rooms
            .create_as(
                game.room,
                host_hash,
                game.host_role,
                game.rules,
                Some(game.turn_clock_secs),
                Computer::default(),
            )
            .await?;
        if !game.rated {
            ratings::mark_casual(self.db(), &game.room.to_string()).await?;
        }
        let claimed = rooms
            .get(game.room)
            .await
            .map_err(|_| LobbyError::Unavailable)?
            .claim(invite)
            .await
            .map_err(|_| LobbyError::Unavailable)?
            .map_err(|_| LobbyError::Unavailable)?;
        let room = game.room.to_string();
        let now = now_ms();
        match &host {
            Seated::Sealed { profile, sealed, .. } => {
                profiles::attach_seat(self.db(), &room, 0, profile, sealed, now).await?;
            }
            Seated::Live(player) => {
                let token = host_token.as_deref().unwrap_or_default();
                let sealed = seal_token(&player.secret, &room, Seat::Host, token);
                profiles::attach_seat(self.db(), &room, 0, &player.profile.id, &sealed, now).await?;
            }
        }
        let sealed = seal_token(&guest.secret, &room, Seat::Guest, &claimed.token);
        profiles::attach_seat(self.db(), &room, 1, &guest.profile.id, &sealed, now).await?;
        let told = match (tell_host, host_token) {
            (Some(tell), Some(token)) => {
                tell.try_send(paired(&room, role_name(game.host_role), &token)).is_ok()
            }
            _ => false,
        };
        let _ = guest.tell.try_send(paired(&room, role_name(claimed.role), &claimed.token));
        tracing::info!(%room, rated = game.rated, "lobby pairing made a room");
        Ok(told)
    }

    /// Joins a quick-pairing pool; a pair is made at once if a compatible player waits.
    ///
    /// # Errors
    /// `no_pool`, `unavailable`.
    pub async fn join_pool(&self, player: &Player, id: &str) -> Result<(), LobbyError> {
        let pool = seek::pool(id).ok_or(LobbyError::NoPool)?;
        let mut both = [Rating::default().rating; 2];
        for (role, rating) in ratings::of_profile(self.db(), &player.profile.id).await? {
            both[usize::from(role == Role::Marshal)] = rating.rating;
        }
        let waiter =
            Waiter { key: player.socket, profile: player.profile.id.clone(), ratings: both, since: now_ms() };
        {
            let mut live = self.live();
            let waiting = live.pools.entry(pool.id).or_default();
            waiting.retain(|(w, _)| w.key != player.socket);
            waiting.push((waiter, player.clone()));
        }
        self.pair_pool(pool).await
    }

    /// Leaves every pool.
    pub fn leave_pools(&self, socket: u64) {
        for waiting in self.live().pools.values_mut() {
            waiting.retain(|(w, _)| w.key != socket);
        }
    }

    /// Makes every pair a pool can make now.
    async fn pair_pool(&self, pool: Pool) -> Result<(), LobbyError> {
        loop {
            let pair = {
                let mut live = self.live();
                let waiting = live.pools.entry(pool.id).or_default();
                let keys: Vec<Waiter<u64>> = waiting.iter().map(|(w, _)| w.clone()).collect();
                match seek::pair(&keys, now_ms()) {
                    Some((i, j, role)) => {
                        let second = waiting.remove(j).1;
                        let first = waiting.remove(i).1;
                        Some((first, second, role))
                    }
                    None => None,
                }
            };
            let Some((first, second, role)) = pair else {
                return Ok(());
            };
            let game = NewGame {
                room: Uuid::new_v4(),
                host_role: role,
                rules: pool.rules,
                turn_clock_secs: pool.turn_clock_secs,
                rated: true,
            };
            let tell = first.tell.clone();
            // A waiter of a pool is on a socket of this node: not told, he left.
            self.start(game, Seated::Live(first), Some(tell), &second).await?;
        }
    }

    /// Pairs the pools again as their waiters' accepted gaps widen every second, and every minute
    /// drops the correspondence seeks past their time and the real-time seeks of dead nodes, until
    /// the server stops.
    pub async fn run(self) {
        match db_lobby::expire(self.db(), now_ms(), true).await {
            Ok(ids) => self.removed(&ids),
            Err(error) => tracing::warn!(%error, "could not clear the seeks of stopped nodes"),
        }
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        let mut ticks = 0u64;
        loop {
            tick.tick().await;
            ticks += 1;
            for pool in seek::pools() {
                if let Err(error) = self.pair_pool(pool).await {
                    tracing::warn!(%error, "quick pairing failed");
                }
            }
            if ticks % 60 == 0 {
                match db_lobby::expire(self.db(), now_ms(), true).await {
                    Ok(ids) => {
                        self.forget(&ids);
                        self.removed(&ids);
                    }
                    Err(error) => tracing::warn!(%error, "could not expire seeks"),
                }
            }
        }
    }
}

/// Who takes the host seat of a pairing.
enum Seated {
    /// A seek's seeker: his profile, his token sealed for him and its hash, and the token itself
    /// if the seek was made on this node.
    Sealed { profile: String, sealed: String, hash: String, token: Option<String> },
    /// A player on a socket of this node (quick pairing).
    Live(Player),
}

/// The room a pairing makes.
struct NewGame {
    room: Uuid,
    host_role: Role,
    rules: RuleOptions,
    turn_clock_secs: u64,
    rated: bool,
}

/// The `paired` message: the new room, the role, and the link that takes the seat.
fn paired(room: &str, role: &str, token: &str) -> String {
    json!({ "type": "paired", "room": room, "role": role, "link": format!("/room/{room}#seat={token}") })
        .to_string()
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Fugitive => "fugitive",
        Role::Marshal => "marshal",
    }
}

/// A seat's token sealed by its profile's secret, as `profile_seats` keeps it.
fn seal_token(secret: &str, room: &str, seat: Seat, token: &str) -> String {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).unwrap_or_default();
    model::seal(secret, &model::seat_purpose(room, seat.index()), &bytes)
}
