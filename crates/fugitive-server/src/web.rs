//! The web client's static files. Only the client's own files are served: the extensions it
//! uses, outside the development directories (`tests/`, `node_modules/`, …) and dotfiles, so
//! `package.json`, the browser tests or a `node_modules` are not. Each file is sent with
//! `Last-Modified` and `Cache-Control: no-cache` (the browser revalidates and gets `304`
//! while the file is unchanged), and every response of the server carries a
//! `Content-Security-Policy`, `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: no-referrer`.

use std::path::{Path, PathBuf};

use axum::Router;
use axum::body::Body;
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderName, HeaderValue, Request, StatusCode};
use axum::response::IntoResponse;
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// Extensions of the client's files.
const EXTENSIONS: &[&str] = &["html", "js", "css", "svg", "png", "ico", "webp", "woff2", "webmanifest"];
/// Directories of a development tree that are not the client.
const NOT_SERVED: &[&str] = &["tests", "test-results", "node_modules"];

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

/// Whether the URL path names one of the client's files (`/` is `index.html`).
fn served(path: &str) -> bool {
    let Ok(path) = percent_encoding::percent_decode_str(path).decode_utf8() else {
        return false;
    };
    if path == "/" {
        return true;
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let hidden = segments.iter().any(|s| s.is_empty() || s.starts_with('.') || NOT_SERVED.contains(s));
    let extension = segments.last().and_then(|name| name.rsplit_once('.')).map(|(_, ext)| ext);
    !hidden && extension.is_some_and(|ext| EXTENSIONS.contains(&ext))
}

/// The web client's routes: `/room/{room}`, the replay page `/room/{room}/game/{n}`, a profile's page
/// `/@/{id}`, `/leaderboard` and `/lobby` are its
/// `index.html`, the rest its files.
pub fn routes<S: Clone + Send + Sync + 'static>(dir: &Path) -> Router<S> {
    let files = ServeDir::new(dir).append_index_html_on_directories(true);
    let index = ServeFile::new(dir.join("index.html"));
    let no_cache = HeaderValue::from_static("no-cache");
    Router::new()
        .route_service("/room/{room}", index.clone())
        .route_service("/room/{room}/game/{game}", index.clone())
        .route_service("/@/{profile}", index.clone())
        .route_service("/leaderboard", index.clone())
        .route_service("/lobby", index)
        .fallback(move |request: Request<Body>| {
            let files = files.clone();
            async move {
                if !served(request.uri().path()) {
                    return StatusCode::NOT_FOUND.into_response();
                }
                match files.oneshot(request).await {
                    Ok(response) => response.into_response(),
                    Err(never) => match never {},
                }
            }
        })
        .layer(SetResponseHeaderLayer::overriding(CACHE_CONTROL, no_cache))
}

/// The headers every response carries ([`SECURITY_HEADERS`]).
pub fn security_headers(router: Router) -> Router {
    SECURITY_HEADERS.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_clients_own_files_are_served() {
        for path in ["/", "/index.html", "/app.js", "/style.css", "/i18n/fr.js"] {
            assert!(served(path), "{path}");
        }
        for path in [
            "/package.json",
            "/package-lock.json",
            "/tests/harness.mjs",
            "/tests/x.js",
            "/node_modules/playwright-core/index.js",
            "/node%5Fmodules/a.js",
            "/%6eode_modules/a.js",
            "/.prettierrc.json",
            "/.git/config",
            "/README.md",
            "/i18n/",
            "/tests",
        ] {
            assert!(!served(path), "{path}");
        }
    }
}
