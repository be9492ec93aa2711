//! What the server draws into a page before any of its scripts runs, so that the first paint
//! shows the page's words in the reader's language and, on the landing page and the lobby, the
//! whole first screen, and waits for no module (issue 28):
//!
//! - an element with `data-t="key"` gets the string `key` of the language's tables
//!   (`i18n/{lang}.js`, the first visit's, and its parts', `i18n/{part}/{lang}.js`) as its text,
//!   and `<html lang>` is the language;
//! - `<template data-view="landing.js">…</template>` holds the first screen of a view as that
//!   view's module draws it: it goes into `<main id="app">` of that view's page, and every such
//!   template is left out of every page;
//! - the entry script (`<script type="module" src="/app.js">`) becomes an inline module that,
//!   once the browser reports the page's first contentful paint (at once in a hidden tab, where
//!   nothing is painted, or where paint timing is missing; after [`PAINT_AT_MOST_MS`] at most),
//!   adds the page's `<link rel="modulepreload">`s and imports the entry: the first paint waits
//!   for the page alone, and shares its bandwidth with no module (issue 28). Measured against
//!   the same links in the head (BENCHMARKS.md, stop 35): those cost no task after the first
//!   paint, but delayed Lighthouse's FCP on 19 pages of 20 and its LCP on 16. Waiting for the
//!   paint's report, not for a frame (`requestAnimationFrame`, then a task): a frame's tasks
//!   may run before its paint is presented, and then the modules were asked for before the first
//!   contentful paint (stop 37: the lobby's FCP 0.64 → 0.85–0.90 s in two runs).
//!
//! Pure text in, text out; `assets.rs` calls these once per page, view and language at start-up.

use std::collections::HashMap;

/// The element that holds a view.
const MAIN: &str = "<main id=\"app\"";
const TEMPLATE: &str = "<template data-view=\"";
const TEMPLATE_END: &str = "</template>";
const ENTRY: &str = "<script type=\"module\" src=\"";
/// How long the entry waits for the page's first contentful paint before it starts anyway.
const PAINT_AT_MOST_MS: u32 = 2000;

/// The plain strings of a table (`export default { 'key': 'text', … }`, as prettier writes it):
/// each single- or double-quoted value at the start of an entry. Plural forms (objects) are not
/// read: a page's `data-t` names plain strings.
pub fn strings(source: &str) -> HashMap<String, String> {
    let mut found = HashMap::new();
    let mut rest = source;
    while let Some((key, after)) = next_key(rest) {
        rest = after;
        let value = after.trim_start();
        if let Some((text, tail)) = literal(value) {
            found.insert(key, text);
            rest = tail;
        }
    }
    found
}

/// The next `'key':` at the start of a line, and what follows its colon.
fn next_key(source: &str) -> Option<(String, &str)> {
    let mut rest = source;
    loop {
        let line_end = rest.find('\n').map_or(rest.len(), |at| at + 1);
        let line = rest[..line_end].trim_start();
        if let Some((key, tail)) = literal(line) {
            if tail.starts_with(':') {
                // Where the colon is in `rest`: `tail` ends where the line does.
                let at = line_end - tail.len() + 1;
                return Some((key, &rest[at..]));
            }
        }
        if line_end == rest.len() {
            return None;
        }
        rest = &rest[line_end..];
    }
}

/// A JavaScript string literal at the start of `text` (`'…'` or `"…"`, with `\` escapes), and
/// what follows it.
fn literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c if c == quote => return Some((out, &text[1 + at + 1..])),
            '\n' => return None,
            c => out.push(c),
        }
    }
    None
}

/// `html` in `lang`: each `data-t="key"` element's text (up to its first child element, the
/// spaces around it kept) replaced by `strings[key]` (escaped), and `<html lang>`. The keys
/// that `strings` lacks keep the page's own text; they are returned.
pub fn translate(html: &str, lang: &str, strings: &HashMap<String, String>) -> (String, Vec<String>) {
    let html = html.replacen("<html lang=\"en\"", &format!("<html lang=\"{lang}\""), 1);
    let mut out = String::with_capacity(html.len());
    let mut missing = Vec::new();
    let mut rest = html.as_str();
    while let Some(at) = rest.find("data-t=\"") {
        let key_start = at + "data-t=\"".len();
        let Some(key_len) = rest[key_start..].find('"') else { break };
        let key = &rest[key_start..key_start + key_len];
        // The element's text: from the end of its start tag to the next tag.
        let (Some(open_end), Some(text_len)) = (
            rest[key_start..].find('>').map(|i| key_start + i + 1),
            rest[key_start..].find('>').and_then(|i| rest[key_start + i + 1..].find('<')),
        ) else {
            break;
        };
        out.push_str(&rest[..open_end]);
        let own = &rest[open_end..open_end + text_len];
        match strings.get(key) {
            // The text's own spaces around it stay: `<label data-t="k">You play <select>`.
            Some(text) => {
                let start = own.len() - own.trim_start().len();
                let end = start + own.trim().len();
                out.push_str(&own[..start]);
                out.push_str(&escape(text));
                out.push_str(&own[end..]);
            }
            None => {
                missing.push(key.to_owned());
                out.push_str(own);
            }
        }
        rest = &rest[open_end + text_len..];
    }
    out.push_str(rest);
    (out, missing)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `html` with the template of `view` (if it has one) inside `<main id="app">`, and without
/// any view's template.
pub fn place_view(html: &str, view: Option<&str>) -> String {
    let mut page = String::with_capacity(html.len());
    let mut screen = None;
    let mut rest = html;
    while let Some(at) = rest.find(TEMPLATE) {
        let Some(len) = rest[at..].find(TEMPLATE_END) else { break };
        let template = &rest[at..at + len];
        let name_end = template[TEMPLATE.len()..].find('"').map_or(0, |i| TEMPLATE.len() + i);
        let body = template.find('>').map_or("", |i| &template[i + 1..]);
        if view.is_some_and(|view| view == &template[TEMPLATE.len()..name_end]) {
            screen = Some(body.trim().to_owned());
        }
        page.push_str(rest[..at].trim_end_matches([' ', '\n']));
        rest = &rest[at + len + TEMPLATE_END.len()..];
    }
    page.push_str(rest);
    let (Some(screen), Some(main)) = (screen, page.find(MAIN)) else { return page };
    let Some(open_end) = page[main..].find('>').map(|i| main + i + 1) else { return page };
    format!("{}{screen}{}", &page[..open_end], &page[open_end..])
}

/// `html` with each entry script (`<script type="module" src="/app.js?v=…"></script>`) turned
/// into an inline module that, after the first contentful paint, adds a `<link rel="modulepreload">` for
/// each of `preloads` (versioned URLs, asked for at once rather than found level by level) and
/// imports the entry's plain URL (which the import map versions); and those inline modules'
/// texts, for the CSP.
pub fn defer_entries(html: &str, preloads: &[String]) -> (String, Vec<String>) {
    let mut out = String::with_capacity(html.len());
    let mut inline = Vec::new();
    let mut rest = html;
    let list = serde_json::to_string(preloads).expect("a list of strings is JSON");
    while let Some(at) = rest.find(ENTRY) {
        let src_start = at + ENTRY.len();
        let Some(src_len) = rest[src_start..].find('"') else { break };
        let Some(end) = rest[src_start..].find("</script>").map(|i| src_start + i + "</script>".len()) else {
            break;
        };
        let src = &rest[src_start..src_start + src_len];
        let plain = src.split('?').next().unwrap_or(src);
        // Only the first entry preloads: the list is the page's.
        let preload = if inline.is_empty() { list.as_str() } else { "[]" };
        let script = format!(
            "let started = false;\n      \
             const start = () => {{\n        \
             if (started) return;\n        \
             started = true;\n        \
             for (const href of {preload}) {{\n          \
             document.head.append(Object.assign(document.createElement('link'), {{ rel: 'modulepreload', href }}));\n        \
             }}\n        \
             import('{plain}');\n      \
             }};\n      \
             if (document.visibilityState === 'visible' && PerformanceObserver.supportedEntryTypes?.includes('paint')) {{\n        \
             new PerformanceObserver((list) => list.getEntriesByName('first-contentful-paint').length && setTimeout(start)).observe({{ type: 'paint', buffered: true }});\n        \
             setTimeout(start, {PAINT_AT_MOST_MS});\n      \
             }} else start();"
        );
        out.push_str(&rest[..at]);
        out.push_str(&format!("<script type=\"module\">\n      {script}\n    </script>"));
        inline.push(format!("\n      {script}\n    "));
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, inline)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tables_plain_strings_are_read() {
        let source = "// English.\nexport default {\n  'nav.skip': 'Skip to the game',\n  'landing.tagline':\n    \
                      'A card game: the Marshal\\'s \"hunt\"',\n  'n.cards': { one: '1 card', other: '{n} cards' },\n  \
                      \"x.y\": \"double\",\n};\n";
        let strings = strings(source);
        assert_eq!(strings["nav.skip"], "Skip to the game");
        assert_eq!(strings["landing.tagline"], "A card game: the Marshal's \"hunt\"");
        assert_eq!(strings["x.y"], "double");
        assert!(!strings.contains_key("n.cards"));
    }

    #[test]
    fn marked_text_is_translated_and_escaped_and_a_missing_key_keeps_the_text() {
        let strings: HashMap<String, String> =
            [("a".to_owned(), "Spiel <& \"Jagd\">".to_owned())].into_iter().collect();
        let html = "<html lang=\"en\"><p class=\"x\" data-t=\"a\">Game</p><b data-t=\"b\">Kept</b></html>";
        let (out, missing) = translate(html, "de", &strings);
        assert_eq!(
            out,
            "<html lang=\"de\"><p class=\"x\" data-t=\"a\">Spiel &lt;&amp; &quot;Jagd&quot;&gt;</p>\
             <b data-t=\"b\">Kept</b></html>"
        );
        assert_eq!(missing, ["b"]);
        let (out, _) = translate("<label data-t=\"a\">\n  Game <select></select></label>", "de", &strings);
        assert_eq!(
            out,
            "<label data-t=\"a\">\n  Spiel &lt;&amp; &quot;Jagd&quot;&gt; <select></select></label>"
        );
    }

    #[test]
    fn a_views_template_goes_into_main_and_no_template_stays() {
        let html = "<body>\n<main id=\"app\" tabindex=\"-1\"></main>\n    <template data-view=\"landing.js\">\n  \
                    <div>first</div>\n</template>\n    <template data-view=\"lobby.js\"><i>l</i></template>\n</body>";
        assert_eq!(
            place_view(html, Some("landing.js")),
            "<body>\n<main id=\"app\" tabindex=\"-1\"><div>first</div></main>\n</body>"
        );
        assert_eq!(
            place_view(html, Some("room.js")),
            "<body>\n<main id=\"app\" tabindex=\"-1\"></main>\n</body>"
        );
        assert_eq!(place_view(html, None), place_view(html, Some("room.js")));
    }

    #[test]
    fn the_entry_is_imported_and_its_modules_preloaded_after_the_first_paint() {
        let html = "<head><script type=\"module\" src=\"/app.js?v=0123\"></script></head>";
        let (out, inline) = defer_entries(html, &["/app.js?v=0123".to_owned(), "/dom.js?v=4567".to_owned()]);
        assert!(!out.contains("src="), "{out}");
        assert!(out.contains("import('/app.js')"), "{out}");
        assert!(out.contains("for (const href of [\"/app.js?v=0123\",\"/dom.js?v=4567\"])"), "{out}");
        assert!(out.contains("rel: 'modulepreload'"), "{out}");
        assert!(out.contains("'first-contentful-paint'"), "{out}");
        assert_eq!(inline.len(), 1);
        assert!(out.contains(&format!("<script type=\"module\">{}</script>", inline[0])), "{out}");
    }
}
