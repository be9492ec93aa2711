// French strings of the analysis of a finished game (on the replay page), loaded with its page (`useStrings('analysis')` in
// i18n.js), not on a first visit.
export default {
  'analysis.title': 'Analyse de la partie',
  'analysis.queued': {
    zero: 'En attente d’un calculateur libre : aucun autre calcul ne passe avant cette analyse.',
    one: 'En attente d’un calculateur libre : 1 calcul passe avant cette analyse.',
    other: 'En attente d’un calculateur libre : {n} calculs passent avant cette analyse.',
  },
  'analysis.computing': 'L’ordinateur analyse cette partie…',
  'analysis.progress': 'Coups analysés : {done} sur {total}',
  'analysis.failed': 'L’analyse n’a pas pu être chargée.',
  'analysis.accuracy': '{who} : précision {value} %',
  'analysis.incomplete': 'L’analyse a manqué de temps : les derniers coups n’ont pas de chance de gagner.',
  'analysis.chart':
    'Graphique, coup par coup : la chance de la Marshall de trouver une cachette à sa prochaine proposition, la couverture du Fugitif et sa chance de gagner. Cliquez sur un point pour aller à ce coup.',
  'analysis.legend.next': 'Sa prochaine proposition trouve une cachette',
  'analysis.legend.cover': 'Sa couverture (bits, à l’échelle)',
  'analysis.legend.wins': 'Il gagne (parties jouées)',
  'analysis.playouts':
    'Les chances comptent chaque monde conforme à ce que la Marshall a vu ; la chance de gagner est la part de {playouts} parties que les ordinateurs forts ont jouées à partir de chaque coup.',
  'analysis.guess':
    'Coup {step} : la Marshall nomme {numbers}, juste avec {chance}. Meilleur nombre seul : {best} ({bestChance}) ; meilleure proposition à plusieurs nombres : {multi} ({multiChance}).',
  'analysis.hide':
    'Coup {step} : {who} laisse à sa prochaine proposition {chance} de trouver une cachette (au mieux {best}).',
  'analysis.mark.best': 'Meilleur coup',
  'analysis.mark.good': 'Bon',
  'analysis.mark.inaccuracy': 'Imprécision',
  'analysis.mark.mistake': 'Erreur',
  'analysis.mark.blunder': 'Gaffe',
  'analysis.estimate.budget':
    '(une estimation : cette position dépassait le budget du bloc-notes, il a compté les pistes)',
  'analysis.estimate.events':
    '(une estimation : le bloc-notes ne sait pas lire certains événements tirés, il a compté les pistes)',
  'analysis.estimate.joint':
    '(une estimation : la proposition nommait plusieurs nombres incertains ; sa chance est un majorant)',
};
