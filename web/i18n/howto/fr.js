// French strings of How to play, loaded with its page (`useStrings('howto')` in
// i18n.js), not on a first visit.
export default {
  'howto.close': 'Fermer',
  'howto.section.goal.title': 'But du jeu',
  'howto.section.goal.text':
    'Le Fugitif pose une rangée de cachettes face cachée, de 0 vers 42. Il gagne en jouant le 42. La Marshall gagne en découvrant toutes les cachettes de la rangée avant qu’il ne s’échappe.',
  'howto.section.cards.title': 'Les cartes',
  'howto.section.cards.text':
    'Les cartes sont numérotées de 0 à 42. Chacune a aussi une valeur de sprint : les nombres pairs +2, les impairs +1. Le Fugitif commence avec 1, 2, 3, 42 et cinq cartes des paquets ; la Marshall commence sans carte. Le paquet 1 contient 4 à 14, le paquet 2 contient 15 à 28, le paquet 3 contient 29 à 41.',
  'howto.section.fugitive.title': 'Le Fugitif',
  'howto.section.fugitive.text':
    'À son premier tour, il pose une ou deux cachettes sans piocher. À chaque tour suivant, il pioche une carte dans le paquet de son choix, puis pose une cachette ou passe.',
  'howto.section.placing.title': 'Poser une cachette',
  'howto.section.placing.text':
    'Une nouvelle cachette doit être plus haute que la dernière carte de la rangée, d’au plus 3. Pour aller plus loin, il sprinte : il place d’autres cartes de sa main face cachée sous la nouvelle cachette, et leurs valeurs de sprint s’ajoutent aux 3. Tout le monde voit combien de cartes Sprint sont sous une cachette, mais pas lesquelles. Le 42 est posé face visible et ne peut pas servir à sprinter.',
  'howto.section.marshal.title': 'La Marshall',
  'howto.section.marshal.text':
    'À son premier tour, elle pioche deux cartes, ensuite une. Puis elle annonce un ou plusieurs nombres de 1 à 41. Si chaque nombre annoncé est une cachette face cachée, elles sont toutes révélées avec leurs cartes Sprint. Si un seul est faux, rien n’est révélé et elle apprend seulement que l’annonce était fausse. Les cartes de sa main sont des nombres qui ne peuvent pas être des cachettes.',
  'howto.section.manhunt.title': 'Chasse à l’homme',
  'howto.section.manhunt.text':
    'Quand le Fugitif joue le 42 et qu’aucune cachette de 30 ou plus n’a été trouvée, la Marshall a une dernière chance : elle annonce un nombre à la fois. Chaque bon nombre révèle une cachette ; si elle les trouve toutes, elle gagne, et à sa première erreur il s’échappe.',
  'howto.section.after.title': 'Après la partie',
  'howto.section.after.text':
    'À la fin, toutes les cartes sont montrées : toute la rangée, les cartes Sprint, les deux mains et les paquets.',
  'howto.options': 'Options de jeu',
  'howto.sprint.gap': '+6',
  'howto.sprint.title': 'Un sprint.',
  'howto.sprint.text':
    '14 est 6 au-dessus de 8. Trois pas sont gratuits ; les 3 autres viennent des cartes Sprint posées dessous : 12 est pair (deux empreintes, +2) et 5 est impair (une empreinte, +1).',
  'howto.guess.title': 'Une annonce de plusieurs nombres.',
  'howto.guess.text':
    'Si 9 et 17 sont tous deux des cachettes, les deux sont révélées. Si un seul nombre est faux (9 et 20), rien n’est révélé, et elle ne sait pas lequel était faux.',
  'howto.manhunt.title': 'La chasse à l’homme.',
  'howto.manhunt.text':
    'Il a joué le 42 avant qu’une cachette de 30 ou plus soit trouvée : elle annonce un nombre à la fois. Chaque bon nombre révèle une cachette ; la première erreur le laisse s’échapper.',
  'howto.events.title': 'Les cartes Événement (en option).',
  'howto.events.text':
    'Certains paquets contiennent des cartes Événement : les empreintes aident le Fugitif, les jumelles aident la Marshall. Qui en pioche une la résout aussitôt, parfois avec un choix, puis pioche à nouveau.',
  'howto.pass.title': 'Le bonus de passe (en option).',
  'howto.pass.text':
    'Avec le bonus de passe, le Fugitif qui passe peut aussi piocher une carte dans le plus petit paquet non vide.',
  'howto.keys.title': 'Lire les cartes.',
  'howto.keys.text':
    'Les empreintes sous un nombre sont sa valeur de sprint : une pour les cartes impaires, deux pour les paires. Le 42 est la carte d’évasion : il est posé face visible et ne sprinte jamais. Les positions de la rangée sont numérotées à partir de 0 au-dessus des cartes.',
};
