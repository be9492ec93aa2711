// "How to play": a short summary of ../shared/RULES.md in the three languages of the rulebooks.

import { h, sprintValue } from './dom.js';
import { cardFace, cardBack } from './table.js';
import { renderEventCard } from './events.js';
import { t, language } from './i18n.js';

const TEXT = {
  en: [
    [
      'Goal',
      'The Fugitive lays a trail of face-down hideouts from 0 towards 42. He wins by playing 42. The Marshal wins by uncovering every hideout on the trail before he gets away.',
    ],
    [
      'Cards',
      'Cards are numbered 0 to 42. Each one also has a sprint value: even numbers +2, odd numbers +1. The Fugitive starts with 1, 2, 3, 42 and five cards from the decks; the Marshal starts with nothing. Deck 1 holds 4–14, deck 2 holds 15–28, deck 3 holds 29–41.',
    ],
    [
      'The Fugitive',
      'On his first turn he places one or two hideouts and draws nothing. On every later turn he draws one card from any deck, then places one hideout or passes.',
    ],
    [
      'Placing a hideout',
      'A new hideout must be higher than the last card of the trail, and at most 3 higher. To go further he sprints: he puts other cards from his hand face down under the new hideout, and their sprint values add to the 3. Everyone sees how many sprint cards lie under a hideout, but not which. 42 is placed face up and cannot be used to sprint.',
    ],
    [
      'The Marshal',
      'On her first turn she draws two cards, later one. Then she names one or more numbers from 1 to 41. If every number she names is a face-down hideout, they are all turned face up with their sprint cards. If even one is wrong, nothing is turned and she only learns that the guess was wrong. The cards in her hand are numbers that cannot be hideouts.',
    ],
    [
      'Manhunt',
      'When the Fugitive plays 42 and no hideout of 30 or more has been found, the Marshal gets a last chance: she names one number at a time. Each right number turns a hideout face up; if she finds them all she wins, and at her first miss he escapes.',
    ],
    [
      'After the game',
      'When the game ends, every card is shown: the whole trail, the sprint cards, both hands and the decks.',
    ],
  ],
  de: [
    [
      'Ziel',
      'Der Flüchtende legt eine Reihe verdeckter Verstecke von 0 in Richtung 42. Er gewinnt, sobald er die 42 spielt. Die Polizeichefin gewinnt, wenn sie alle Verstecke der Kartenreihe aufdeckt, bevor er entkommt.',
    ],
    [
      'Karten',
      'Die Karten tragen die Nummern 0 bis 42. Jede hat außerdem einen Sprintwert: gerade Zahlen +2, ungerade +1. Der Flüchtende beginnt mit 1, 2, 3, 42 und fünf Karten von den Stapeln, die Polizeichefin ohne Karten. Stapel 1 enthält 4–14, Stapel 2 enthält 15–28, Stapel 3 enthält 29–41.',
    ],
    [
      'Der Flüchtende',
      'In seinem ersten Zug legt er ein oder zwei Verstecke und zieht keine Karte. In jedem weiteren Zug zieht er eine Karte von einem beliebigen Stapel und legt dann ein Versteck oder passt.',
    ],
    [
      'Ein Versteck legen',
      'Ein neues Versteck muss höher sein als die letzte Karte der Reihe, und höchstens um 3. Um weiter zu kommen, sprintet er: Er legt weitere Handkarten verdeckt unter das neue Versteck, und ihre Sprintwerte kommen zu den 3 hinzu. Alle sehen, wie viele Sprintkarten unter einem Versteck liegen, aber nicht welche. Die 42 wird offen gelegt und kann nicht zum Sprinten verwendet werden.',
    ],
    [
      'Die Polizeichefin',
      'In ihrem ersten Zug zieht sie zwei Karten, danach jeweils eine. Dann nennt sie eine oder mehrere Zahlen von 1 bis 41. Ist jede genannte Zahl ein verdecktes Versteck, werden alle mit ihren Sprintkarten aufgedeckt. Ist auch nur eine falsch, wird nichts aufgedeckt und sie erfährt nur, dass der Tipp falsch war. Die Karten auf ihrer Hand sind Zahlen, die kein Versteck sein können.',
    ],
    [
      'Hetzjagd',
      'Spielt der Flüchtende die 42 und wurde noch kein Versteck von 30 oder höher gefunden, bekommt die Polizeichefin eine letzte Chance: Sie nennt eine Zahl nach der anderen. Jede richtige Zahl deckt ein Versteck auf; findet sie alle, gewinnt sie, beim ersten Fehler entkommt er.',
    ],
    [
      'Nach dem Spiel',
      'Am Ende werden alle Karten gezeigt: die ganze Reihe, die Sprintkarten, beide Hände und die Stapel.',
    ],
  ],
  fr: [
    [
      'But du jeu',
      'Le Fugitif pose une rangée de cachettes face cachée, de 0 vers 42. Il gagne en jouant le 42. La Marshall gagne en découvrant toutes les cachettes de la rangée avant qu’il ne s’échappe.',
    ],
    [
      'Les cartes',
      'Les cartes sont numérotées de 0 à 42. Chacune a aussi une valeur de sprint : les nombres pairs +2, les impairs +1. Le Fugitif commence avec 1, 2, 3, 42 et cinq cartes des paquets ; la Marshall commence sans carte. Le paquet 1 contient 4 à 14, le paquet 2 contient 15 à 28, le paquet 3 contient 29 à 41.',
    ],
    [
      'Le Fugitif',
      'À son premier tour, il pose une ou deux cachettes sans piocher. À chaque tour suivant, il pioche une carte dans le paquet de son choix, puis pose une cachette ou passe.',
    ],
    [
      'Poser une cachette',
      'Une nouvelle cachette doit être plus haute que la dernière carte de la rangée, d’au plus 3. Pour aller plus loin, il sprinte : il place d’autres cartes de sa main face cachée sous la nouvelle cachette, et leurs valeurs de sprint s’ajoutent aux 3. Tout le monde voit combien de cartes Sprint sont sous une cachette, mais pas lesquelles. Le 42 est posé face visible et ne peut pas servir à sprinter.',
    ],
    [
      'La Marshall',
      'À son premier tour, elle pioche deux cartes, ensuite une. Puis elle annonce un ou plusieurs nombres de 1 à 41. Si chaque nombre annoncé est une cachette face cachée, elles sont toutes révélées avec leurs cartes Sprint. Si un seul est faux, rien n’est révélé et elle apprend seulement que l’annonce était fausse. Les cartes de sa main sont des nombres qui ne peuvent pas être des cachettes.',
    ],
    [
      'Chasse à l’homme',
      'Quand le Fugitif joue le 42 et qu’aucune cachette de 30 ou plus n’a été trouvée, la Marshall a une dernière chance : elle annonce un nombre à la fois. Chaque bon nombre révèle une cachette ; si elle les trouve toutes, elle gagne, et à sa première erreur il s’échappe.',
    ],
    [
      'Après la partie',
      'À la fin, toutes les cartes sont montrées : toute la rangée, les cartes Sprint, les deux mains et les paquets.',
    ],
  ],
};

/// A few cards in a row, as on the table.
const row = (...items) => h('div', { class: 'howto-row', 'aria-hidden': 'true' }, items);
const arrow = (text = '→') => h('span', { class: 'howto-arrow' }, text);
const under = (hideout, sprints) =>
  h(
    'span',
    { class: 'howto-stack' },
    cardFace(hideout),
    h(
      'span',
      { class: 'sprints' },
      sprints.map((c) =>
        h('span', { class: 'chip mini-card' }, c, h('span', { class: 'mini-value' }, `+${sprintValue(c)}`)),
      ),
    ),
  );
const chips = (numbers, cls) => numbers.map((n) => h('span', { class: ['howto-number', cls] }, n));

/// The drawn examples, each a picture and a sentence.
const PICTURES = {
  keys: () => row(cardFace(7), cardFace(10), cardFace(42)),
  sprint: () => row(cardFace(8), arrow(t('howto.sprint.gap')), under(14, [12, 5])),
  guess: () =>
    h(
      'div',
      { class: 'howto-guess', 'aria-hidden': 'true' },
      row(chips([9, 17], 'right'), arrow(), cardFace(9), cardFace(17)),
      row(chips([9, 20], 'wrong'), arrow(), cardBack(), cardBack()),
    ),
  manhunt: () => row(cardBack(), cardBack(), cardFace(42), arrow(), chips([31], 'right'), chips([35], 'wrong')),
  events: () => h('div', { class: 'howto-row' }, renderEventCard('F3'), renderEventCard('M4')),
  pass: () => row(h('span', { class: 'howto-word' }, t('place.pass')), arrow('+'), cardBack()),
};

function figure(id) {
  return h(
    'figure',
    { class: 'howto-figure', 'data-testid': `howto-${id}` },
    PICTURES[id](),
    h('figcaption', {}, h('strong', {}, t(`howto.${id}.title`)), ' ', t(`howto.${id}.text`)),
  );
}

// The picture that follows each section of TEXT (by index): the cards, a sprint, a guess, the
// Manhunt; the event cards and the pass bonus close the walkthrough.
const AFTER = { 1: 'keys', 3: 'sprint', 4: 'guess', 5: 'manhunt' };

export function renderHowto(onClose) {
  const sections = TEXT[language()] ?? TEXT.en;
  return h(
    'div',
    { class: 'howto' },
    h(
      'div',
      { class: 'howto-head' },
      h('h2', { id: 'howto-title' }, t('nav.howto')),
      h(
        'button',
        { type: 'button', class: 'quiet', 'data-testid': 'howto-close', onclick: onClose, autofocus: true },
        t('howto.close'),
      ),
    ),
    sections.map(([title, text], i) =>
      h('section', {}, h('h3', {}, title), h('p', {}, text), AFTER[i] ? figure(AFTER[i]) : null),
    ),
    h('section', {}, h('h3', {}, t('howto.options')), figure('events'), figure('pass')),
  );
}
