// The client's paths and the module that draws each: the same table as `VIEWS` in
// crates/fugitive-server/src/web.rs, which serves these paths as the page and preloads that
// module's graph and strings (tests/modules.test.mjs checks that the two agree). A path's
// `{name}` is one of `PARAMS`; app.js imports the module and hands it the values.

/// Each path, as the server's router writes it, with its module.
export const ROUTES = [
  ['/', 'landing.js'],
  ['/index.html', 'landing.js'],
  ['/room/{room}', 'room.js'],
  ['/room/{room}/game/{game}', 'replay.js'],
  ['/@/{profile}', 'profile-page.js'],
  ['/leaderboard', 'leaderboard.js'],
  ['/lobby', 'lobby.js'],
  ['/puzzles', 'puzzles.js'],
  ['/tutorial', 'tutorial.js'],
];

/// What each `{name}` of a path may be: a room's id, a game's number in its room, a profile's id.
const PARAMS = {
  room: '[0-9a-fA-F-]{36}',
  game: '[1-9][0-9]*',
  profile: '[a-z0-9]{12}',
};

const escape = (text) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

const MATCHERS = ROUTES.map(([path, module]) => {
  const names = [];
  const source = path
    .split(/(\{[a-z]+\})/)
    .map((part) => {
      const name = part.match(/^\{([a-z]+)\}$/)?.[1];
      if (!name) return escape(part);
      names.push(name);
      return `(${PARAMS[name]})`;
    })
    .join('');
  // With a trailing slash, a path with values is the same path.
  return { module, names, pattern: new RegExp(`^${source}${names.length ? '/?' : ''}$`) };
});

/// The module that draws `pathname` and the values of its `{name}`s (`{ module: 'room.js',
/// params: { room } }`), or `null` when no path of the client is this one.
export function viewOf(pathname) {
  for (const { module, names, pattern } of MATCHERS) {
    const found = pathname.match(pattern);
    if (found) return { module, params: Object.fromEntries(names.map((name, i) => [name, found[i + 1]])) };
  }
  return null;
}
