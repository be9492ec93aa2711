//! The web client's copy of the event cards (`web/event-cards.js`) is the core's data
//! (`EventCard::text`, E1): ids, icons, names and texts in English, German and French. Run with
//! `WRITE_EVENT_CARDS=1` to write the file after changing a card.

use std::path::Path;

use fugitive_core::{EventCard, Language};
use serde_json::json;

fn generated() -> String {
    let mut out = String::from(
        "// The 18 event cards of ../shared/EVENTS.md, generated from crates/fugitive-core/src/event_card.rs by\n\
         // `WRITE_EVENT_CARDS=1 cargo test -p fugitive-server --test web_event_cards` (the test checks they agree).\n\
         export const EVENT_CARDS = {\n",
    );
    for card in EventCard::ALL {
        let mut entry = json!({ "icon": card.icon() });
        for (language, key) in Language::ALL.into_iter().zip(["en", "de", "fr"]) {
            let text = card.text(language);
            entry[key] = json!({ "name": text.name, "text": text.text });
        }
        out.push_str(&format!("  {}: {},\n", card.id(), entry));
    }
    out.push_str("};\n");
    out
}

#[test]
fn e1_the_web_client_shows_the_cores_card_texts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/event-cards.js");
    let want = generated();
    if std::env::var_os("WRITE_EVENT_CARDS").is_some() {
        std::fs::write(&path, &want).expect("web/event-cards.js is writable");
    }
    let have = std::fs::read_to_string(&path).expect("web/event-cards.js exists");
    assert!(
        have == want,
        "web/event-cards.js is stale: run WRITE_EVENT_CARDS=1 cargo test -p fugitive-server --test web_event_cards"
    );
}
