// Shared pieces of the browser tests: the real server on a free port with a temporary SQLite
// database, headless Chromium, and small helpers that read the table from the DOM and act on it
// the way a player does (clicks only).

import { spawn } from 'node:child_process';
import { access, mkdtemp, mkdir, rm, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_BIN = path.resolve(WEB_DIR, process.env.FUGITIVE_SERVER_BIN ?? '../target/debug/fugitive-server');
export const SCREENSHOTS = path.join(WEB_DIR, 'test-results', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/// Starts the server binary with `extra` flags; resolves once `/healthz` answers.
export async function startServer(extra = []) {
  await access(SERVER_BIN).catch(() => {
    throw new Error(
      `no server binary at ${SERVER_BIN}: run \`cargo build -p fugitive-server\` or set FUGITIVE_SERVER_BIN`,
    );
  });
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'fugitive-web-test-'));
  const url = `http://127.0.0.1:${port}`;
  const args = [
    '--addr',
    `127.0.0.1:${port}`,
    '--database-url',
    `sqlite://${path.join(dir, 'fugitive.db')}`,
    '--web-dir',
    WEB_DIR,
    '--allowed-origins',
    url,
    // Every test creates its rooms from one address.
    '--max-rooms-per-minute',
    '10000',
    // Known deals (an operator's setting, out of every client's reach): the games the tests
    // steer to an ending, and the computer's choices, are the same in every run, never luck.
    '--deal-seed',
    process.env.FUGITIVE_TEST_DEAL_SEED ?? '20261123',
    ...extra,
  ];
  let output = '';
  let child;
  let exited;
  async function launch() {
    child = spawn(SERVER_BIN, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
    });
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    exited = new Promise((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 300; i += 1) {
      if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
      const ok = await fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not answer /healthz: ${output}`);
  }
  async function halt() {
    child.kill('SIGTERM');
    await exited;
  }
  await launch();
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    url,
    output: () => output,
    /// Stops the server and starts it again on the same port and database: every socket drops.
    async restart() {
      await halt();
      await launch();
    },
    async stop() {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/// A server (with `extra` flags) and a browser for one test file: `before(async () => ({
/// server, browser } = await openTable()))`, and `after(() => closeTable({ server, browser }))`.
export async function openTable(extra = []) {
  return { server: await startServer(extra), browser: await launchBrowser() };
}

/// Stops what `openTable` started (whatever of it did start).
export async function closeTable({ server, browser }) {
  await browser?.close();
  await server?.stop();
}

/// How long any wait of a browser test may take: every wait is for an event (a state shown, an
/// element drawn, an answer), never a fixed pause, so this bound only decides how soon a test
/// that can no longer pass gives up. It is long because the same waits take many times longer
/// on a loaded machine (CI runs two test files at once, `package.json`) than on a quiet one.
/// Playwright's own default is 30 s; every page of every context here has this one instead.
export const PATIENCE = 120_000;

/// The features playwright-core turns off in Chromium (its `chromiumSwitches`), in this version.
/// Chromium keeps only the last `--disable-features` of its command line, so turning off one
/// more means passing these again in the same switch, and dropping playwright's own.
const PLAYWRIGHT_VERSION = '1.65.1';
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
/// Chromium 156 gives every window (here each browser context) two renderer processes of its own
/// for the address bar's suggestion popup (`chrome://omnibox-popup.top-chrome/`), which a
/// headless browser never shows: about a third of a test file's browser CPU (BENCHMARKS.md,
/// "Stop 35 (h/webtests)"). The page under test is not drawn or run differently without them.
const UNSHOWN_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];
const PLAYWRIGHT_INSTALLED = createRequire(import.meta.url)('playwright-core/package.json').version;

export async function launchBrowser() {
  if (PLAYWRIGHT_INSTALLED !== PLAYWRIGHT_VERSION) {
    throw new Error(
      `playwright-core ${PLAYWRIGHT_INSTALLED}, not ${PLAYWRIGHT_VERSION}: copy its disabled Chromium features ` +
        '(`disabledFeatures` of its chromiumSwitches) into PLAYWRIGHT_DISABLED_FEATURES in tests/harness.mjs',
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: [`--disable-features=${PLAYWRIGHT_DISABLED_FEATURES.join(',')}`],
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNSHOWN_FEATURES].join(',')}`,
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PATIENCE);
    return context;
  };
  return browser;
}

/// A player (or spectator) in their own browser context, like a separate person.
export async function newPlayer(browser, { viewport = { width: 1280, height: 900 }, locale = 'en-US' } = {}) {
  const context = await browser.newContext({
    viewport,
    locale,
    hasTouch: viewport.width < 600,
    isMobile: viewport.width < 600,
  });
  return watchErrors(await context.newPage());
}

/// Collects the page's uncaught errors in `page.errors`.
export function watchErrors(page) {
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

/// Picks `lang` in the header's language menu and waits until the page is in it: the strings of
/// a language are loaded when it is first picked.
export async function chooseLanguage(page, lang) {
  await page.getByTestId('lang').selectOption(lang);
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

/// Unfolds the landing page's options.
export async function openOptions(page) {
  const options = page.getByTestId('options');
  if ((await options.getAttribute('open')) === null) await page.getByTestId('options-toggle').click();
}

/// Creates a room from the landing page as `role`; returns the links it shows.
/// `series`: '3' or '5' for a best-of series; `clock`: seconds per turn, as the options offer them.
export async function createRoom(page, url, role = 'fugitive', { series, clock } = {}) {
  await page.goto(url);
  await openOptions(page);
  await page.getByTestId(`role-${role}`).check();
  if (series) await page.getByTestId('series').selectOption(series);
  if (clock) await page.getByTestId('clock').selectOption(clock);
  await page.getByTestId('invite-friend').click();
  const invite = await page.getByTestId('link-invite').inputValue();
  const spectate = await page.getByTestId('link-spectate').inputValue();
  await page.getByTestId('go-to-table').click();
  await page.getByTestId('room').waitFor();
  return { invite, spectate };
}

/// Creates a room against the computer from the landing page as `role` (at `level`, with the
/// notepad assist when `assist`) and opens the table: one click, nobody to invite.
export async function createComputerRoom(page, url, role, { level = 'easy', assist = false } = {}) {
  await page.goto(url);
  await openOptions(page);
  await page.getByTestId(`role-${role}`).check();
  await page.getByTestId('level').selectOption(level);
  if (assist) await page.getByTestId('notepad-assist').check();
  await page.getByTestId('play-computer').click();
  await page.getByTestId('room').waitFor();
}

/// Everything the tests need to know about the table, read from the DOM.
export function readTable(page) {
  return page.evaluate(() => {
    const room = document.querySelector('[data-testid=room]');
    if (!room) return null;
    const num = (v) => (v === undefined || v === null ? null : Number(v));
    const trail = [...document.querySelectorAll('[data-testid=trail] > li.trail-card:not(.goal)')].map((li) => ({
      faceUp: li.dataset.faceUp === 'true',
      card: num(li.querySelector('.card.face')?.dataset.card),
      sprintCount: Number(li.dataset.sprintCount),
    }));
    // The Fugitive's hand; the Marshal's is shown on her board.
    const hand = [
      ...document.querySelectorAll('[data-testid=hand] .card[data-card]'),
      ...document.querySelectorAll('[data-testid=board] .number.held'),
    ].map((el) => Number(el.dataset.card ?? el.dataset.testid.slice('number-'.length)));
    return {
      viewer: room.dataset.viewer,
      phase: room.dataset.phase,
      game: Number(room.dataset.game),
      version: Number(room.dataset.version),
      myTurn: room.classList.contains('my-turn'),
      trail,
      hand,
      log: document.querySelectorAll('[data-testid=log] > li').length,
      status: document.querySelector('[data-testid=status]')?.textContent ?? '',
      winner: document.querySelector('[data-testid=game-over]')?.dataset.winner ?? null,
    };
  });
}

/// Waits until it is this page's turn in `phases` (or the game is over when `phases` is 'over').
export async function waitForTurn(page, phases) {
  const wanted = [phases].flat();
  await page.waitForFunction(
    (wanted) => {
      const room = document.querySelector('[data-testid=room]');
      if (!room || room.dataset.busy === 'true') return false;
      if (wanted.includes('over')) return room.dataset.phase === 'over';
      return room.classList.contains('my-turn') && wanted.includes(room.dataset.phase);
    },
    wanted,
    { timeout: PATIENCE },
  );
}

/// Waits until it is this page's move or the game is over; returns the table.
export async function nextMove(page) {
  await page.waitForFunction(
    () => {
      const room = document.querySelector('[data-testid=room]');
      if (!room || room.dataset.busy === 'true') return false;
      return room.dataset.phase === 'over' || room.classList.contains('my-turn');
    },
    null,
    { timeout: PATIENCE },
  );
  return readTable(page);
}

/// Runs `act` and waits until the page shows a newer state than before.
export async function acting(page, act) {
  const before = Number(await page.getByTestId('room').getAttribute('data-version'));
  await act();
  await page.waitForFunction(
    (before) => {
      const room = document.querySelector('[data-testid=room]');
      return room && Number(room.dataset.version) > before && room.dataset.busy !== 'true';
    },
    before,
    { timeout: PATIENCE },
  );
}

export async function draw(page, deck) {
  await acting(page, () => page.getByTestId(`deck-${deck}`).click());
}

/// Picks the hideout and sprint cards in the hand, checks the verdict says legal, and places.
export async function place(page, hideout, sprints = []) {
  for (const card of [hideout, ...sprints]) await page.getByTestId(`hand-${card}`).click();
  const verdict = page.getByTestId('verdict');
  await verdict.waitFor();
  if (!(await verdict.getAttribute('class')).includes('ok')) {
    throw new Error(`placement ${hideout} + [${sprints}] not legal: ${await verdict.textContent()}`);
  }
  await acting(page, () => page.getByTestId('place').click());
}

/// Picks `numbers` on the board and guesses them; a guess the page warns cannot be right (a number
/// in her hand) is confirmed.
export async function guess(page, numbers) {
  for (const n of numbers) await page.getByTestId(`number-${n}`).click();
  await acting(page, async () => {
    await page.getByTestId('guess').click();
    if (await page.getByTestId('guess-warning').count()) await page.getByTestId('guess-anyway').click();
  });
}

export const shot = (page, name) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/// Runs axe-core on the page as it is now (WCAG 2.x A and AA, best practices, and the
/// label-content-name-mismatch check) and fails on any serious or critical violation. Returns
/// the violations of lesser impact, for the curious.
export async function checkAxe(page, screen) {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() =>
    globalThis.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    }),
  );
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  if (bad.length) throw new Error(`axe-core on ${screen}:\n${bad.join('\n')}`);
  return results.violations;
}
