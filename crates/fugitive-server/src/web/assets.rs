//! The web client's files as the server sends them, made once at start-up: each file with its
//! content hash (`?v=` of its versioned URL) and its brotli and gzip encodings, and each HTML
//! entry page rewritten so that every URL it loads is versioned:
//!
//! - `src="/x"` and `href="/x"` of a client file get `?v={hash}`;
//! - an import map sends every module's plain URL (`/i18n.js`, what `import './i18n.js'` resolves
//!   to, from a static or a dynamic import) to its versioned URL, so the modules themselves stay
//!   as they are written and a change to one file changes that file's URL only;
//! - a `<link rel="modulepreload">` (added by the page's inline entry after the first paint,
//!   `render::defer_entries`) names every module the page will run, so the browser asks for
//!   them all at once instead of finding them level by level: the entry's static import graph
//!   and that of the view the path shows (`landing.js` on `/`, `room.js` on a table, which the
//!   entry imports for that path), and the strings that graph uses in one language: the first
//!   visit's table `i18n/{lang}.js` (which `i18n.js` imports dynamically) and each part a module
//!   of the graph asks for (`await useStrings('lobby')`: `i18n/lobby/{lang}.js`). One variant of
//!   the page per view and language, the language picked by `Accept-Language` (see
//!   [`Page::variant`]);
//! - that graph's modules are joined into one file named for the view (`room.joined.js`,
//!   `join.rs`), which the page's import map names for each of them and which is preloaded in
//!   their stead: over HTTP/1.1 each file costs a slow network a round trip on one of six
//!   connections (issue 28). Where they cannot be joined, they are preloaded one by one.
//!
//! Nothing here knows HTTP beyond those names; `web.rs` negotiates and sends.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::body::Bytes;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::compress::{brotli, gzip};
use super::join::{self, resolve};
use super::render;

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

/// An HTML entry page: one variant per view and language.
#[derive(Debug, Clone)]
pub struct Page {
    /// The variants, the default language first within each view.
    variants: Vec<Variant>,
}

/// One view of a page in one language.
#[derive(Debug, Clone)]
struct Variant {
    /// The module that draws the view (`landing.js`), or `None`: the entry's graph alone.
    view: Option<String>,
    lang: String,
    asset: Asset,
    /// The CSP sources of what the page has inline.
    inline: Inline,
}

/// The CSP sources (`'sha256-…'`) of a page's inline import map and style sheets.
#[derive(Debug, Clone, Default)]
pub struct Inline {
    pub scripts: String,
    pub styles: String,
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
    /// Reads, versions and compresses the client in `dir`, its pages for each of `views` (the
    /// modules that draw the client's paths). A file that cannot be read is left out (and
    /// logged): the server still starts, as it did when it read files per request. The same
    /// files (names, sizes and times unchanged) are not compressed twice in one process: tests
    /// start many servers on the same client.
    pub fn load(dir: &Path, views: &[&str]) -> Arc<Assets> {
        type Made = (Vec<Listed>, Vec<String>, Arc<Assets>);
        static LAST: Mutex<Option<Made>> = Mutex::new(None);
        let mut listed = Vec::new();
        walk(dir, "", &mut listed);
        let views: Vec<String> = views.iter().map(|view| (*view).to_owned()).collect();
        let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((files, _, assets)) =
            last.as_ref().filter(|(files, v, _)| *files == listed && *v == views)
        {
            tracing::info!(files = files.len(), "web client as already compressed");
            return assets.clone();
        }
        let assets = Arc::new(Assets::build(&listed, &views));
        *last = Some((listed, views, assets.clone()));
        assets
    }

    fn build(listed: &[Listed], views: &[String]) -> Assets {
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
        let mut joined = HashMap::new();
        for (name, bytes, modified) in html {
            let page = assets.page_of(&String::from_utf8_lossy(&bytes), modified, views, &mut joined);
            assets.pages.insert(name, page);
        }
        assets.files.extend(joined);
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

    /// An HTML page's variants, one per view (and one for the entry alone) and language: the
    /// view's first screen and the page's words drawn in (`render.rs`), the preloads, the entry
    /// started after the first paint; each view's modules joined into one file (`join.rs`), made
    /// once into `joined`.
    fn page_of(
        &self,
        html: &str,
        modified: SystemTime,
        views: &[String],
        joined: &mut HashMap<String, Asset>,
    ) -> Page {
        let newest = self.files.values().map(|asset| asset.modified).fold(modified, SystemTime::max);
        let (html, styles) = self.inline_styles(html);
        let styles = styles.iter().map(|style| csp_source(style)).collect::<Vec<_>>().join(" ");
        let html = self.version_urls(&html);
        let entries = entries(&html);
        let mut languages = self.languages();
        if languages.is_empty() {
            languages.push(DEFAULT_LANGUAGE.to_owned());
        }
        let strings: HashMap<&String, HashMap<String, String>> = languages
            .iter()
            .map(|lang| {
                // The first visit's table and every part's (`i18n/lobby/en.js`): a view's first
                // screen (the lobby's) may use its part's strings.
                let suffix = format!("/{lang}.js");
                let tables = self.files.iter().filter(|(name, _)| {
                    name.strip_prefix(LANGUAGE_DIR).is_some_and(|rest| {
                        rest == &suffix[1..]
                            || rest.strip_suffix(&suffix).is_some_and(|part| !part.contains('/'))
                    })
                });
                let mut strings = HashMap::new();
                for (_, table) in tables {
                    strings.extend(render::strings(&String::from_utf8_lossy(&table.body.identity)));
                }
                (lang, strings)
            })
            .collect();
        let mut variants = Vec::new();
        for view in std::iter::once(None).chain(views.iter().map(Some)) {
            let roots: Vec<String> = entries.iter().cloned().chain(view.cloned()).collect();
            let graph = self.graph(roots.clone());
            let parts = self.string_parts(&graph);
            let one_file = self.joined(&roots, &graph, joined);
            let map = self.import_map(one_file.as_ref());
            let modules: Vec<String> = match &one_file {
                Some((url, _)) => vec![url.clone()],
                None => graph.iter().filter_map(|name| self.versioned(name)).collect(),
            };
            let drawn = render::place_view(&html, view.map(String::as_str));
            for lang in &languages {
                let (drawn, missing) = render::translate(&drawn, lang, &strings[lang]);
                if !missing.is_empty() {
                    tracing::warn!(?view, lang, ?missing, "the page names strings that its language lacks");
                }
                let head = format!("<script type=\"importmap\">{map}</script>\n    ");
                let strings = std::iter::once(format!("{LANGUAGE_DIR}{lang}.js"))
                    .chain(parts.iter().map(|part| format!("{LANGUAGE_DIR}{part}/{lang}.js")));
                let preloads: Vec<String> =
                    modules.iter().cloned().chain(strings.filter_map(|name| self.versioned(&name))).collect();
                let (page, scripts) = render::defer_entries(&insert_before_modules(&drawn, &head), &preloads);
                let scripts = std::iter::once(&map).chain(&scripts).map(|script| csp_source(script));
                variants.push(Variant {
                    view: view.cloned(),
                    lang: lang.clone(),
                    asset: Asset::new("text/html; charset=utf-8", page.into_bytes(), newest),
                    inline: Inline { scripts: scripts.collect::<Vec<_>>().join(" "), styles: styles.clone() },
                });
            }
        }
        Page { variants }
    }

    /// `html` with each `<link rel="stylesheet" href="/x.css" />` of a client file replaced by
    /// the file itself in a `<style>`, and those files' texts: the first paint waits for no
    /// request but the page's. A repeat visit gets the page's `304` all the same.
    fn inline_styles(&self, html: &str) -> (String, Vec<String>) {
        const OPEN: &str = "<link rel=\"stylesheet\" href=\"/";
        let mut out = String::with_capacity(html.len());
        let mut styles = Vec::new();
        let mut rest = html;
        while let Some(at) = rest.find(OPEN) {
            let tail = &rest[at + OPEN.len()..];
            let (Some(quote), Some(close)) = (tail.find('"'), tail.find('>')) else { break };
            let css = self
                .files
                .get(&tail[..quote])
                .filter(|asset| asset.content_type.starts_with("text/css"))
                .map(|asset| String::from_utf8_lossy(&asset.body.identity).into_owned())
                .filter(|css| !css.contains("</"));
            out.push_str(&rest[..at]);
            match css {
                Some(css) => {
                    out.push_str(&format!("<style>{css}</style>"));
                    styles.push(css);
                }
                None => out.push_str(&rest[at..at + OPEN.len() + close + 1]),
            }
            rest = &tail[close + 1..];
        }
        out.push_str(rest);
        (out, styles)
    }

    /// The modules of `graph` (the static graph of `roots`, the page's entries and its view)
    /// joined into one file named for the view (`room.joined.js`; `app.joined.js` for the entry
    /// alone), made once into `made`: its versioned URL and the modules it holds. `None` (and
    /// logged) where they cannot be joined (`join::Refusal`), or are one module.
    fn joined(
        &self,
        roots: &[String],
        graph: &[String],
        made: &mut HashMap<String, Asset>,
    ) -> Option<(String, Vec<String>)> {
        let name = format!("{}.joined.js", roots.last()?.strip_suffix(".js")?);
        if graph.len() < 2 || name.contains('/') || self.files.contains_key(&name) {
            return None;
        }
        let source = |module: &str| {
            let asset = self.files.get(module).filter(|_| module.ends_with(".js"))?;
            Some(String::from_utf8_lossy(&asset.body.identity).into_owned())
        };
        let joined = match join::join(roots, source) {
            Ok(joined) => joined,
            Err(refusal) => {
                tracing::warn!(%refusal, file = name, "a page's modules load one by one: not joined");
                return None;
            }
        };
        let asset = match made.get(&name) {
            Some(asset) if asset.body.identity == joined.source.as_bytes() => asset.clone(),
            Some(_) => {
                tracing::warn!(file = name, "two pages join different modules under one name: not joined");
                return None;
            }
            None => {
                let modified = joined.modules.iter().filter_map(|m| self.files.get(m)).map(|a| a.modified);
                let asset = Asset::new(
                    content_type(&name),
                    joined.source.into_bytes(),
                    modified.fold(SystemTime::UNIX_EPOCH, SystemTime::max),
                );
                made.insert(name.clone(), asset.clone());
                asset
            }
        };
        Some((format!("/{name}?v={}", asset.hash), joined.modules))
    }

    /// `{"imports": {"/app.js": "/app.js?v=…", …}}` for every module, and each module of the
    /// page's joined file, if it has one, sent to that file's URL.
    fn import_map(&self, joined: Option<&(String, Vec<String>)>) -> String {
        let mut imports: BTreeMap<String, String> = self
            .files
            .iter()
            .filter(|(name, _)| name.ends_with(".js"))
            .map(|(name, asset)| (format!("/{name}"), format!("/{name}?v={}", asset.hash)))
            .collect();
        if let Some((url, modules)) = joined {
            imports.extend(modules.iter().map(|module| (format!("/{module}"), url.clone())));
        }
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

    /// Every module `roots` import statically, directly or not, and the roots themselves, in
    /// name order. The entries too: `render::defer_entries` imports them after the first paint.
    fn graph(&self, roots: Vec<String>) -> Vec<String> {
        let mut seen: Vec<String> = roots.clone();
        let mut next = roots;
        while let Some(module) = next.pop() {
            let Some(asset) = self.files.get(&module) else { continue };
            for import in static_imports(&module, &String::from_utf8_lossy(&asset.body.identity)) {
                if self.files.contains_key(&import) && !seen.contains(&import) {
                    seen.push(import.clone());
                    next.push(import);
                }
            }
        }
        let mut order: Vec<String> =
            seen.into_iter().filter(|module| self.files.contains_key(module)).collect();
        order.sort();
        order
    }

    /// The parts of the strings (`i18n/{part}/`) that the modules of `graph` ask for at their top
    /// (`await useStrings('lobby');`), in name order.
    fn string_parts(&self, graph: &[String]) -> Vec<String> {
        let mut parts: Vec<String> = graph
            .iter()
            .filter_map(|module| self.files.get(module))
            .flat_map(|asset| used_strings(&String::from_utf8_lossy(&asset.body.identity)))
            .collect();
        parts.sort();
        parts.dedup();
        parts
    }
}

/// The CSP source that lets the inline `text` run: `'sha256-…'`.
fn csp_source(text: &str) -> String {
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text)))
}

/// The modules a page's module scripts load: `<script type="module" src="/app.js…">`.
fn entries(html: &str) -> Vec<String> {
    html.split("<script type=\"module\" src=\"/")
        .skip(1)
        .filter_map(|tail| tail.split(['"', '?']).next())
        .map(str::to_owned)
        .collect()
}

/// The parts of the strings a module asks for at its top: `await useStrings('lobby');`.
fn used_strings(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("await useStrings('")?.strip_suffix("');"))
        .filter(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .map(str::to_owned)
        .collect()
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
    /// The variant for `view` (the module that draws the path asked for; `None`, or a view the
    /// page was not made for, is the entry's graph alone) and the first language of
    /// `Accept-Language` (`de-CH, fr;q=0.8`) that the client has, else the default one, with the
    /// CSP sources of what it has inline; the same choice `i18n.js` makes from
    /// `navigator.languages`, which the browser also sends as `Accept-Language`. The stored
    /// choice of a reader who picked another language wins in the page, which then loads that
    /// language's strings instead.
    pub fn variant(&self, view: Option<&str>, accept_language: Option<&str>) -> (&Asset, &Inline) {
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
        let view = view.filter(|view| self.variants.iter().any(|v| v.view.as_deref() == Some(*view)));
        let of_view: Vec<&Variant> = self.variants.iter().filter(|v| v.view.as_deref() == view).collect();
        let chosen = wanted.iter().find_map(|(_, tag)| {
            let base = tag.get(..2)?.to_ascii_lowercase();
            of_view.iter().find(|v| v.lang == base)
        });
        let variant = chosen.unwrap_or(&of_view[0]);
        (&variant.asset, &variant.inline)
    }

    /// Whether the variants differ by language.
    pub fn by_language(&self) -> bool {
        self.variants.iter().any(|v| v.lang != self.variants[0].lang)
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
        let variant = |view: Option<&str>, lang: &str| Variant {
            view: view.map(str::to_owned),
            lang: lang.to_owned(),
            asset: Asset::new(
                "text/html; charset=utf-8",
                format!("{}{lang}", view.unwrap_or("")).into_bytes(),
                SystemTime::UNIX_EPOCH,
            ),
            inline: Inline::default(),
        };
        let page = Page {
            variants: [None, Some("lobby.js")]
                .iter()
                .flat_map(|view| ["en", "de", "fr"].map(|lang| variant(*view, lang)))
                .collect(),
        };
        let lang = |header: Option<&str>| page.variant(None, header).0.body.identity.clone();
        assert_eq!(lang(None), "en");
        assert_eq!(lang(Some("de-CH,de;q=0.9,en;q=0.8")), "de");
        assert_eq!(lang(Some("it, fr;q=0.5, en;q=0.4")), "fr");
        assert_eq!(lang(Some("en;q=0.2, FR-ca")), "fr");
        assert_eq!(lang(Some("de;q=0, it")), "en");
        // The view's own variants; a view the page was not made for gets the entry's.
        let view = |view: &str, header: &str| page.variant(Some(view), Some(header)).0.body.identity.clone();
        assert_eq!(view("lobby.js", "fr"), "lobby.jsfr");
        assert_eq!(view("room.js", "de"), "de");
    }

    #[test]
    fn a_module_asks_for_its_strings_at_its_top() {
        let source = "import { t, useStrings } from './i18n.js';\n\nawait useStrings('lobby');\n\
                      // useStrings('not-at-the-top') in a comment\nawait useStrings(part);\n";
        assert_eq!(used_strings(source), ["lobby"]);
    }
}
