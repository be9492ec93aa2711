//! Profiles without an account (issue 25): made on the first visit with an `HttpOnly` cookie,
//! named under the rules of a name, moved to another browser by a transfer link or code that
//! works once, deleted with their games kept; the seats taken under a profile follow it.

use crate::common;

use std::net::SocketAddr;

use common::{Client, Server, TestDb};
use fugitive_server::db::Db;
use fugitive_server::db::profiles::{self, TransferCode};
use serde_json::{Value, json};

/// A browser: the profile cookie it holds, if any.
#[derive(Clone, Debug, Default)]
struct Browser {
    cookie: Option<String>,
}

/// One response: status, `Set-Cookie`, JSON body (`Null` when empty).
struct Answer {
    status: u16,
    set_cookie: Option<String>,
    body: Value,
}

impl Browser {
    async fn send(&mut self, addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> Answer {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = reqwest::Client::new()
            .request(method, format!("http://{addr}{path}"))
            .header("content-type", "application/json")
            .timeout(common::PATIENCE);
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", format!("theme=dark; {cookie}"));
        }
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let set_cookie =
            response.headers().get("set-cookie").map(|value| value.to_str().unwrap().to_string());
        if let Some(set) = &set_cookie {
            let pair = set.split(';').next().unwrap().to_string();
            self.cookie = if pair.ends_with('=') { None } else { Some(pair) };
        }
        let text = response.text().await.unwrap();
        let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() };
        Answer { status, set_cookie, body }
    }

    /// Makes (or finds) this browser's profile; its id.
    async fn visit(&mut self, addr: SocketAddr) -> String {
        let answer = self.send(addr, "POST", "/api/profile", None).await;
        assert!(answer.status == 201 || answer.status == 200, "{}", answer.body);
        answer.body["id"].as_str().unwrap().to_string()
    }
}

#[tokio::test]
async fn a_first_visit_makes_a_profile_held_in_an_http_only_cookie() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut browser = Browser::default();
    let answer = browser.send(server.addr, "GET", "/api/profile", None).await;
    assert_eq!((answer.status, answer.body["error"].as_str()), (401, Some("no_profile")));

    let made = browser.send(server.addr, "POST", "/api/profile", None).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let set = made.set_cookie.unwrap();
    assert!(set.starts_with("fugitive_profile="), "{set}");
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/"), "{set}");
    assert!(!set.contains("Secure"), "plain http here: {set}");
    let id = made.body["id"].as_str().unwrap().to_string();
    assert_eq!(made.body["page"], format!("/@/{id}"));

    // The next visit finds it: no new profile, no new cookie.
    let again = browser.send(server.addr, "POST", "/api/profile", None).await;
    assert_eq!((again.status, again.set_cookie), (200, None));
    assert_eq!(again.body["id"], id);
    assert_eq!(browser.send(server.addr, "GET", "/api/profile", None).await.body["id"], id);

    // Another browser gets another profile; a forged secret is no profile.
    let mut other = Browser::default();
    assert_ne!(other.visit(server.addr).await, id);
    let mut forged = Browser { cookie: Some(format!("fugitive_profile={id}.forged")) };
    assert_eq!(forged.send(server.addr, "GET", "/api/profile", None).await.status, 401);
    server.stop().await;
}

#[tokio::test]
async fn the_cookie_is_secure_when_the_public_address_is_https() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--allowed-origins", "https://fugitive.example"]).await;
    let made = Browser::default().send(server.addr, "POST", "/api/profile", None).await;
    assert!(made.set_cookie.unwrap().ends_with("; Secure"));
    server.stop().await;
}

#[tokio::test]
async fn profiles_are_made_at_the_rate_limit_of_room_creation() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &["--max-rooms-per-minute", "2"]).await;
    for _ in 0..2 {
        assert_eq!(Browser::default().send(server.addr, "POST", "/api/profile", None).await.status, 201);
    }
    let refused = Browser::default().send(server.addr, "POST", "/api/profile", None).await;
    assert_eq!((refused.status, refused.body["error"].as_str()), (429, Some("rate_limited")));
    assert_eq!(refused.set_cookie, None);
    server.stop().await;
}

#[tokio::test]
async fn a_name_follows_the_rules_of_a_seats_name_and_can_change() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let mut browser = Browser::default();
    let id = browser.visit(server.addr).await;
    let renamed =
        browser.send(server.addr, "PATCH", "/api/profile", Some(json!({ "name": "  Ada  " }))).await;
    assert_eq!((renamed.status, &renamed.body["name"]), (200, &json!("Ada")));
    for bad in ["a\nb", "x".repeat(25).as_str()] {
        let refused = browser.send(server.addr, "PATCH", "/api/profile", Some(json!({ "name": bad }))).await;
        assert_eq!((refused.status, refused.body["error"].as_str()), (400, Some("bad_name")));
    }
    let renamed = browser.send(server.addr, "PATCH", "/api/profile", Some(json!({ "name": "Grace" }))).await;
    assert_eq!(renamed.body["name"], "Grace");
    let public = Browser::default().send(server.addr, "GET", &format!("/api/profiles/{id}"), None).await;
    assert_eq!(
        (public.body["name"].as_str(), public.body["deleted"].as_bool()),
        (Some("Grace"), Some(false))
    );
    let nobody = Browser::default().send(server.addr, "GET", "/api/profiles/nobody000000", None).await;
    assert_eq!((nobody.status, nobody.body["error"].as_str()), (404, Some("profile_not_found")));
    // Without a profile there is nothing to rename.
    let refused =
        Browser::default().send(server.addr, "PATCH", "/api/profile", Some(json!({ "name": "x" }))).await;
    assert_eq!(refused.status, 401);
    server.stop().await;
}

/// Creates a room as `host` and claims its invitation as `guest`: the room and both tokens.
async fn room_between(addr: SocketAddr, host: &mut Browser, guest: &mut Browser) -> (String, String, String) {
    let created = host.send(addr, "POST", "/api/rooms", Some(json!({ "role": "fugitive" }))).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let room = created.body["room"].as_str().unwrap().to_string();
    let invite =
        created.body["links"]["invite"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string();
    let claimed = guest
        .send(addr, "POST", &format!("/api/rooms/{room}/claim"), Some(json!({ "invite": invite })))
        .await;
    assert_eq!(claimed.status, 200, "{}", claimed.body);
    (room, created.body["token"].as_str().unwrap().into(), claimed.body["token"].as_str().unwrap().into())
}

#[tokio::test]
async fn seats_taken_under_a_profile_follow_it_through_a_transfer_link_that_works_once() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let (mut ada, mut bob, mut anonymous) = (Browser::default(), Browser::default(), Browser::default());
    let ada_id = ada.visit(addr).await;
    bob.visit(addr).await;
    let (room, ada_token, bob_token) = room_between(addr, &mut ada, &mut bob).await;
    // A room by link without any profile works as before, and belongs to nobody.
    let (_, _, _) = room_between(addr, &mut anonymous, &mut Browser::default()).await;

    let listed = ada.send(addr, "GET", "/api/profile/seats", None).await.body;
    assert_eq!(
        listed["seats"],
        json!([{ "room": room, "seat": 0, "token": ada_token,
        "link": format!("/room/{room}#seat={ada_token}") }])
    );
    let listed = bob.send(addr, "GET", "/api/profile/seats", None).await.body;
    assert_eq!(listed["seats"][0]["token"], bob_token.as_str());
    assert_eq!(listed["seats"].as_array().unwrap().len(), 1);

    // Ada moves her profile into a fresh browser with the link.
    let transfer = ada.send(addr, "POST", "/api/profile/transfer", None).await.body;
    let link = transfer["link"].as_str().unwrap();
    let code = link.split("#transfer=").nth(1).unwrap();
    assert!(transfer["code"].as_str().unwrap().len() == 9, "{transfer}");
    let mut phone = Browser::default();
    let moved = phone.send(addr, "POST", "/api/profile/transfer/redeem", Some(json!({ "code": code }))).await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(moved.body["id"], ada_id.as_str());
    assert!(moved.set_cookie.unwrap().contains("HttpOnly"));
    let listed = phone.send(addr, "GET", "/api/profile/seats", None).await.body;
    let token = listed["seats"][0]["token"].as_str().unwrap().to_string();
    assert_eq!(token, ada_token);
    // The token opens the seat.
    let client = Client::join(addr, &room, Some(&token)).await;
    assert_eq!(client.welcome.as_ref().unwrap()["role"], "fugitive");

    // The link and the short code of that transfer are both spent.
    for code in [code.to_string(), transfer["code"].as_str().unwrap().to_string()] {
        let spent = Browser::default()
            .send(addr, "POST", "/api/profile/transfer/redeem", Some(json!({ "code": code })))
            .await;
        assert_eq!((spent.status, spent.body["error"].as_str()), (404, Some("transfer_invalid")));
    }
    // A short code as typed on a phone, in lower case with a space, works as well.
    let transfer = phone.send(addr, "POST", "/api/profile/transfer", None).await.body;
    let typed = transfer["code"].as_str().unwrap().to_lowercase().replace('-', " ");
    let mut tablet = Browser::default();
    let moved =
        tablet.send(addr, "POST", "/api/profile/transfer/redeem", Some(json!({ "code": typed }))).await;
    assert_eq!((moved.status, &moved.body["id"]), (200, &json!(ada_id)));
    server.stop().await;
}

#[tokio::test]
async fn a_deleted_profile_is_gone_and_its_games_stay_under_deleted_player() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let addr = server.addr;
    let (mut ada, mut bob) = (Browser::default(), Browser::default());
    let ada_id = ada.visit(addr).await;
    ada.send(addr, "PATCH", "/api/profile", Some(json!({ "name": "Ada" }))).await;
    let (room, ada_token, _) = room_between(addr, &mut ada, &mut bob).await;
    let old_cookie = ada.clone();
    let transfer = ada.send(addr, "POST", "/api/profile/transfer", None).await.body;

    let deleted = ada.send(addr, "DELETE", "/api/profile", None).await;
    assert_eq!(deleted.status, 204);
    assert!(deleted.set_cookie.unwrap().contains("Max-Age=0"));
    assert!(ada.cookie.is_none());
    for (method, path) in
        [("GET", "/api/profile"), ("GET", "/api/profile/seats"), ("POST", "/api/profile/transfer")]
    {
        let refused = old_cookie.clone().send(addr, method, path, None).await;
        assert_eq!((refused.status, refused.body["error"].as_str()), (401, Some("no_profile")), "{path}");
    }
    // A transfer made before is void.
    let code = transfer["code"].as_str().unwrap();
    let refused = Browser::default()
        .send(addr, "POST", "/api/profile/transfer/redeem", Some(json!({ "code": code })))
        .await;
    assert_eq!(refused.status, 404);
    let public = bob.send(addr, "GET", &format!("/api/profiles/{ada_id}"), None).await.body;
    assert_eq!((public["deleted"].as_bool(), &public["name"]), (Some(true), &Value::Null));
    // The room and its seat live on by link.
    let client = Client::join(addr, &room, Some(&ada_token)).await;
    assert_eq!(client.welcome.as_ref().unwrap()["role"], "fugitive");
    // Visiting again makes a new profile.
    assert_ne!(old_cookie.clone().visit(addr).await, ada_id);
    server.stop().await;
}

#[tokio::test]
async fn an_expired_transfer_code_is_refused_and_spent() {
    let test = TestDb::sqlite();
    let db = Db::connect(&test.url).await.unwrap();
    expiry_and_single_use(&db).await;
    db.close().await;
}

#[tokio::test]
#[ignore = "needs FUGITIVE_TEST_DATABASE_URL"]
async fn postgres_transfer_codes_expire_and_work_once_even_when_used_at_once() {
    let test = TestDb::postgres().await;
    let db = Db::connect(&test.url).await.unwrap();
    expiry_and_single_use(&db).await;
    db.close().await;
    test.drop_database().await;
}

async fn expiry_and_single_use(db: &Db) {
    profiles::create(db, "aaaaaaaaaaaa", "hash", 0).await.unwrap();
    let code = |hash: &str| TransferCode { code_hash: hash.into(), sealed_secret: "00".into() };
    profiles::create_transfer(db, "t1", "aaaaaaaaaaaa", &[code("old")], 1_000, 2_000).await.unwrap();
    assert_eq!(profiles::redeem_transfer(db, "old", 2_000).await.unwrap(), None, "expired at 2000");
    assert_eq!(profiles::redeem_transfer(db, "old", 1_500).await.unwrap(), None, "and spent by that try");

    profiles::create_transfer(db, "t2", "aaaaaaaaaaaa", &[code("link"), code("short")], 1_000, 9_000)
        .await
        .unwrap();
    let tries = (0..8).map(|_| profiles::redeem_transfer(db, "link", 1_500));
    let won: Vec<_> = futures_util::future::join_all(tries).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(won.iter().filter(|w| w.is_some()).count(), 1, "{won:?}");
    assert_eq!(won.iter().flatten().next().unwrap(), &("aaaaaaaaaaaa".to_string(), "00".to_string()));
    assert_eq!(
        profiles::redeem_transfer(db, "short", 1_500).await.unwrap(),
        None,
        "the same transfer's code"
    );
}
