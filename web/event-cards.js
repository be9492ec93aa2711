// The 18 event cards of ../shared/EVENTS.md: each id with its icon (E1). Their names and texts are
// translations like every other string, in i18n/{en,de,fr}.js (`eventCard.F1.name`,
// `eventCard.F1.text`); crates/fugitive-server/tests/it/web_card_texts.rs checks ids, icons and
// texts against fugitive-core's cards.

const ICONS = {
  F1: 'footprints',
  F2: 'footprints',
  F3: 'footprints',
  F4: 'footprints',
  F5: 'footprints',
  F6: 'footprints',
  M1: 'binoculars',
  M2: 'binoculars',
  M3: 'binoculars',
  M4: 'binoculars',
  M5: 'binoculars',
  M6: 'binoculars',
  N1: 'none',
  N2: 'none',
  N3: 'none',
  N4: 'none',
  N5: 'none',
  N6: 'none',};

/// Each card: `{icon}`; its name and text are `t('eventCard.{id}.name')` and `…text`.
export const EVENT_CARDS = Object.fromEntries(Object.entries(ICONS).map(([id, icon]) => [id, { icon }]));
