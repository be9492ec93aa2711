// German strings of the replay page, loaded with its page (`useStrings('replay')` in
// i18n.js), not on a first visit.
export default {
  'replay.title': 'Wiederholung von Spiel {n}',
  'replay.controls': 'Durch das Spiel blättern',
  'replay.first': 'Anfang',
  'replay.prev': 'Zurück',
  'replay.next': 'Weiter',
  'replay.last': 'Ende',
  'replay.step': 'Zug {i} von {n}',
  'replay.slider': 'Zug',
  'replay.start': 'Das Spiel beginnt.',
  'replay.json': 'Aufzeichnung herunterladen (JSON)',
  'replay.share': 'Link zu dieser Wiederholung kopieren',
  'replay.copied': 'Link kopiert',
  'replay.back': 'Zurück zum Raum',
  'replay.running': 'Dieses Spiel läuft noch: Die Wiederholung gibt es, sobald es vorbei ist.',
  'replay.notFound': 'Dieses Spiel gibt es nicht.',
};
