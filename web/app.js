// Entry point: the header (How to play, language switch) and the page the path shows: `/` creates
// a game (landing.js), `/room/{id}` is the table (room.js), and a replay, a profile, the
// leaderboard, the lobby, puzzles and the tutorial. Each page's module is imported for its path
// alone, so a page loads no other page's code or strings (i18n.js `useStrings`); the server
// preloads the same module for the same path: the paths and their modules are routes.js's
// table, which `VIEWS` in crates/fugitive-server/src/web.rs repeats (tests/modules.test.mjs).
// How to play is imported when its button is first pressed.

import { t, language, setLanguage, onLanguageChange, LANGUAGE_NAMES } from './i18n.js';
import { replace, h } from './dom.js';
import { soundOn, setSound, onSoundChange } from './sound.js';
import { icon } from './art.js';
import { viewOf } from './routes.js';

function header() {
  document.documentElement.lang = language();
  document.querySelector('meta[name="description"]').content = t('meta.description');
  document.querySelector('.skip').textContent = t('nav.skip');
  document.getElementById('howto-open').textContent = t('nav.howto');
  document.getElementById('lang-label').textContent = t('nav.language');
  // A drawn speaker (with waves when on, crossed out when off) and the word, which a phone
  // hides from sight but a screen reader still reads as the button's name; aria-pressed says
  // whether the sound is on.
  const sound = document.getElementById('sound');
  const drawn = icon(soundOn() ? 'sound' : 'soundOff');
  drawn.classList.add('sound-icon');
  sound.replaceChildren(drawn, h('span', { class: 'sound-word' }, t('sound.label')));
  sound.title = t(soundOn() ? 'sound.on' : 'sound.off');
  sound.setAttribute('aria-pressed', String(soundOn()));
  const select = document.getElementById('lang');
  replace(
    select,
    Object.entries(LANGUAGE_NAMES).map(([code, name]) =>
      h('option', { value: code, selected: code === language(), lang: code }, name),
    ),
  );
}

function setUpHeader() {
  const select = document.getElementById('lang');
  select.addEventListener('change', () => setLanguage(select.value));
  const dialog = document.getElementById('howto');
  // How to play, with its strings, loaded on the first click.
  let howto = null;
  const fill = () =>
    replace(
      dialog,
      howto.renderHowto(() => dialog.close()),
    );
  document.getElementById('howto-open').addEventListener('click', async () => {
    howto ??= await import('./howto.js');
    fill();
    if (!dialog.open) dialog.showModal();
  });
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  document.getElementById('sound').addEventListener('click', () => setSound(!soundOn()));
  onSoundChange(() => header());
  onLanguageChange(() => {
    header();
    if (dialog.open) fill();
  });
  header();
}

/// Each view's module, imported for its path alone (`ROUTES` of routes.js), and what it is handed.
const SHOW = {
  'landing.js': (root) => {
    document.title = 'Fugitive';
    return import('./landing.js').then((page) => page.showLanding(root));
  },
  'room.js': (root, { room }) => {
    document.title = `${t('title.room')} — Fugitive`;
    return import('./room.js').then((page) => page.showRoom(root, room.toLowerCase()));
  },
  'replay.js': (root, { room, game }) =>
    import('./replay.js').then((page) => page.showReplay(root, room.toLowerCase(), Number(game))),
  'profile-page.js': (root, { profile }) =>
    import('./profile-page.js').then((page) => page.showProfilePage(root, profile)),
  'leaderboard.js': (root) => import('./leaderboard.js').then((page) => page.showLeaderboard(root)),
  'lobby.js': (root) => import('./lobby.js').then((page) => page.showLobby(root)),
  'puzzles.js': (root) => import('./puzzles.js').then((page) => page.showPuzzles(root)),
  'tutorial.js': (root) => import('./tutorial.js').then((page) => page.showTutorial(root)),
};

function route() {
  const root = document.getElementById('app');
  const view = viewOf(location.pathname);
  if (view) {
    SHOW[view.module](root, view.params);
  } else {
    replace(
      root,
      h(
        'div',
        { class: 'landing' },
        h('h1', {}, t('notFound.title')),
        h('p', {}, h('a', { href: '/' }, t('notFound.home'))),
      ),
    );
  }
}

setUpHeader();
route();
