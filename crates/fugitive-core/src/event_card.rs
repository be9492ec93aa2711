//! The 18 event cards of `EVENTS.md`: each is data (id, icon, name and text in English, German
//! and French) plus [`EventCard::effects`], a short list of shared [`Effect`] primitives.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::decision::Decision;
use crate::role::Role;

/// One event card (E1). Serialized as its id, e.g. `"F1"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // The ids are the names; `text()` holds the rest.
pub enum EventCard {
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    M1,
    M2,
    M3,
    M4,
    M5,
    M6,
    N1,
    N2,
    N3,
    N4,
    N5,
    N6,
}

/// Whom an event helps (E1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Icon {
    /// Footprints: helps the Fugitive.
    Footprints,
    /// No icon: helps whoever draws it.
    None,
    /// Binoculars: helps the Marshal.
    Binoculars,
}

impl Icon {
    /// The three icons in Catchup's pile order: 1, 2, 3+ face-down hideouts.
    pub const ALL: [Icon; 3] = [Icon::Footprints, Icon::None, Icon::Binoculars];

    /// 0, 1 or 2, the index of its Catchup pile.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A language of the card texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Language {
    En,
    De,
    Fr,
}

impl Language {
    /// English, German, French.
    pub const ALL: [Language; 3] = [Language::En, Language::De, Language::Fr];
}

/// A card's name and effect text in one language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CardText {
    /// The card's name.
    pub name: &'static str,
    /// What it does.
    pub text: &'static str,
}

/// What a trail event does to the hideout later placed on its space (E4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrailEffect {
    /// F1: up to 5 above the previous card before sprint is needed.
    SafeHouse,
    /// M1: no sprint cards.
    Roadblock,
}

/// The primitives every card is built from. Each runs in order; an [`Effect::Ask`] waits for
/// the player's choice (E3) before the next runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Effect {
    /// `role` owes `count` draws from decks of their choice.
    Draw { role: Role, count: u8 },
    /// `role` skips their next draw.
    SkipDraw { role: Role },
    /// A trail event at the next free space (E4).
    Trail(TrailEffect),
    /// The Marshal's next guess names one number only.
    SingleGuess,
    /// `role` draws the top card of the highest-numbered non-empty deck.
    DrawFromHighest { role: Role },
    /// The Fugitive says which group his most recent face-down hideout came from.
    Eyewitness,
    /// `role` must choose.
    Ask { role: Role, decision: Decision },
}

impl EventCard {
    /// All 18, footprints, binoculars, then no icon.
    pub const ALL: [EventCard; 18] = {
        use EventCard::*;
        [F1, F2, F3, F4, F5, F6, M1, M2, M3, M4, M5, M6, N1, N2, N3, N4, N5, N6]
    };

    /// Its id, e.g. `"F1"`.
    pub fn id(self) -> String {
        format!("{self:?}")
    }

    /// Its icon (E1).
    pub const fn icon(self) -> Icon {
        use EventCard::*;
        match self {
            F1 | F2 | F3 | F4 | F5 | F6 => Icon::Footprints,
            M1 | M2 | M3 | M4 | M5 | M6 => Icon::Binoculars,
            N1 | N2 | N3 | N4 | N5 | N6 => Icon::None,
        }
    }

    /// The six events of one icon.
    pub fn with_icon(icon: Icon) -> impl Iterator<Item = EventCard> {
        EventCard::ALL.into_iter().filter(move |card| card.icon() == icon)
    }

    /// Its effect when `drawer` draws it, as primitives run in order.
    pub(crate) fn effects(self, drawer: Role) -> Vec<Effect> {
        use EventCard::*;
        use Role::{Fugitive, Marshal};
        let ask = |role, decision| Effect::Ask { role, decision };
        match self {
            F1 => vec![Effect::Trail(TrailEffect::SafeHouse)],
            F2 => vec![Effect::Draw { role: Fugitive, count: 2 }],
            F3 => vec![Effect::SingleGuess],
            F4 => vec![ask(Marshal, Decision::BadIntel)],
            F5 => vec![ask(Fugitive, Decision::SmokeScreen)],
            F6 => vec![Effect::DrawFromHighest { role: Fugitive }],
            M1 => vec![Effect::Trail(TrailEffect::Roadblock)],
            M2 => vec![ask(Marshal, Decision::Informant)],
            M3 => vec![ask(Marshal, Decision::Stakeout)],
            M4 => vec![ask(Marshal, Decision::Dragnet)],
            M5 => vec![Effect::Draw { role: Marshal, count: 2 }],
            M6 => vec![Effect::Eyewitness],
            N1 => vec![Effect::Draw { role: drawer, count: 1 }],
            N2 => vec![Effect::SkipDraw { role: drawer.opponent() }],
            N3 | N4 => match drawer {
                Fugitive => (if self == N3 { F5 } else { F1 }).effects(drawer),
                Marshal => (if self == N3 { M2 } else { M1 }).effects(drawer),
            },
            N5 => vec![ask(drawer, Decision::TownGossip)],
            N6 => vec![ask(drawer, Decision::ChangeOfPlans), Effect::Draw { role: drawer, count: 1 }],
        }
    }

    /// Its name and text in `language`.
    pub fn text(self, language: Language) -> CardText {
        let [en, de, fr] = TEXTS[self as usize];
        let (name, text) = match language {
            Language::En => en,
            Language::De => de,
            Language::Fr => fr,
        };
        CardText { name, text }
    }
}

impl fmt::Display for EventCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?} {}", self.text(Language::En).name)
    }
}

type Texts = [(&'static str, &'static str); 3];

/// Name and text of each card in English, German and French, in the order of [`EventCard::ALL`].
const TEXTS: [Texts; 18] = [
    [
        (
            "Safe House",
            "Trail event: the hideout placed on this space may be up to 5 above the previous card before sprint cards are needed (instead of 3).",
        ),
        (
            "Unterschlupf",
            "Fährtenereignis: Das Versteck auf diesem Feld darf bis zu 5 über der vorigen Karte liegen, bevor Sprintkarten nötig sind (statt 3).",
        ),
        (
            "Refuge",
            "Événement de piste : la cachette posée sur cet emplacement peut dépasser la carte précédente de 5 au plus avant qu'il faille des cartes Sprint (au lieu de 3).",
        ),
    ],
    [
        ("Underground Contacts", "The Fugitive draws 2 cards, one at a time, from decks of his choice."),
        (
            "Kontakte im Untergrund",
            "Der Flüchtende zieht 2 Karten, eine nach der anderen, von Stapeln seiner Wahl.",
        ),
        (
            "Contacts clandestins",
            "Le Fugitif pioche 2 cartes, l'une après l'autre, dans les paquets de son choix.",
        ),
    ],
    [
        ("Lie Low", "The Marshal's next guess may name only one number."),
        ("Untertauchen", "Der nächste Tipp der Polizeichefin darf nur eine Zahl nennen."),
        ("Se faire oublier", "La prochaine annonce de la Marshall ne peut nommer qu'un seul nombre."),
    ],
    [
        (
            "Bad Intel",
            "The Marshal puts 1 card of her choice from her hand at the bottom of its deck (which deck is public, the card is not).",
        ),
        (
            "Falsche Spur",
            "Die Polizeichefin legt 1 Karte ihrer Wahl aus ihrer Hand unter ihren Stapel (welcher Stapel, ist öffentlich, die Karte nicht).",
        ),
        (
            "Fausse piste",
            "La Marshall remet 1 carte de son choix de sa main sous son paquet (le paquet est public, la carte non).",
        ),
    ],
    [
        (
            "Smoke Screen",
            "The Fugitive may put 1 card from his hand face down under any face-down hideout as an extra sprint card (the count changes publicly).",
        ),
        (
            "Nebelwand",
            "Der Flüchtende darf 1 Karte aus seiner Hand verdeckt als zusätzliche Sprintkarte unter ein beliebiges verdecktes Versteck legen (die Anzahl ändert sich öffentlich).",
        ),
        (
            "Écran de fumée",
            "Le Fugitif peut glisser 1 carte de sa main, face cachée, sous une cachette face cachée comme carte Sprint supplémentaire (le nombre change publiquement).",
        ),
    ],
    [
        ("Head Start", "The Fugitive draws the top card of the highest-numbered non-empty deck."),
        ("Vorsprung", "Der Flüchtende zieht die oberste Karte des höchsten nicht leeren Stapels."),
        (
            "Longueur d'avance",
            "Le Fugitif pioche la carte du dessus du paquet non vide au numéro le plus élevé.",
        ),
    ],
    [
        ("Roadblock", "Trail event: the hideout placed on this space may not use sprint cards."),
        ("Straßensperre", "Fährtenereignis: Das Versteck auf diesem Feld darf keine Sprintkarten nutzen."),
        (
            "Barrage routier",
            "Événement de piste : la cachette posée sur cet emplacement ne peut pas utiliser de cartes Sprint.",
        ),
    ],
    [
        (
            "Informant",
            "The Marshal picks a face-down hideout; its sprint cards (not the hideout) are revealed.",
        ),
        (
            "Informant",
            "Die Polizeichefin wählt ein verdecktes Versteck; seine Sprintkarten (nicht das Versteck) werden aufgedeckt.",
        ),
        (
            "Indic",
            "La Marshall choisit une cachette face cachée ; ses cartes Sprint (pas la cachette) sont révélées.",
        ),
    ],
    [
        (
            "Stakeout",
            "The Marshal names a range (4–14, 15–28 or 29–41); the Fugitive must say how many face-down hideouts lie in it.",
        ),
        (
            "Observierung",
            "Die Polizeichefin nennt einen Bereich (4–14, 15–28 oder 29–41); der Flüchtende muss sagen, wie viele verdeckte Verstecke darin liegen.",
        ),
        (
            "Surveillance",
            "La Marshall nomme une plage (4–14, 15–28 ou 29–41) ; le Fugitif doit dire combien de cachettes face cachée s'y trouvent.",
        ),
    ],
    [
        (
            "Dragnet",
            "The Marshal immediately makes one extra single-number guess (a miss costs nothing; finding the last hideout wins).",
        ),
        (
            "Ringfahndung",
            "Die Polizeichefin gibt sofort einen zusätzlichen Tipp mit einer einzigen Zahl ab (ein Fehlschlag kostet nichts; findet sie das letzte Versteck, gewinnt sie).",
        ),
        (
            "Coup de filet",
            "La Marshall fait aussitôt une annonce supplémentaire d'un seul nombre (un échec ne coûte rien ; trouver la dernière cachette fait gagner).",
        ),
    ],
    [
        ("Reinforcements", "The Marshal draws 2 cards, one at a time, from decks of her choice."),
        ("Verstärkung", "Die Polizeichefin zieht 2 Karten, eine nach der anderen, von Stapeln ihrer Wahl."),
        ("Renforts", "La Marshall pioche 2 cartes, l'une après l'autre, dans les paquets de son choix."),
    ],
    [
        (
            "Eyewitness",
            "The Fugitive must say which group his most recent face-down hideout came from: 1–3, 4–14, 15–28 or 29–41.",
        ),
        (
            "Augenzeuge",
            "Der Flüchtende muss sagen, aus welcher Gruppe sein jüngstes verdecktes Versteck stammt: 1–3, 4–14, 15–28 oder 29–41.",
        ),
        (
            "Témoin oculaire",
            "Le Fugitif doit dire de quel groupe vient sa dernière cachette face cachée : 1–3, 4–14, 15–28 ou 29–41.",
        ),
    ],
    [
        ("Windfall", "The drawer draws 2 replacement cards instead of 1."),
        ("Glücksfall", "Wer sie zieht, zieht 2 Ersatzkarten statt 1."),
        ("Aubaine", "Qui la tire pioche 2 cartes de remplacement au lieu d'une."),
    ],
    [
        (
            "Detour",
            "The drawer's opponent skips their next draw (one of the Marshal's two on her first turn).",
        ),
        (
            "Umweg",
            "Wer sie zieht: Der Gegenspieler setzt beim nächsten Ziehen einmal aus (beim ersten Zug der Polizeichefin eine ihrer zwei Karten).",
        ),
        (
            "Détour",
            "L'adversaire de qui la tire saute sa prochaine pioche (l'une des deux de la Marshall à son premier tour).",
        ),
    ],
    [
        ("Hot Tip", "Drawn by the Marshal: Informant (M2). Drawn by the Fugitive: Smoke Screen (F5)."),
        (
            "Heißer Tipp",
            "Von der Polizeichefin gezogen: Informant (M2). Vom Flüchtenden gezogen: Nebelwand (F5).",
        ),
        ("Tuyau", "Piochée par la Marshall : Indic (M2). Piochée par le Fugitif : Écran de fumée (F5)."),
    ],
    [
        ("Shortcut", "Drawn by the Fugitive: Safe House (F1). Drawn by the Marshal: Roadblock (M1)."),
        (
            "Abkürzung",
            "Vom Flüchtenden gezogen: Unterschlupf (F1). Von der Polizeichefin gezogen: Straßensperre (M1).",
        ),
        (
            "Raccourci",
            "Piochée par le Fugitif : Refuge (F1). Piochée par la Marshall : Barrage routier (M1).",
        ),
    ],
    [
        (
            "Town Gossip",
            "The drawer looks at the top card of a deck of their choice and may move it to the bottom (which deck and whether it moved are public).",
        ),
        (
            "Dorfklatsch",
            "Wer sie zieht, sieht sich die oberste Karte eines Stapels seiner Wahl an und darf sie unter den Stapel legen (welcher Stapel und ob sie bewegt wurde, ist öffentlich).",
        ),
        (
            "Ragots",
            "Qui la tire regarde la carte du dessus d'un paquet de son choix et peut la mettre dessous (le paquet et le déplacement sont publics).",
        ),
    ],
    [
        (
            "Change of Plans",
            "The drawer may put 1 card from their hand at the bottom of its deck, then draws 1 card.",
        ),
        (
            "Planänderung",
            "Wer sie zieht, darf 1 Karte aus seiner Hand unter ihren Stapel legen und zieht dann 1 Karte.",
        ),
        (
            "Changement de plan",
            "Qui la tire peut remettre 1 carte de sa main sous son paquet, puis pioche 1 carte.",
        ),
    ],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e1_six_cards_per_icon_each_with_three_texts() {
        for icon in Icon::ALL {
            assert_eq!(EventCard::with_icon(icon).count(), 6);
        }
        for card in EventCard::ALL {
            assert_eq!(card.id().len(), 2);
            for language in Language::ALL {
                let text = card.text(language);
                assert!(!text.name.is_empty() && text.text.ends_with('.'), "{card:?} {language:?}");
            }
            assert_ne!(card.text(Language::En).text, card.text(Language::De).text);
            assert_ne!(card.text(Language::En).text, card.text(Language::Fr).text);
        }
        assert_eq!(serde_json::to_string(&EventCard::M4).unwrap(), "\"M4\"");
    }
}
