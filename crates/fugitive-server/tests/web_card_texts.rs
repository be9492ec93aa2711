//! E1: the event cards' names and texts are presentation, kept with the web client's other
//! translations (`web/i18n/{en,de,fr}.js`, keys `eventCard.F1.name` and `eventCard.F1.text`);
//! the core knows only ids, icons and effects. Every card id of the core has both texts, not
//! empty, in all three languages, no other card has any, and `web/event-cards.js` gives each
//! card the core's icon.

use std::path::Path;

use fugitive_core::EventCard;

fn web_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The string value after `key` in a language table, if the key is there.
fn value_of<'a>(table: &'a str, key: &str) -> Option<&'a str> {
    let rest = table[table.find(&format!("'{key}':"))? + key.len() + 3..].trim_start();
    let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let body = &rest[1..];
    body.find(quote).map(|end| &body[..end])
}

#[test]
fn e1_every_event_card_has_its_name_and_text_in_all_three_languages() {
    let english = web_file("i18n/en.js");
    for language in ["en", "de", "fr"] {
        let table = web_file(&format!("i18n/{language}.js"));
        for card in EventCard::ALL {
            for part in ["name", "text"] {
                let key = format!("eventCard.{}.{part}", card.id());
                let value = value_of(&table, &key).unwrap_or_else(|| panic!("{language}: no {key}"));
                assert!(!value.trim().is_empty(), "{language}: {key} is empty");
                if part == "text" {
                    assert!(value.ends_with('.'), "{language}: {key} is not a sentence");
                    let translated = language == "en" || value_of(&english, &key) != Some(value);
                    assert!(translated, "{language}: {key} is the English text");
                }
            }
        }
        let keys = table.matches("'eventCard.").count();
        assert_eq!(keys, 2 * EventCard::ALL.len(), "{language}: a text for a card the core does not have");
    }
}

#[test]
fn e1_the_web_client_gives_each_card_the_cores_icon() {
    let cards = web_file("event-cards.js");
    for card in EventCard::ALL {
        let icon = serde_json::to_value(card.icon()).expect("an icon serializes");
        let entry = format!("{}: '{}',", card.id(), icon.as_str().expect("a name"));
        assert!(cards.contains(&entry), "web/event-cards.js lacks `{entry}`");
    }
}
