//! Web Push (issue 25): told when it is your turn, with the tab closed.
//!
//! A profile's browser subscribes (`http_push.rs`); the room machine and the lobby hand a
//! [`Notice`] for a seat or a profile to [`Push`], which only queues it (`try_send` on a
//! bounded channel: a game never waits for a push service, and when the queue is full the
//! notice is dropped and logged). One task drains the queue: it finds the seat's profile and its
//! subscriptions, and sends each an RFC 8291 `aes128gcm` message signed with the server's VAPID
//! key (RFC 8292) through `web-push-native`, at most [`SENDING`] at once. A subscription the push
//! service answers 404 or 410 is gone for good and is deleted.
//!
//! The VAPID key comes from `--vapid-private-key`; without it, the first node to start makes one
//! and stores it in the database, where every node (and every restart) finds it.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use tokio::sync::{Semaphore, mpsc};
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair};
use web_push_native::p256::PublicKey;
use web_push_native::{Auth, WebPushBuilder};

use crate::db::push::{self as db_push, Subscription};
use crate::db::{Db, DbError};
use crate::model::push::Notice;
use crate::model::seat::Seat;

/// Notices waiting to be sent; beyond it a new one is dropped.
const QUEUE: usize = 1024;
/// Push messages in flight at once.
const SENDING: usize = 16;
/// How long one push service has to answer.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a push service keeps a message for a browser that is offline (its `TTL`); also
/// the VAPID token's lifetime, which may not pass 24 hours.
const KEEP: Duration = Duration::from_secs(12 * 3600);
/// Where the VAPID key made on first start is kept (`server_settings`).
const KEY_SETTING: &str = "vapid_private_key";
/// The longest endpoint taken.
const MAX_ENDPOINT: usize = 2048;

/// base64url, with or without its padding: browsers differ.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Why push could not start.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    /// `--vapid-private-key` (or the stored key) is not a base64url P-256 private key.
    #[error("the VAPID private key is not a base64url P-256 private key (32 bytes)")]
    BadKey,
    /// The stored key could not be read or written.
    #[error("the VAPID key could not be read or stored")]
    Db(#[from] DbError),
}

/// Why a subscription was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadSubscription {
    /// The endpoint is not an `https://` URL (or `http://` with `--push-allow-http`).
    #[error("the endpoint must be an https:// URL of at most 2048 bytes")]
    Endpoint,
    /// `keys.p256dh` is not a base64url P-256 public key.
    #[error("keys.p256dh must be the browser's P-256 public key, base64url")]
    Key,
    /// `keys.auth` is not 16 base64url bytes.
    #[error("keys.auth must be the browser's 16-byte secret, base64url")]
    Auth,
}

/// Checks a browser's subscription (`PushSubscription.toJSON()`'s fields).
///
/// # Errors
/// [`BadSubscription`] says which field is wrong.
pub fn check(
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    allow_http: bool,
) -> Result<Subscription, BadSubscription> {
    let url = url::Url::parse(endpoint).map_err(|_| BadSubscription::Endpoint)?;
    let scheme_ok = url.scheme() == "https" || (allow_http && url.scheme() == "http");
    if !scheme_ok || url.host_str().is_none() || endpoint.len() > MAX_ENDPOINT {
        return Err(BadSubscription::Endpoint);
    }
    let key = BASE64URL.decode(p256dh).map_err(|_| BadSubscription::Key)?;
    if key.len() != 65 || PublicKey::from_sec1_bytes(&key).is_err() {
        return Err(BadSubscription::Key);
    }
    if BASE64URL.decode(auth).map_err(|_| BadSubscription::Auth)?.len() != 16 {
        return Err(BadSubscription::Auth);
    }
    Ok(Subscription { endpoint: endpoint.to_string(), p256dh: p256dh.to_string(), auth: auth.to_string() })
}

/// The server's VAPID identity.
pub struct Vapid {
    key: ES256KeyPair,
    subject: String,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public_key", &self.public_key())
            .field("subject", &self.subject)
            .finish()
    }
}

impl Vapid {
    /// The key given (base64url of the private scalar), or the one stored in the database, made
    /// and stored first if there is none.
    ///
    /// # Errors
    /// [`PushError`] when the key does not parse or the database fails.
    pub async fn load(db: &Db, given: Option<&str>, subject: &str) -> Result<Vapid, PushError> {
        let text = match given {
            Some(given) => given.trim().to_string(),
            None => {
                let fresh = URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes());
                db_push::setting_or_insert(db, KEY_SETTING, &fresh).await?
            }
        };
        let bytes = BASE64URL.decode(&text).map_err(|_| PushError::BadKey)?;
        // Checked first: `from_bytes` panics on a scalar of another length.
        if bytes.len() != 32 {
            return Err(PushError::BadKey);
        }
        let key = ES256KeyPair::from_bytes(&bytes).map_err(|_| PushError::BadKey)?;
        Ok(Vapid { key, subject: subject.to_string() })
    }

    /// The public key, base64url of its uncompressed point: the `applicationServerKey` a
    /// browser subscribes with.
    pub fn public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.public_key().public_key().to_bytes_uncompressed())
    }
}

/// Whom a notice is for.
#[derive(Clone, Debug)]
enum To {
    /// Whoever holds this seat of the notice's room under a profile.
    Seat(Seat),
    /// This profile.
    Profile(String),
}

/// The queue of notices to send; cheap to clone. [`Push::off`] drops every notice.
#[derive(Clone, Debug)]
pub struct Push {
    inner: Option<Arc<Inner>>,
}

#[derive(Debug)]
struct Inner {
    queue: mpsc::Sender<(To, Notice)>,
    vapid: Arc<Vapid>,
}

impl Push {
    /// No push: notices are dropped (tests of other things, tools).
    pub fn off() -> Push {
        Push { inner: None }
    }

    /// Starts the task that sends the queued notices with `vapid`'s key.
    pub fn start(db: Db, vapid: Vapid) -> Push {
        let (queue, notices) = mpsc::channel(QUEUE);
        let vapid = Arc::new(vapid);
        tokio::spawn(send_all(db, vapid.clone(), notices));
        Push { inner: Some(Arc::new(Inner { queue, vapid })) }
    }

    /// The VAPID public key browsers subscribe with, when push is on.
    pub fn public_key(&self) -> Option<String> {
        self.inner.as_ref().map(|inner| inner.vapid.public_key())
    }

    /// Tells the profile that holds `seat` of the notice's room, if any. Never waits.
    pub fn to_seat(&self, seat: Seat, notice: Notice) {
        self.queue(To::Seat(seat), notice);
    }

    /// Tells `profile`. Never waits.
    pub fn to_profile(&self, profile: &str, notice: Notice) {
        self.queue(To::Profile(profile.to_string()), notice);
    }

    fn queue(&self, to: To, notice: Notice) {
        let Some(inner) = &self.inner else { return };
        if inner.queue.try_send((to, notice)).is_err() {
            tracing::warn!(room = %notice.room, "the push queue is full: a notification was dropped");
        }
    }
}

/// Sends every queued notice, [`SENDING`] at once, until every [`Push`] is dropped.
async fn send_all(db: Db, vapid: Arc<Vapid>, mut notices: mpsc::Receiver<(To, Notice)>) {
    let client = match reqwest::Client::builder().timeout(TIMEOUT).connect_timeout(TIMEOUT).build() {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "no HTTP client for Web Push: notifications are off");
            return;
        }
    };
    let sending = Arc::new(Semaphore::new(SENDING));
    while let Some((to, notice)) = notices.recv().await {
        let Ok(permit) = sending.clone().acquire_owned().await else { return };
        let (db, vapid, client) = (db.clone(), vapid.clone(), client.clone());
        tokio::spawn(async move {
            if let Err(error) = send(&db, &vapid, &client, to, notice).await {
                tracing::warn!(room = %notice.room, %error, "could not look up whom to notify");
            }
            drop(permit);
        });
    }
}

/// Sends `notice` to every subscription of its profile.
async fn send(
    db: &Db,
    vapid: &Vapid,
    client: &reqwest::Client,
    to: To,
    notice: Notice,
) -> Result<(), DbError> {
    let profile = match to {
        To::Profile(profile) => Some(profile),
        To::Seat(seat) => db_push::profile_of_seat(db, &notice.room.to_string(), seat.index() as i64).await?,
    };
    let Some(profile) = profile else { return Ok(()) };
    for subscription in db_push::of_profile(db, &profile).await? {
        let endpoint = subscription.endpoint.clone();
        match deliver(vapid, client, &subscription, notice.payload()).await {
            Ok(status) if status == 404 || status == 410 => {
                tracing::info!(%profile, status, "the push service dropped a subscription: deleted");
                db_push::drop_endpoint(db, &endpoint).await?;
            }
            Ok(status) if (200..300).contains(&status) => {}
            Ok(status) => tracing::warn!(%profile, status, "the push service refused a notification"),
            Err(error) => tracing::warn!(%profile, %error, "could not send a notification"),
        }
    }
    Ok(())
}

/// Encrypts and signs one message and posts it: the push service's status.
async fn deliver(
    vapid: &Vapid,
    client: &reqwest::Client,
    subscription: &Subscription,
    payload: Vec<u8>,
) -> Result<u16, Box<dyn std::error::Error + Send + Sync>> {
    let key = PublicKey::from_sec1_bytes(&BASE64URL.decode(&subscription.p256dh)?)?;
    let auth = BASE64URL.decode(&subscription.auth)?;
    if auth.len() != 16 {
        return Err("the subscription's auth secret is not 16 bytes".into());
    }
    let request = WebPushBuilder::new(subscription.endpoint.parse()?, key, Auth::clone_from_slice(&auth))
        .with_valid_duration(KEEP)
        .with_vapid(&vapid.key, &vapid.subject)
        .build(payload)?;
    let response = client.execute(reqwest::Request::try_from(request)?).await?;
    Ok(response.status().as_u16())
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";

    #[test]
    fn a_subscription_needs_an_https_endpoint_a_p256_key_and_a_16_byte_secret() {
        let key = URL_SAFE_NO_PAD
            .encode(ES256KeyPair::generate().public_key().public_key().to_bytes_uncompressed());
        let key = key.as_str();
        assert!(check("https://push.example/x", key, AUTH, false).is_ok());
        assert_eq!(check("http://push.example/x", key, AUTH, false), Err(BadSubscription::Endpoint));
        assert!(check("http://127.0.0.1:9/x", key, AUTH, true).is_ok());
        assert_eq!(check("not a url", key, AUTH, true), Err(BadSubscription::Endpoint));
        assert_eq!(check("file:///etc/passwd", key, AUTH, true), Err(BadSubscription::Endpoint));
        assert_eq!(check("https://push.example/x", "AAAA", AUTH, false), Err(BadSubscription::Key));
        assert_eq!(check("https://push.example/x", key, "AAAA", false), Err(BadSubscription::Auth));
        assert_eq!(check("https://push.example/x", key, "%%%", false), Err(BadSubscription::Auth));
        let long = format!("https://push.example/{}", "x".repeat(MAX_ENDPOINT));
        assert_eq!(check(&long, key, AUTH, false), Err(BadSubscription::Endpoint));
    }

    #[tokio::test]
    async fn a_key_made_on_first_start_is_found_again() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("push.db").display());
        let db = Db::connect(&url).await.unwrap();
        let first = Vapid::load(&db, None, "mailto:a@example.com").await.unwrap();
        let again = Vapid::load(&db, None, "mailto:a@example.com").await.unwrap();
        assert_eq!(first.public_key(), again.public_key());
        assert_eq!(URL_SAFE_NO_PAD.decode(first.public_key()).unwrap().len(), 65);
        let given = URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes());
        let chosen = Vapid::load(&db, Some(&given), "mailto:a@example.com").await.unwrap();
        assert_ne!(chosen.public_key(), first.public_key());
        assert!(matches!(Vapid::load(&db, Some("nope"), "x").await, Err(PushError::BadKey)));
        db.close().await;
    }
}
