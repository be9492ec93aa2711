//! E1: the event cards' names and texts are presentation, kept with the web client's other
//! translations (`web/i18n/{en,de,fr}.js`, keys `eventCard.F1.name` and `eventCard.F1.text`);
//! the core knows only ids, icons and effects. Every card id of the core has both texts, not
//! empty, in all three languages, no other card has any, and `web/event-cards.js` gives each
//! card the core's icon.

use crate::translations;

use fugitive_core::EventCard;
use translations::{LANGUAGES, value_of, web_file};

#[test]
fn e1_every_event_card_has_its_name_and_text_in_all_three_languages() {
    let english = web_file("i18n/en.js");
    for language in LANGUAGES {
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
