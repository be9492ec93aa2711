//! The web client's static files. Only the client's own files are served: the extensions it
//! uses, outside the development directories (`tests/`, `node_modules/`, …) and dotfiles, so
//! `package.json`, the browser tests or a `node_modules` are not. They are read once at
//! start-up ([`assets`]): each with its content hash and its brotli and gzip encodings, sent by
//! `Accept-Encoding` (with `Vary`). A file asked for by its versioned URL (`/app.js?v={hash}`,
//! which is what the pages load) is `immutable` for a year; the pages themselves (`index.html`)
//! and a file asked for without its version are `no-cache` with an `ETag` and `Last-Modified`,
//! so a repeat visit revalidates the page alone and gets `304`. Each path of the client's pages
//! ([`VIEWS`]) gets the page made for its view, which preloads that view's modules and strings.
//! Every response of the server carries a `Content-Security-Policy` (a page's names the hashes
//! of its inline import map and style sheet), `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: no-referrer`.

mod assets;
mod compress;
mod join;
mod render;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use axum::Router;
use axum::body::Body;
use axum::http::header::{
    ACCEPT_ENCODING, ACCEPT_LANGUAGE, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE,
    ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use tower_http::set_header::SetResponseHeaderLayer;

use assets::{Asset, Assets, served};

/// A versioned file's `Cache-Control`: its URL changes with its content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// A page's, and a file's asked for without its version: revalidated on every use.
const REVALIDATE: &str = "no-cache";

/// Scripts, styles, images and sockets from this server only; no plugins, no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// The headers every response carries, those written by hand too (`http::refusal`).
pub const SECURITY_HEADERS: [(HeaderName, &str); 3] =
    [(CONTENT_SECURITY_POLICY, CSP), (X_CONTENT_TYPE_OPTIONS, "nosniff"), (REFERRER_POLICY, "no-referrer")];

/// Why the server refuses to start with this web directory.
#[derive(Debug, thiserror::Error)]
#[error(
    "the web client is not in {0}: no index.html there; set --web-dir (or FUGITIVE_WEB_DIR) to the web/ directory"
)]
pub struct NoWebClient(pub PathBuf);

/// Checks that `dir` holds the web client.
///
/// # Errors
/// [`NoWebClient`] when `dir/index.html` is not a file.
pub fn check(dir: &Path) -> Result<(), NoWebClient> {
    if dir.join("index.html").is_file() { Ok(()) } else { Err(NoWebClient(dir.to_path_buf())) }
}

/// The client's paths that are its page (`index.html`), each with the module that draws it
/// (`app.js` imports it on that path): the page preloads that module's graph and strings. The
/// client's own table of the same is `ROUTES` of `web/routes.js`; `web/tests/modules.test.mjs`
/// fails when the two disagree.
const VIEWS: [(&str, &str); 9] = [
    ("/", "landing.js"),
    ("/index.html", "landing.js"),
    ("/room/{room}", "room.js"),
    ("/room/{room}/game/{game}", "replay.js"),
    ("/@/{profile}", "profile-page.js"),
    ("/leaderboard", "leaderboard.js"),
    ("/lobby", "lobby.js"),
    ("/puzzles", "puzzles.js"),
    ("/tutorial", "tutorial.js"),
];

/// The web client's routes: `/` is the landing page, `/room/{room}` a table, the replay page
/// `/room/{room}/game/{n}`, a profile's page `/@/{id}`, `/leaderboard`, `/lobby`, `/puzzles`
/// and `/tutorial` are its `index.html` ([`VIEWS`]), the rest its files.
pub fn routes<S: Clone + Send + Sync + 'static>(dir: &Path) -> Router<S> {
    let views: Vec<&str> = VIEWS.iter().map(|(_, view)| *view).collect();
    let assets = Assets::load(dir, &views);
    let mut router = Router::new();
    for (path, view) in VIEWS {
        let assets = assets.clone();
        let page = move |request: Request<Body>| {
            let assets = assets.clone();
            async move { respond(&assets, "index.html", Some(view), &request) }
        };
        router = router.route(path, axum::routing::get(page));
    }
    router.fallback(move |request: Request<Body>| {
        let assets = assets.clone();
        async move {
            let Ok(path) = percent_encoding::percent_decode_str(request.uri().path()).decode_utf8() else {
                return StatusCode::NOT_FOUND.into_response();
            };
            if !served(&path) {
                return StatusCode::NOT_FOUND.into_response();
            }
            respond(&assets, path.trim_start_matches('/'), None, &request)
        }
    })
}

/// The file or page `name` (its variant for `view`) as `request` accepts it.
fn respond(assets: &Assets, name: &str, view: Option<&str>, request: &Request<Body>) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let headers = request.headers();
    let (asset, vary, csp, cache) = if let Some(page) = assets.page(name) {
        let (asset, inline) = page.variant(view, header(headers, ACCEPT_LANGUAGE));
        let csp = CSP.replacen("script-src 'self'", &format!("script-src 'self' {}", inline.scripts), 1);
        let csp = if inline.styles.is_empty() {
            csp
        } else {
            csp.replacen("style-src 'self'", &format!("style-src 'self' {}", inline.styles), 1)
        };
        let vary = if page.by_language() { "Accept-Encoding, Accept-Language" } else { "Accept-Encoding" };
        (asset, vary, Some(csp), REVALIDATE)
    } else if let Some(asset) = assets.file(name) {
        let current = request.uri().query().is_some_and(|query| query == format!("v={}", asset.hash));
        (asset, "Accept-Encoding", None, if current { IMMUTABLE } else { REVALIDATE })
    } else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (coding, body) = encoding(asset, header(headers, ACCEPT_ENCODING));
    let etag = match coding {
        Some(coding) => format!("\"{}-{coding}\"", asset.hash),
        None => format!("\"{}\"", asset.hash),
    };
    let mut response = if fresh(asset, headers) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = Response::new(Body::from(body.clone()));
        let extra = response.headers_mut();
        extra.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
        if let Some(coding) = coding {
            extra.insert(CONTENT_ENCODING, HeaderValue::from_static(coding));
        }
        response
    };
    let out = response.headers_mut();
    out.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(VARY, HeaderValue::from_static(vary));
    out.insert(
        LAST_MODIFIED,
        httpdate::fmt_http_date(asset.modified).parse().expect("an HTTP date is a header value"),
    );
    out.insert(ETAG, etag.parse().expect("a hex hash is a header value"));
    if let Some(csp) = csp {
        out.insert(CONTENT_SECURITY_POLICY, csp.parse().expect("the CSP is a header value"));
    }
    response
}

fn header(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The encoding to send: brotli, else gzip, where the request accepts it and the file has it.
fn encoding<'a>(asset: &'a Asset, accept: Option<&str>) -> (Option<&'static str>, &'a axum::body::Bytes) {
    let accepts = |coding: &str| {
        accept.unwrap_or_default().split(',').any(|item| {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let q = parts.find_map(|p| p.trim().strip_prefix("q=")).map_or(1.0, |q| q.parse().unwrap_or(0.0));
            name.eq_ignore_ascii_case(coding) && q > 0.0
        })
    };
    match (&asset.body.br, &asset.body.gzip) {
        (Some(br), _) if accepts("br") => (Some("br"), br),
        (_, Some(gzip)) if accepts("gzip") => (Some("gzip"), gzip),
        _ => (None, &asset.body.identity),
    }
}

/// Whether the browser's copy is this one: its `If-None-Match` names this content (in any
/// encoding), or, without one, its `If-Modified-Since` is not older than the file.
fn fresh(asset: &Asset, headers: &HeaderMap) -> bool {
    if let Some(tags) = header(headers, IF_NONE_MATCH) {
        return tags.split(',').any(|tag| {
            let tag = tag.trim().trim_start_matches("W/").trim_matches('"');
            tag == "*" || tag.split('-').next() == Some(asset.hash.as_str())
        });
    }
    let since = header(headers, IF_MODIFIED_SINCE).and_then(|date| httpdate::parse_http_date(date).ok());
    let modified = asset.modified.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    since
        .and_then(|since| since.duration_since(SystemTime::UNIX_EPOCH).ok())
        .is_some_and(|since| since.as_secs() >= modified)
}

/// The headers every response carries ([`SECURITY_HEADERS`]).
pub fn security_headers(router: Router) -> Router {
    SECURITY_HEADERS.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value)))
    })
}
