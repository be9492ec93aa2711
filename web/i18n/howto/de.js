// German strings of How to play, loaded with its page (`useStrings('howto')` in
// i18n.js), not on a first visit.
export default {
  'howto.close': 'Schließen',
  'howto.section.goal.title': 'Ziel',
  'howto.section.goal.text':
    'Der Flüchtende legt eine Reihe verdeckter Verstecke von 0 in Richtung 42. Er gewinnt, sobald er die 42 spielt. Die Polizeichefin gewinnt, wenn sie alle Verstecke der Kartenreihe aufdeckt, bevor er entkommt.',
  'howto.section.cards.title': 'Karten',
  'howto.section.cards.text':
    'Die Karten tragen die Nummern 0 bis 42. Jede hat außerdem einen Sprintwert: gerade Zahlen +2, ungerade +1. Der Flüchtende beginnt mit 1, 2, 3, 42 und fünf Karten von den Stapeln, die Polizeichefin ohne Karten. Stapel 1 enthält 4–14, Stapel 2 enthält 15–28, Stapel 3 enthält 29–41.',
  'howto.section.fugitive.title': 'Der Flüchtende',
  'howto.section.fugitive.text':
    'In seinem ersten Zug legt er ein oder zwei Verstecke und zieht keine Karte. In jedem weiteren Zug zieht er eine Karte von einem beliebigen Stapel und legt dann ein Versteck oder passt.',
  'howto.section.placing.title': 'Ein Versteck legen',
  'howto.section.placing.text':
    'Ein neues Versteck muss höher sein als die letzte Karte der Reihe, und höchstens um 3. Um weiter zu kommen, sprintet er: Er legt weitere Handkarten verdeckt unter das neue Versteck, und ihre Sprintwerte kommen zu den 3 hinzu. Alle sehen, wie viele Sprintkarten unter einem Versteck liegen, aber nicht welche. Die 42 wird offen gelegt und kann nicht zum Sprinten verwendet werden.',
  'howto.section.marshal.title': 'Die Polizeichefin',
  'howto.section.marshal.text':
    'In ihrem ersten Zug zieht sie zwei Karten, danach jeweils eine. Dann nennt sie eine oder mehrere Zahlen von 1 bis 41. Ist jede genannte Zahl ein verdecktes Versteck, werden alle mit ihren Sprintkarten aufgedeckt. Ist auch nur eine falsch, wird nichts aufgedeckt und sie erfährt nur, dass der Tipp falsch war. Die Karten auf ihrer Hand sind Zahlen, die kein Versteck sein können.',
  'howto.section.manhunt.title': 'Hetzjagd',
  'howto.section.manhunt.text':
    'Spielt der Flüchtende die 42 und wurde noch kein Versteck von 30 oder höher gefunden, bekommt die Polizeichefin eine letzte Chance: Sie nennt eine Zahl nach der anderen. Jede richtige Zahl deckt ein Versteck auf; findet sie alle, gewinnt sie, beim ersten Fehler entkommt er.',
  'howto.section.after.title': 'Nach dem Spiel',
  'howto.section.after.text':
    'Am Ende werden alle Karten gezeigt: die ganze Reihe, die Sprintkarten, beide Hände und die Stapel.',
  'howto.options': 'Spieloptionen',
  'howto.sprint.gap': '+6',
  'howto.sprint.title': 'Ein Sprint.',
  'howto.sprint.text':
    '14 liegt 6 über 8. Drei Schritte sind frei; die anderen 3 kommen von den Sprintkarten darunter: 12 ist gerade (zwei Fußspuren, +2), 5 ist ungerade (eine Fußspur, +1).',
  'howto.guess.title': 'Ein Tipp mit mehreren Zahlen.',
  'howto.guess.text':
    'Sind 9 und 17 beide Verstecke, werden beide aufgedeckt. Ist auch nur eine Zahl falsch (9 und 20), wird nichts aufgedeckt, und sie erfährt nicht, welche falsch war.',
  'howto.manhunt.title': 'Die Hetzjagd.',
  'howto.manhunt.text':
    'Er hat die 42 gespielt, bevor ein Versteck von 30 oder höher gefunden war: Sie nennt eine Zahl nach der anderen. Jede richtige deckt ein Versteck auf; beim ersten Fehler entkommt er.',
  'howto.events.title': 'Ereigniskarten (eine Option).',
  'howto.events.text':
    'Manche Stapel enthalten Ereigniskarten: Fußspuren helfen dem Flüchtenden, Ferngläser der Polizeichefin. Wer eine zieht, handelt sie sofort ab, manchmal mit einer Wahl, und zieht dann noch einmal.',
  'howto.pass.title': 'Der Passbonus (eine Option).',
  'howto.pass.text':
    'Mit dem Passbonus darf der Flüchtende, wenn er passt, zusätzlich eine Karte vom niedrigsten nicht leeren Stapel ziehen.',
  'howto.keys.title': 'Die Karten lesen.',
  'howto.keys.text':
    'Die Fußspuren unter einer Zahl sind ihr Sprintwert: eine bei ungeraden Karten, zwei bei geraden. Die 42 ist die Fluchtkarte: Sie wird offen gelegt und sprintet nie. Die Plätze der Reihe sind ab 0 über den Karten nummeriert.',
};
