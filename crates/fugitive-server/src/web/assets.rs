//! The web client's files as the server sends them, made once at start-up: each file with its
//! content hash (`?v=` of its versioned URL) and its brotli and gzip encodings, and each HTML
//! entry page rewritten so that every URL it loads is versioned:
//!
//! - `src="/x"` and `href="/x"` of a client file get `?v={hash}`;
//! - an import map sends every module's plain URL (`/i18n.js`, what `import './i18n.js'` resolves
//!   to, from a static or a dynamic import) to its versioned URL, so the modules themselves stay
//!   as they are written and a change to one file changes that file's URL only;
//! - `<link rel="modulepreload">` names every module of the entry's static import graph, so the
//!   browser asks for them all at once instead of finding them level by level; and the strings of
//!   one language (`i18n/{lang}.js`, which `i18n.js` imports dynamically): one variant of the page
//!   per language, picked by `Accept-Language` (see [`Page::variant`]).
//!
//! Nothing here knows HTTP beyond those names; `web.rs` negotiates and sends.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::body::Bytes;
use base64::Engine;
use sha2::{Digest, Sha256};

/// Extensions of the client's files.
const EXTENSIONS: &[&str] = &["html", "js", "css", "svg", "png", "ico", "webp", "woff2", "webmanifest"];
/// Directories of a development tree that are not the client.
const NOT_SERVED: &[&str] = &["tests", "test-results", "node_modules"];
/// Where the strings of each language are: `i18n/en.js`, `i18n/de.js`, …
const LANGUAGE_DIR: &str = "i18n/";
/// The language whose page is sent when `Accept-Language` names none of the others.
const DEFAULT_LANGUAGE: &str = "en";

/// One representation's bytes: as written, and compressed where that is smaller.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub identity: Bytes,
    pub gzip: Option<Bytes>,
    pub br: Option<Bytes>,
}

/// One file as served.
#[derive(Debug, Clone)]
pub struct Asset {
    pub content_type: &'static str,
    /// The first 16 hex digits of the SHA-256 of what is sent: its version and its ETag.
    pub hash: String,
    /// The newest modification time of what it was made from.
    pub modified: SystemTime,
    pub body: Encoded,
}

/// An HTML entry page: one variant per language.
#[derive(Debug, Clone)]
pub struct Page {
    /// `(language, page, CSP source of its inline import map)`, the default language first.
    variants: Vec<(String, Asset, String)>,
}

/// The web client: its files by URL path without the leading `/` (`app.js`, `i18n/en.js`) and
/// its HTML entry pages (`index.html`).
#[derive(Debug, Default)]
pub struct Assets {
    files: HashMap<String, Asset>,
    pages: HashMap<String, Page>,
}

/// Whether the URL path (percent-decoded) names one of the client's files: the extensions it
/// uses, outside the development directories and dotfiles. `/` is `index.html`.
pub fn served(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let hidden = segments.iter().any(|s| s.is_empty() || s.starts_with('.') || NOT_SERVED.contains(s));
    let extension = segments.last().and_then(|name| name.rsplit_once('.')).map(|(_, ext)| ext);
    !hidden && extension.is_some_and(|ext| EXTENSIONS.contains(&ext))
}

impl Assets {
    /// Reads, versions and compresses the client in `dir`. A file that cannot be read is left
    /// out (and logged): the server still starts, as it did when it read files per request.
    /// The same files (names, sizes and times unchanged) are not compressed twice in one
    /// process: tests start many servers on the same client.
    pub fn load(dir: &Path) -> Arc<Assets> {
        static LAST: Mutex<Option<(Vec<Listed>, Arc<Assets>)>> = Mutex::new(None);
        let mut listed = Vec::new();
        walk(dir, "", &mut listed);
        let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((files, assets)) = last.as_ref().filter(|(files, _)| *files == listed) {
            tracing::info!(files = files.len(), "web client as already compressed");
            return assets.clone();
        }
        let assets = Arc::new(Assets::build(&listed));
        *last = Some((listed, assets.clone()));
        assets
    }

    fn build(listed: &[Listed]) -> Assets {
        let started = std::time::Instant::now();
        let raw = listed.iter().filter_map(|file| match std::fs::read(&file.path) {
            Ok(bytes) => Some((file.url.clone(), bytes, file.modified)),
            Err(error) => {
                tracing::warn!(file = %file.path.display(), %error, "web file not read");
                None
            }
        });
        let mut assets = Assets::default();
        let mut html = Vec::new();
        for (name, bytes, modified) in raw {
            if name.ends_with(".html") {
                html.push((name, bytes, modified));
            } else {
                let asset = Asset::new(content_type(&name), bytes, modified);
                assets.files.insert(name, asset);
            }
        }
        for (name, bytes, modified) in html {
            let page = assets.page_of(&String::from_utf8_lossy(&bytes), modified);
            assets.pages.insert(name, page);
        }
        let sent = |a: &Asset| a.body.br.as_ref().unwrap_or(&a.body.identity).len();
        tracing::info!(
            files = assets.files.len(),
            pages = assets.pages.len(),
            bytes = assets.files.values().map(|a| a.body.identity.len()).sum::<usize>(),
            brotli = assets.files.values().map(sent).sum::<usize>(),
            ms = started.elapsed().as_millis(),
            "web client read and compressed"
        );
        assets
    }

    /// A file that is not a page, by URL path without the leading `/`.
    pub fn file(&self, name: &str) -> Option<&Asset> {
        self.files.get(name)
    }

    /// An HTML entry page, by URL path without the leading `/`.
    pub fn page(&self, name: &str) -> Option<&Page> {
        self.pages.get(name)
    }

    /// The versioned URL of a file: `/app.js?v=…`.
    fn versioned(&self, name: &str) -> Option<String> {
        self.files.get(name).map(|asset| format!("/{name}?v={}", asset.hash))
    }

    /// The languages of the client, the default first.
    fn languages(&self) -> Vec<String> {
        let mut languages: Vec<String> = self
            .files
            .keys()
            .filter_map(|name| name.strip_prefix(LANGUAGE_DIR)?.strip_suffix(".js"))
            .filter(|lang| !lang.contains('/'))
            .map(str::to_owned)
            .collect();
        languages.sort_by_key(|lang| (lang != DEFAULT_LANGUAGE, lang.clone()));
        languages
    }

    /// An HTML page's variants, one per language.
    fn page_of(&self, html: &str, modified: SystemTime) -> Page {
        let newest = self.files.values().map(|asset| asset.modified).fold(modified, SystemTime::max);
        let map = self.import_map();
        let csp_source =
            format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&map)));
        let html = self.version_urls(html);
        let graph = self.entry_graph(&html);
        let mut languages = self.languages();
        if languages.is_empty() {
            languages.push(DEFAULT_LANGUAGE.to_owned());
        }
        let variants = languages
            .into_iter()
            .map(|lang| {
                let mut head = format!("<script type=\"importmap\">{map}</script>\n    ");
                let preloads = graph.iter().cloned().chain(Some(format!("{LANGUAGE_DIR}{lang}.js")));
                for url in preloads.filter_map(|name| self.versioned(&name)) {
                    head.push_str(&format!("<link rel=\"modulepreload\" href=\"{url}\" />\n    "));
                }
                let page = insert_before_modules(&html, &head);
                (lang, Asset::new("text/html; charset=utf-8", page.into_bytes(), newest), csp_source.clone())
            })
            .collect();
        Page { variants }
    }

    /// `{"imports": {"/app.js": "/app.js?v=…", …}}` for every module.
    fn import_map(&self) -> String {
        let imports: BTreeMap<String, String> = self
            .files
            .iter()
            .filter(|(name, _)| name.ends_with(".js"))
            .map(|(name, asset)| (format!("/{name}"), format!("/{name}?v={}", asset.hash)))
            .collect();
        serde_json::json!({ "imports": imports }).to_string()
    }

    /// `src="/x"` and `href="/x"` of the client's files, versioned.
    fn version_urls(&self, html: &str) -> String {
        let mut out = String::with_capacity(html.len());
        let mut rest = html;
        while let Some(at) =
            ["src=\"/", "href=\"/"].iter().filter_map(|attr| rest.find(attr).map(|i| i + attr.len())).min()
        {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let end = rest.find('"').unwrap_or(rest.len());
            match self.versioned(&rest[..end]) {
                Some(url) => out.push_str(&url[1..]),
                None => out.push_str(&rest[..end]),
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// Every module the page's module scripts import, directly or not, without the entries.
    fn entry_graph(&self, html: &str) -> Vec<String> {
        let entries: Vec<String> = html
            .split("<script type=\"module\" src=\"/")
            .skip(1)
            .filter_map(|tail| tail.split(['"', '?']).next())
            .map(str::to_owned)
            .collect();
        let mut seen: Vec<String> = entries.clone();
        let mut order = Vec::new();
        let mut next = entries.clone();
        while let Some(module) = next.pop() {
            let Some(asset) = self.files.get(&module) else { continue };
            for import in static_imports(&module, &String::from_utf8_lossy(&asset.body.identity)) {
                if self.files.contains_key(&import) && !seen.contains(&import) {
                    seen.push(import.clone());
                    order.push(import.clone());
                    next.push(import);
                }
            }
        }
        order.sort();
        order
    }
}

impl Asset {
    fn new(content_type: &'static str, bytes: Vec<u8>, modified: SystemTime) -> Asset {
        let hash = Sha256::digest(&bytes).iter().take(8).map(|b| format!("{b:02x}")).collect();
        let compressible = !matches!(content_type, "image/png" | "image/webp" | "font/woff2");
        let smaller = |encoded: Vec<u8>| (encoded.len() < bytes.len()).then(|| Bytes::from(encoded));
        let (gzip, br) =
            if compressible { (smaller(gzip(&bytes)), smaller(brotli(&bytes))) } else { (None, None) };
        Asset { content_type, hash, modified, body: Encoded { identity: Bytes::from(bytes), gzip, br } }
    }
}

impl Page {
    /// The variant for the first language of `Accept-Language` (`de-CH, fr;q=0.8`) that the
    /// client has, else the default one, with the CSP source of its import map; the same
    /// choice `i18n.js` makes from `navigator.languages`, which the browser also sends as
    /// `Accept-Language`. The stored choice of a reader who picked another language wins in
    /// the page, which then loads that language's strings instead.
    pub fn variant(&self, accept_language: Option<&str>) -> (&Asset, &str) {
        let mut wanted: Vec<(f32, &str)> = accept_language
            .unwrap_or_default()
            .split(',')
            .filter_map(|item| {
                let mut parts = item.split(';');
                let tag = parts.next()?.trim();
                let q =
                    parts.find_map(|p| p.trim().strip_prefix("q=")).map_or(Some(1.0), |q| q.parse().ok())?;
                Some((q, tag))
            })
            .filter(|(q, _)| *q > 0.0)
            .collect();
        wanted.sort_by(|a, b| b.0.total_cmp(&a.0));
        let chosen = wanted.iter().find_map(|(_, tag)| {
            let base = tag.get(..2)?.to_ascii_lowercase();
            self.variants.iter().find(|(lang, _, _)| *lang == base)
        });
        let (_, asset, csp) = chosen.unwrap_or(&self.variants[0]);
        (asset, csp)
    }

    /// Whether the variants differ by language.
    pub fn by_language(&self) -> bool {
        self.variants.len() > 1
    }
}

/// A client file found in the web directory.
#[derive(Debug, PartialEq)]
struct Listed {
    /// Its URL path without the leading `/`.
    url: String,
    path: PathBuf,
    len: u64,
    modified: SystemTime,
}

/// Every client file under `dir`.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<Listed>) {
    let mut entries: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().collect(),
        Err(error) => {
            tracing::warn!(dir = %dir.display(), %error, "web directory not read");
            return;
        }
    };
    // In name order, so that two listings of the same files are equal.
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let Ok(name) = entry.file_name().into_string() else { continue };
        let url = format!("{prefix}{name}");
        let path = entry.path();
        if path.is_dir() {
            if !name.starts_with('.') && !NOT_SERVED.contains(&name.as_str()) {
                walk(&path, &format!("{url}/"), out);
            }
        } else if served(&format!("/{url}")) {
            let Ok(metadata) = entry.metadata() else { continue };
            let modified = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push(Listed { url, path, len: metadata.len(), modified });
        }
    }
}

/// The specifiers of a module's static imports and re-exports (`import … from './x.js'`,
/// `import './x.js'`, `export … from './x.js'`), resolved against the module's own path.
/// Prettier-formatted modules put each on its own statement; strings that merely contain
/// `from '…'` resolve to no file and are dropped by the caller.
fn static_imports(module: &str, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for keyword in ["from ", "import "] {
        for (at, _) in source.match_indices(keyword) {
            let tail = &source[at + keyword.len()..];
            let Some(quote) = tail.chars().next().filter(|c| *c == '\'' || *c == '"') else { continue };
            let Some(end) = tail[1..].find(quote) else { continue };
            let specifier = &tail[1..=end];
            if specifier.starts_with("./") || specifier.starts_with("../") || specifier.starts_with('/') {
                found.push(resolve(module, specifier));
            }
        }
    }
    found
}

/// `specifier` resolved against the module path `module` (`panels/a.js` + `../dom.js` = `dom.js`).
fn resolve(module: &str, specifier: &str) -> String {
    let mut parts: Vec<&str> =
        if specifier.starts_with('/') { Vec::new() } else { module.split('/').collect::<Vec<_>>() };
    parts.pop();
    for segment in specifier.trim_start_matches('/').split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            segment => parts.push(segment),
        }
    }
    parts.join("/")
}

/// `insert` put before the page's first module script (or `</head>`): an import map must come
/// before any module is loaded.
fn insert_before_modules(html: &str, insert: &str) -> String {
    let at = html.find("<script type=\"module\"").or_else(|| html.find("</head>")).unwrap_or(0);
    format!("{}{insert}{}", &html[..at], &html[at..])
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    encoder.write_all(bytes).and_then(|()| encoder.finish()).unwrap_or_default()
}

/// Brotli's best (quality 11) in a release build: 9 % smaller than quality 5 for this client, at
/// 15 times its time (1.5 s for the whole client at start-up). A debug build, which every test
/// starts again and again, and whose generic brotli code is not optimised, uses quality 5.
const BROTLI_QUALITY: i32 = if cfg!(debug_assertions) { 5 } else { 11 };

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params =
        brotli::enc::BrotliEncoderParams { quality: BROTLI_QUALITY, lgwin: 22, ..Default::default() };
    // Reading from a slice and writing to a Vec cannot fail.
    match brotli::BrotliCompress(&mut &bytes[..], &mut out, &params) {
        Ok(_) => out,
        Err(_) => Vec::new(),
    }
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
            "/.prettierrc.json",
            "/.git/config",
            "/README.md",
            "/i18n/",
            "/tests",
        ] {
            assert!(!served(path), "{path}");
        }
    }

    #[test]
    fn imports_are_resolved_against_the_importing_module() {
        let source = "import { h } from '../dom.js';\nimport './side.js';\nexport { x } from \"./x.js\";\n\
                      const s = 'a word from nowhere';\nimport('./lazy.js');";
        let mut found = static_imports("panels/a.js", source);
        found.sort();
        assert_eq!(found, ["dom.js", "panels/side.js", "panels/x.js"]);
        assert_eq!(resolve("app.js", "/i18n/en.js"), "i18n/en.js");
    }

    #[test]
    fn the_page_for_the_readers_first_language_that_the_client_has() {
        let asset = |text: &str| {
            Asset::new("text/html; charset=utf-8", text.as_bytes().to_vec(), SystemTime::UNIX_EPOCH)
        };
        let page = Page {
            variants: ["en", "de", "fr"].iter().map(|l| (l.to_string(), asset(l), String::new())).collect(),
        };
        let lang = |header: Option<&str>| page.variant(header).0.body.identity.clone();
        assert_eq!(lang(None), "en");
        assert_eq!(lang(Some("de-CH,de;q=0.9,en;q=0.8")), "de");
        assert_eq!(lang(Some("it, fr;q=0.5, en;q=0.4")), "fr");
        assert_eq!(lang(Some("en;q=0.2, FR-ca")), "fr");
        assert_eq!(lang(Some("de;q=0, it")), "en");
    }
}
