// French strings of the replay page, loaded with its page (`useStrings('replay')` in
// i18n.js), not on a first visit.
export default {
  'replay.title': 'Revoir la partie {n}',
  'replay.controls': 'Parcourir la partie',
  'replay.first': 'Début',
  'replay.prev': 'Précédent',
  'replay.next': 'Suivant',
  'replay.last': 'Fin',
  'replay.step': 'Coup {i} sur {n}',
  'replay.slider': 'Coup',
  'replay.start': 'La partie commence.',
  'replay.json': 'Télécharger l’enregistrement (JSON)',
  'replay.share': 'Copier le lien de cette partie',
  'replay.copied': 'Lien copié',
  'replay.back': 'Retour à la salle',
  'replay.running': 'Cette partie est en cours : on peut la revoir une fois finie.',
  'replay.notFound': 'Cette partie n’existe pas.',
};
