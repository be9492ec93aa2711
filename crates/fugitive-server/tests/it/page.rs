//! The web client as the server sends it (issue 28): compressed by `Accept-Encoding`, every file
//! the page loads versioned and cached for a year, the page itself revalidated (`304`), every
//! module named in the page's import map and preloaded, only the reader's language preloaded.

use crate::common;

use std::io::Read;

use common::{Server, TestDb, WEB_DIR};
use sha2::{Digest, Sha256};

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

struct Got {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", |v| v.to_str().unwrap())
    }

    /// The body as sent, decoded by its `Content-Encoding`.
    fn decoded(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self.header("content-encoding") {
            "br" => brotli::Decompressor::new(&self.body[..], 4096).read_to_end(&mut out).unwrap(),
            "gzip" => flate2::read::GzDecoder::new(&self.body[..]).read_to_end(&mut out).unwrap(),
            "" => return self.body.clone(),
            other => panic!("unknown encoding {other}"),
        };
        out
    }

    fn text(&self) -> String {
        String::from_utf8(self.decoded()).unwrap()
    }
}

async fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> Got {
    let mut request = reqwest::Client::new().get(format!("http://{}{path}", server.addr));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    Got { status, headers, body: response.bytes().await.unwrap().to_vec() }
}

fn web_file(name: &str) -> Vec<u8> {
    std::fs::read(format!("{WEB_DIR}/{name}")).unwrap()
}

/// The version the server gives a file: the first 16 hex digits of its SHA-256.
fn version(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Every `.js` file of the client (outside its tests and packages), as URL paths.
fn modules(dir: &str, prefix: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        if entry.path().is_dir() {
            if !["tests", "node_modules", "test-results"].contains(&name.as_str()) && !name.starts_with('.') {
                modules(entry.path().to_str().unwrap(), &format!("{prefix}{name}/"), out);
            }
        } else if name.ends_with(".js") {
            out.push(format!("{prefix}{name}"));
        }
    }
}

/// The values of `attribute="…"` in `html`.
fn attributes<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let key = format!("{attribute}=\"");
    html.split(key.as_str()).skip(1).map(|rest| &rest[..rest.find('"').unwrap()]).collect()
}

#[tokio::test]
async fn each_file_is_sent_compressed_as_the_request_accepts_it() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let plain = web_file("app.js");
    for (accept, encoding) in [
        (Some("gzip, deflate, br, zstd"), "br"),
        (Some("gzip"), "gzip"),
        (Some("br;q=0, gzip;q=0.5"), "gzip"),
        (Some("identity"), ""),
        (None, ""),
    ] {
        let headers: Vec<(&str, &str)> = accept.map(|a| ("accept-encoding", a)).into_iter().collect();
        let got = get(&server, "/app.js", &headers).await;
        assert_eq!(got.status, 200);
        assert_eq!(got.header("content-encoding"), encoding, "{accept:?}");
        assert!(got.header("vary").contains("Accept-Encoding"), "{accept:?}");
        assert_eq!(got.decoded(), plain, "{accept:?}");
        assert_eq!(got.header("content-type"), "text/javascript; charset=utf-8");
        if !encoding.is_empty() {
            assert!(
                got.body.len() * 2 < plain.len(),
                "{encoding}: {} of {} bytes",
                got.body.len(),
                plain.len()
            );
        }
    }
    // The page too, and its HEAD.
    let page = get(&server, "/", &[("accept-encoding", "br")]).await;
    assert_eq!((page.status, page.header("content-encoding")), (200, "br"));
    assert!(page.text().starts_with("<!doctype html>"));
    server.stop().await;
}

#[tokio::test]
async fn every_module_url_in_the_served_page_is_versioned_and_preloaded() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let page = get(&server, "/", &[]).await;
    let html = page.text();
    // The import map names every module with its current version, but those of the page's
    // static graph, which it sends to the one file that holds them all (`web/join.rs`).
    let map_text = between(&html, "<script type=\"importmap\">", "</script>");
    let map = import_map(&html);
    let joined =
        preloads(&html).into_iter().find(|u| u.starts_with("/landing.joined.js?v=")).expect("one file");
    // That file is served as any other, immutable, and names the modules it holds, each after
    // those it imports.
    let file = get(&server, joined, &[]).await;
    assert_eq!((file.status, file.header("cache-control")), (200, IMMUTABLE));
    assert!(file.header("content-type").starts_with("text/javascript"));
    let text = String::from_utf8(file.decoded()).unwrap();
    let held: Vec<&str> = between(&text, "(web/join.rs): ", ".\n").split(", ").collect();
    let at =
        |module: &str| held.iter().position(|m| *m == module).unwrap_or_else(|| panic!("{module}: {held:?}"));
    assert!(
        at("storage.js") < at("i18n.js") && at("i18n.js") < at("app.js") && at("app.js") < at("landing.js")
    );
    for module in &held {
        assert!(text.contains(&format!("\n// {module}\nconst __joined_")), "{module}");
    }
    let mut all = Vec::new();
    modules(WEB_DIR, "", &mut all);
    assert!(all.len() >= 30, "{all:?}");
    for module in &all {
        let want = format!("/{module}?v={}", version(&web_file(module)));
        let want = if held.contains(&module.as_str()) { joined } else { want.as_str() };
        assert_eq!(map[&format!("/{module}")], want, "{module}");
    }
    assert_eq!(map.len(), all.len());
    assert!(held.len() < all.len() && map["/room.js"] != joined, "another view's modules are not held");
    // The CSP lets that inline map run, and nothing else inline.
    let digest = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, Sha256::digest(map_text));
    let csp = page.header("content-security-policy");
    let scripts = csp.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
    assert!(scripts.contains(&format!("'sha256-{digest}'")), "{csp}");
    assert!(!csp.contains("unsafe-inline"));
    // The entry is an inline module that imports app.js once the page is painted; the CSP names
    // its hash too.
    let entry = "<script type=\"module\">";
    let start = html.find(entry).expect("an inline entry") + entry.len();
    let boot = &html[start..start + html[start..].find("</script>").unwrap()];
    assert!(boot.contains("import('/app.js')") && boot.contains("'first-contentful-paint'"), "{boot}");
    let digest = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, Sha256::digest(boot));
    assert!(scripts.contains(&format!("'sha256-{digest}'")), "{csp}");
    assert!(!html.contains("<script type=\"module\" src="), "no module runs before the first paint");
    // The style sheet is in the page, so that the first paint waits for no other request, and
    // the CSP names its hash as a style.
    let css = String::from_utf8(web_file("style.css")).unwrap();
    assert!(html.contains(&format!("<style>{css}</style>")));
    assert!(!html.contains("rel=\"stylesheet\""));
    let digest = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, Sha256::digest(&css));
    assert!(csp.contains(&format!("style-src 'self' 'sha256-{digest}';")), "{csp}");
    // Every file the page loads is versioned: the manifest, the preloads (its links to other
    // pages, `/lobby`, are not files).
    let urls: Vec<&str> = attributes(&html, "src")
        .into_iter()
        .chain(attributes(&html, "href"))
        .chain(preloads(&html))
        .collect();
    let local: Vec<&str> = urls
        .iter()
        .copied()
        .filter(|u| u.starts_with('/') && u.split('?').next().unwrap().contains('.'))
        .collect();
    assert!(local.len() >= 3, "{local:?}");
    for url in &local {
        assert!(url.contains("?v="), "{url} is not versioned");
    }
    // The entry and its whole static graph are preloaded, with the view's of the path (the landing
    // page on `/`), and the strings of one language.
    let preloaded = preloaded_modules(&html);
    for module in ["/app.js", "/i18n.js", "/landing.js", "/dom.js", "/storage.js", "/i18n/en.js"] {
        assert!(preloaded.contains(&module.to_owned()), "{module} not preloaded");
    }
    assert!(!preloaded.contains(&"/i18n/de.js".to_owned()), "{preloaded:?}");
    server.stop().await;
}

/// The `href`s of the page's `<link rel="modulepreload">`s, which its inline entry adds after
/// the first paint (`for (const href of ["/app.js?v=…", …])`): none is in the page itself, so
/// that the first paint shares the bandwidth with no module.
fn preloads(html: &str) -> Vec<&str> {
    assert!(!html.contains("<link rel=\"modulepreload\""), "a preload in the page delays its first paint");
    let list = between(html, "for (const href of [", "])");
    list.split(',').map(|url| url.trim_matches('"')).filter(|url| !url.is_empty()).collect()
}

/// The page's import map: each module's plain URL and where it is sent.
fn import_map(html: &str) -> std::collections::HashMap<String, String> {
    let map: serde_json::Value =
        serde_json::from_str(between(html, "<script type=\"importmap\">", "</script>")).unwrap();
    serde_json::from_value(map["imports"].clone()).unwrap()
}

/// The plain URLs of the modules and strings the page preloads: a joined file's are those that
/// its import map sends to that file.
fn preloaded_modules(html: &str) -> Vec<String> {
    let map = import_map(html);
    let mut found = Vec::new();
    for url in preloads(html) {
        let joined: Vec<String> =
            map.iter().filter(|(_, to)| *to == url).map(|(from, _)| from.clone()).collect();
        if url.split('?').next().unwrap().ends_with(".joined.js") {
            assert!(!joined.is_empty(), "{url} holds no module of the map");
            found.extend(joined);
        } else {
            found.push(url.split('?').next().unwrap().to_owned());
        }
    }
    found
}

/// The text of `html` between `start` and the next `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let at = html.find(start).unwrap_or_else(|| panic!("no {start}")) + start.len();
    &html[at..at + html[at..].find(end).unwrap()]
}

#[tokio::test]
async fn the_first_screens_of_the_landing_page_the_lobby_and_the_table_and_the_pages_words_are_drawn_in_the_readers_language()
 {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let german = String::from_utf8(web_file("i18n/de.js")).unwrap();
    let tagline = between(&german, "'landing.tagline':\n    '", "',");
    let howto = between(&german, "'nav.howto': '", "',");
    let connecting = between(&german, "'room.connecting': '", "',");
    // The lobby's words are a part of the strings of their own.
    let german_lobby = String::from_utf8(web_file("i18n/lobby/de.js")).unwrap();
    let nobody = between(&german_lobby, "'lobby.none': '", "',");
    let room = "/room/6f1c1ad8-7a4c-4e8e-9a47-3d0b8b4a4e6b";
    for (path, first_screen) in
        [("/", "landing"), ("/index.html", "landing"), ("/lobby", "lobby"), (room, "room")]
    {
        let html = get(&server, path, &[("accept-language", "de-DE")]).await.text();
        assert!(html.starts_with("<!doctype html>\n<html lang=\"de\">"), "{path}");
        // The header's words, in German before any script runs.
        let header = between(&html, "<header", "</header>");
        assert!(header.contains(&format!(">{howto}</button>")), "{path}: {header}");
        assert!(!html.contains("<template"), "{path}: no view's template is sent");
        let main = between(&html, "<main id=\"app\" tabindex=\"-1\">", "</main>");
        if first_screen == "landing" {
            let want = format!("<p class=\"tagline\" data-t=\"landing.tagline\">{tagline}</p>");
            assert!(main.contains(&want), "{main}");
            // Its buttons wait for the script that makes them work, and say so, but are not
            // greyed out (`disabled`) meanwhile.
            assert_eq!(main.matches("<button").count(), 2, "{main}");
            assert_eq!(main.matches(" aria-disabled=\"true\"").count(), 2, "{main}");
            assert_eq!(main.matches(" disabled").count(), 0, "{main}");
        } else if first_screen == "lobby" {
            // The lobby as lobby.js first draws it, in German: no seek yet, its button disabled
            // as the script's is until the socket names this browser's profile.
            assert!(main.contains(&format!("<p data-t=\"lobby.none\">{nobody}</p>")), "{main}");
            assert_eq!(main.matches(" disabled").count(), 1, "{main}");
            assert!(!main.contains("tagline"), "{main}");
        } else {
            // The table: its screen while it connects, in German.
            let want = format!("<p class=\"status\" data-t=\"room.connecting\">{connecting}</p>");
            assert!(main.contains(&want), "{main}");
            assert!(!main.contains("tagline"), "{main}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn each_path_preloads_the_modules_and_strings_of_its_own_view_only() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let room = "/room/6f1c1ad8-7a4c-4e8e-9a47-3d0b8b4a4e6b";
    for (path, want, not) in [
        ("/", &["/landing.js", "/profile.js"][..], &["/room.js", "/panels/controls.js", "/lobby.js"][..]),
        (room, &["/room.js", "/panels/controls.js", "/table.js"], &["/landing.js", "/replay.js"]),
        (
            &format!("{room}/game/2"),
            &["/replay.js", "/i18n/replay/fr.js", "/analysis.js", "/i18n/analysis/fr.js"],
            &["/room.js", "/i18n/lobby/fr.js"],
        ),
        (
            "/lobby",
            &["/lobby.js", "/profile-page.js", "/i18n/lobby/fr.js", "/i18n/profile/fr.js"],
            &["/landing.js", "/i18n/lobby/en.js", "/i18n/puzzles/fr.js"],
        ),
        ("/tutorial", &["/tutorial.js", "/room.js", "/i18n/tutorial/fr.js"], &["/lobby.js"]),
    ] {
        let page = get(&server, path, &[("accept-language", "fr")]).await;
        assert_eq!(page.status, 200, "{path}");
        let html = page.text();
        let preloaded = preloaded_modules(&html);
        for module in ["/i18n.js", "/dom.js", "/i18n/fr.js"].iter().chain(want) {
            assert!(preloaded.contains(&(*module).to_owned()), "{path}: {module}");
        }
        for module in not {
            assert!(!preloaded.contains(&(*module).to_owned()), "{path}: {module}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn the_page_preloads_the_strings_of_the_readers_language() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    for (accept, lang) in [("de-CH, de;q=0.9, en;q=0.8", "de"), ("it, fr;q=0.5", "fr"), ("it", "en")] {
        let page = get(&server, "/", &[("accept-language", accept)]).await;
        let html = page.text();
        assert!(page.header("vary").contains("Accept-Language"));
        for other in ["en", "de", "fr"] {
            let preloaded =
                preloads(&html).iter().any(|url| url.starts_with(&format!("/i18n/{other}.js?v=")));
            assert_eq!(preloaded, other == lang, "{accept}: {other}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn versioned_files_are_immutable_and_the_page_is_revalidated_with_304() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    let page = get(&server, "/", &[("accept-encoding", "br")]).await;
    let html = page.text();
    assert!(preloaded_modules(&html).contains(&"/dom.js".to_owned()));
    let module = format!("/dom.js?v={}", version(&web_file("dom.js")));
    let versioned = get(&server, &module, &[]).await;
    assert_eq!(versioned.header("cache-control"), IMMUTABLE);
    assert_eq!(versioned.decoded(), web_file("dom.js"));
    // Without its version, or with an old one, the same file is revalidated, never kept.
    for path in ["/app.js", "/app.js?v=0000000000000000", "/style.css"] {
        let got = get(&server, path, &[]).await;
        assert_eq!((got.status, got.header("cache-control")), (200, "no-cache"), "{path}");
        assert_eq!(got.decoded(), web_file(&path[1..path.find('?').unwrap_or(path.len())]));
    }
    // The page: no-cache with an ETag; asked again with it, 304 and no body; a changed ETag
    // (another version of the client) gets the page.
    for path in [
        "/",
        "/room/6f1c1ad8-7a4c-4e8e-9a47-3d0b8b4a4e6b",
        "/room/6f1c1ad8-7a4c-4e8e-9a47-3d0b8b4a4e6b/game/2",
    ] {
        let first = get(&server, path, &[("accept-encoding", "br")]).await;
        assert_eq!((first.status, first.header("cache-control")), (200, "no-cache"), "{path}");
        let etag = first.header("etag").to_owned();
        assert!(etag.starts_with('"'), "{path}: {etag}");
        let again = get(&server, path, &[("accept-encoding", "br"), ("if-none-match", &etag)]).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), etag);
        assert_eq!(again.header("cache-control"), "no-cache");
        let stale =
            get(&server, path, &[("accept-encoding", "br"), ("if-none-match", "\"0123456789abcdef-br\"")])
                .await;
        assert_eq!(stale.status, 200, "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_or_private_file_is_not_found() {
    let db = TestDb::sqlite();
    let server = Server::start(&db, &[]).await;
    for path in [
        "/nothing.js",
        "/nothing.js?v=0000000000000000",
        "/i18n/xx.js",
        "/app.js.map",
        "/package.json",
        "/tests/page.test.mjs",
        "/node%5Fmodules/a.js",
        "/%2e%2e/Cargo.toml",
        "/i18n/",
        "/README.md",
    ] {
        assert_eq!(get(&server, path, &[]).await.status, 404, "{path}");
    }
    let post = reqwest::Client::new().post(format!("http://{}/app.js", server.addr)).send().await.unwrap();
    assert_eq!(post.status(), 405);
    server.stop().await;
}
