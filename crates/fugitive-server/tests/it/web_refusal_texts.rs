//! The typed reasons of the game's refusals (`error.reason` of a reply: why an action does not
//! fit the phase, which decision an answer does not fit) are said in the reader's language by
//! the web client (`web/i18n/{en,de,fr}.js`, keys `refusal.draw_first`, …): every reason code
//! of the core has its sentence, not empty and translated, in all three languages, and no other
//! code has one.

use crate::translations;

use fugitive_core::ActionError;
use translations::{LANGUAGES, value_of, web_file};

#[test]
fn every_refusal_reason_has_its_sentence_in_all_three_languages() {
    let english = web_file("i18n/en.js");
    let codes: Vec<&str> = ActionError::reason_codes().collect();
    assert!(codes.len() >= 20, "the core lists its reasons: {codes:?}");
    for language in LANGUAGES {
        let table = web_file(&format!("i18n/{language}.js"));
        for code in &codes {
            let key = format!("refusal.{code}");
            let value = value_of(&table, &key).unwrap_or_else(|| panic!("{language}: no {key}"));
            assert!(!value.trim().is_empty(), "{language}: {key} is empty");
            assert!(value.ends_with('.'), "{language}: {key} is not a sentence");
            let translated = language == "en" || value_of(&english, &key) != Some(value);
            assert!(translated, "{language}: {key} is the English text");
        }
        let keys = table.matches("'refusal.").count();
        assert_eq!(keys, codes.len(), "{language}: a sentence for a reason the core does not have");
    }
}
