//! Reading the web client's translation tables (`web/i18n/{en,de,fr}.js`) from a test, to check
//! them against the core's lists of ids and codes.

use std::path::Path;

/// The languages of the web client.
pub const LANGUAGES: [&str; 3] = ["en", "de", "fr"];

/// A file of the web client, by its path under `web/`.
pub fn web_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The string value after `key` in a language table, if the key is there.
pub fn value_of<'a>(table: &'a str, key: &str) -> Option<&'a str> {
    let rest = table[table.find(&format!("'{key}':"))? + key.len() + 3..].trim_start();
    let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let body = &rest[1..];
    body.find(quote).map(|end| &body[..end])
}
