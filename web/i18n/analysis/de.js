// German strings of the analysis of a finished game (on the replay page), loaded with its page (`useStrings('analysis')` in
// i18n.js), not on a first visit.
export default {
  'analysis.title': 'Analyse',
  'analysis.queued': {
    zero: 'Wartet auf einen freien Rechenplatz: keine andere Berechnung ist vor dieser Analyse.',
    one: 'Wartet auf einen freien Rechenplatz: 1 Berechnung ist vor dieser Analyse.',
    other: 'Wartet auf einen freien Rechenplatz: {n} Berechnungen sind vor dieser Analyse.',
  },
  'analysis.computing': 'Der Computer analysiert diese Partie …',
  'analysis.progress': 'Analysierte Züge: {done} von {total}',
  'analysis.failed': 'Die Analyse konnte nicht geladen werden.',
  'analysis.accuracy': '{who}: Genauigkeit {value} %',
  'analysis.incomplete': 'Der Analyse ging die Zeit aus: den späteren Zügen fehlt die Gewinnchance.',
  'analysis.chart':
    'Diagramm, Zug für Zug: die Chance der Polizeichefin, mit ihrem nächsten Tipp ein Versteck zu finden, die Deckung des Flüchtenden und seine Gewinnchance. Klicke auf einen Punkt, um zu diesem Zug zu springen.',
  'analysis.legend.next': 'Ihr nächster Tipp findet ein Versteck',
  'analysis.legend.cover': 'Seine Deckung (Bits, skaliert)',
  'analysis.legend.wins': 'Er gewinnt (Ausspielungen)',
  'analysis.playouts':
    'Die Chancen zählen jede Welt, die zu dem passt, was die Polizeichefin gesehen hat; die Gewinnchance ist der Anteil von {playouts} Partien, die die starken Computer von jedem Zug an weitergespielt haben.',
  'analysis.guess':
    'Zug {step}: Die Polizeichefin nennt {numbers}, richtig mit {chance}. Beste einzelne Zahl: {best} ({bestChance}); bester Tipp mit mehreren Zahlen: {multi} ({multiChance}).',
  'analysis.hide': 'Zug {step}: {who} lässt ihrem nächsten Tipp {chance}, ein Versteck zu finden (bestenfalls {best}).',
  'analysis.mark.best': 'Bester Zug',
  'analysis.mark.good': 'Gut',
  'analysis.mark.inaccuracy': 'Ungenauigkeit',
  'analysis.mark.mistake': 'Fehler',
  'analysis.mark.blunder': 'Grober Fehler',
  'analysis.estimate.budget':
    '(eine Schätzung: diese Stellung überstieg das Arbeitsbudget des Notizblocks, er zählte Fährten)',
  'analysis.estimate.events':
    '(eine Schätzung: der Notizblock kann einige gezogene Ereignisse nicht lesen, er zählte Fährten)',
  'analysis.estimate.joint':
    '(eine Schätzung: der Tipp nannte mehrere unsichere Zahlen; seine Chance ist eine obere Schranke)',
};
