//! Web Push (issue 25): a profile's browser subscribes; when it becomes that player's turn (and
//! he has no socket open in the room) or his game ends, the server posts an RFC 8291 message,
//! signed with its VAPID key (RFC 8292), to the subscription's push service. Here a local axum
//! endpoint plays the browser vendor's push service: it checks the VAPID JWT and decrypts the
//! payload with the browser's keys; answered 410, the subscription is dropped.

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::{Client, PATIENCE, Server, TestDb};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair, ES256PublicKey};
use web_push_native::jwt_simple::claims::NoCustomClaims;
use web_push_native::p256::SecretKey;

/// What the push service was sent.
struct Pushed {
    path: String,
    headers: HeaderMap,
    body: Bytes,
}

/// A push service on a port of its own: every request goes to the channel; each is answered
/// with the status set in the `AtomicU16`.
async fn push_service() -> (SocketAddr, mpsc::UnboundedReceiver<Pushed>, Arc<AtomicU16>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let status = Arc::new(AtomicU16::new(201));
    let app = axum::Router::new()
        .route(
            "/{endpoint}",
            axum::routing::post(
                |State((tx, status)): State<(mpsc::UnboundedSender<Pushed>, Arc<AtomicU16>)>,
                 axum::extract::Path(path): axum::extract::Path<String>,
                 headers: HeaderMap,
                 body: Bytes| async move {
                    let _ = tx.send(Pushed { path, headers, body });
                    StatusCode::from_u16(status.load(Ordering::SeqCst)).unwrap()
                },
            ),
        )
        .with_state((tx, status.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, rx, status)
}

/// A browser's push keys: its P-256 secret and its 16-byte authentication secret.
struct Browser {
    secret: SecretKey,
    auth: [u8; 16],
}

impl Browser {
    fn new() -> Browser {
        let secret = SecretKey::from_slice(&ES256KeyPair::generate().to_bytes()).unwrap();
        Browser { secret, auth: *b"sixteen bytes!!!" }
    }

    /// `PushSubscription.toJSON()` for `endpoint`.
    fn subscription(&self, endpoint: &str) -> Value {
        use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint;
        let public = self.secret.public_key().to_encoded_point(false);
        json!({
            "endpoint": endpoint,
            "expirationTime": null,
            "keys": { "p256dh": URL_SAFE_NO_PAD.encode(public.as_bytes()), "auth": URL_SAFE_NO_PAD.encode(self.auth) },
        })
    }

    /// The payload, decrypted as the browser does.
    fn read(&self, body: &[u8]) -> Value {
        let auth = web_push_native::Auth::clone_from_slice(&self.auth);
        let plain =
            web_push_native::decrypt(body.to_vec(), &self.secret, &auth).expect("the payload decrypts");
        serde_json::from_slice(&plain).unwrap()
    }
}

async fn profile(addr: SocketAddr) -> String {
    let response = reqwest::Client::new().post(format!("http://{addr}/api/profile")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 201);
    response.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string()
}

async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method.parse().unwrap(), format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn next(pushed: &mut mpsc::UnboundedReceiver<Pushed>) -> Pushed {
    tokio::time::timeout(PATIENCE, pushed.recv()).await.expect("a push in time").unwrap()
}

/// Checks the request's VAPID `Authorization` (`vapid t=JWT, k=KEY`): signed by the server's
/// key, for the push service's origin, with the operator's contact.
fn assert_vapid(headers: &HeaderMap, server_key: &str, service: SocketAddr) {
    let authorization = headers["authorization"].to_str().unwrap();
    let rest = authorization.strip_prefix("vapid ").expect("a VAPID authorization");
    let (t, k) = rest.split_once(", ").unwrap();
    let (token, key) = (t.strip_prefix("t=").unwrap(), k.strip_prefix("k=").unwrap());
    assert_eq!(key, server_key, "signed by the key browsers subscribe with");
    let public = ES256PublicKey::from_bytes(&URL_SAFE_NO_PAD.decode(key).unwrap()).unwrap();
    let claims = public.verify_token::<NoCustomClaims>(token, None).expect("the JWT's signature holds");
    let audiences = claims.audiences.expect("an audience").into_string().unwrap();
    assert!(audiences.starts_with(&format!("http://{}", service.ip())), "{audiences}");
    assert_eq!(claims.subject.as_deref(), Some("mailto:ops@example.com"));
    assert!(claims.expires_at.is_some());
    assert_eq!(headers["content-encoding"], "aes128gcm");
    assert!(headers.contains_key("ttl"));
}

async fn subscriptions(db: &TestDb) -> i64 {
    use sqlx::Row;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&db.url).await.unwrap();
    let count = sqlx::query("SELECT COUNT(*) FROM push_subscriptions").fetch_one(&pool).await.unwrap().get(0);
    pool.close().await;
    count
}

#[tokio::test]
async fn the_player_whose_turn_it_is_is_told_and_a_gone_subscription_is_dropped() {
    told_and_dropped(TestDb::sqlite()).await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_the_player_whose_turn_it_is_is_told_and_a_gone_subscription_is_dropped() {
    told_and_dropped(TestDb::postgres().await).await;
}

async fn told_and_dropped(db: TestDb) {
    let (service, mut pushed, status) = push_service().await;
    let server =
        Server::start(&db, &["--push-allow-http", "--vapid-subject", "mailto:ops@example.com"]).await;
    let addr = server.addr;
    let (code, key) = server.http("GET", "/api/push/key", None).await;
    assert_eq!(code, 200);
    let server_key = key["key"].as_str().unwrap().to_string();

    let ada = profile(addr).await;
    let bob = profile(addr).await;
    let browser = Browser::new();
    let endpoint = format!("http://{service}/bob");
    let subscribe = browser.subscription(&endpoint);
    assert_eq!(send(addr, "POST", "/api/push/subscription", Some(&bob), &subscribe).await.0, 204);

    // Ada (the Fugitive) and Bob (the Marshal) at a table with a clock; Bob has no socket open.
    let (_, created) =
        send(addr, "POST", "/api/rooms", Some(&ada), &json!({ "role": "fugitive", "turn_clock_secs": 300 }))
            .await;
    let room = created["room"].as_str().unwrap().to_string();
    let invite = created["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string();
    let claim = json!({ "invite": invite });
    let (code, _) = send(addr, "POST", &format!("/api/rooms/{room}/claim"), Some(&bob), &claim).await;
    assert_eq!(code, 200);
    let mut fugitive = Client::join(addr, &room, created["token"].as_str()).await;
    assert_eq!(fugitive.act(json!({ "type": "place", "hideout": 1, "sprints": [] })).await["ok"], true);
    assert_eq!(fugitive.act(json!({ "type": "end_turn" })).await["ok"], true);

    let turn = next(&mut pushed).await;
    assert_eq!(turn.path, "bob");
    assert_vapid(&turn.headers, &server_key, service);
    assert_eq!(
        browser.read(&turn.body),
        json!({ "kind": "turn", "room": room, "url": format!("/room/{room}") })
    );

    // The game ends (Ada resigns): Bob, still away, is told he won; his push service says the
    // subscription is gone, and it is dropped.
    status.store(410, Ordering::SeqCst);
    assert_eq!(fugitive.act(json!({ "type": "resign" })).await["ok"], true);
    let over = next(&mut pushed).await;
    assert_eq!(browser.read(&over.body)["kind"], "won");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while subscriptions(&db).await > 0 {
        assert!(tokio::time::Instant::now() < deadline, "the subscription answered 410 was not dropped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Ada was at the table: nobody else was told.
    assert!(pushed.try_recv().is_err());
    server.stop().await;
    db.drop_database().await;
}

#[tokio::test]
async fn a_subscription_needs_a_profile_and_a_browsers_keys() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let browser = Browser::new();
    let good = browser.subscription("https://push.example/abc");
    let (code, body) = send(addr, "POST", "/api/push/subscription", None, &good).await;
    assert_eq!((code, body["error"].as_str()), (401, Some("no_profile")));

    let ada = profile(addr).await;
    let plain_http = browser.subscription("http://push.example/abc");
    let (code, body) = send(addr, "POST", "/api/push/subscription", Some(&ada), &plain_http).await;
    assert_eq!((code, body["error"].as_str()), (400, Some("bad_subscription")), "{body}");
    let mut bad_key = good.clone();
    bad_key["keys"]["p256dh"] = json!("AAAA");
    let (code, body) = send(addr, "POST", "/api/push/subscription", Some(&ada), &bad_key).await;
    assert_eq!((code, body["error"].as_str()), (400, Some("bad_subscription")), "{body}");
    let (code, body) = send(addr, "POST", "/api/push/subscription", Some(&ada), &json!([1])).await;
    assert_eq!((code, body["error"].as_str()), (400, Some("bad_request")), "{body}");
    assert_eq!(subscriptions(&db).await, 0, "nothing stored");

    assert_eq!(send(addr, "POST", "/api/push/subscription", Some(&ada), &good).await.0, 204);
    assert_eq!(subscriptions(&db).await, 1);
    let gone = json!({ "endpoint": "https://push.example/abc" });
    assert_eq!(send(addr, "DELETE", "/api/push/subscription", Some(&ada), &gone).await.0, 204);
    assert_eq!(subscriptions(&db).await, 0);
    server.stop().await;
}
