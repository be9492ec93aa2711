// Issue 26: two players with profiles play a rated game on a fixed deal (the harness's
// --deal-seed) by the script of analysis-marks.json; its replay page shows the analysis with
// each move's mark, which must be the engine's (the Rust test `the_web_tests_expected_marks_are_
// the_engines` checks that file against fugitive-ai), the accuracy of both players and a chart
// whose points move the replay; in English, German and French, axe-clean. The profile page then
// shows the player's mean accuracy.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  openTable,
  closeTable,
  newPlayer,
  createRoom,
  nextMove,
  draw,
  place,
  guess,
  acting,
  chooseLanguage,
  checkAxe,
  shot,
  PATIENCE,
} from './harness.mjs';

const expected = JSON.parse(await readFile(new URL('./analysis-marks.json', import.meta.url), 'utf8'));

let server;
let browser;

// The analysis threads at the server's own priority, not SCHED_IDLE (the server's default) nor
// nice 19: this test waits for an analysis to finish, and on a machine busy at normal priority
// (CI runs the Rust tests beside this) a thread at either lower priority may stand still.
before(async () => ({ server, browser } = await openTable(['--background-priority', 'normal'])));
after(() => closeTable({ server, browser }));

async function visit(page) {
  await page.goto(server.url);
  await page.locator('[data-testid=profile][data-profile]').waitFor();
  return page.getByTestId('profile').getAttribute('data-profile');
}

async function play(page, action) {
  await nextMove(page);
  if (action.type === 'place') await place(page, action.hideout, action.sprints);
  else if (action.type === 'draw') await draw(page, action.deck);
  else if (action.type === 'guess') await guess(page, action.numbers);
  else if (action.type === 'pass') await acting(page, () => page.getByTestId('pass').click());
  else throw new Error(`no way to play ${action.type}`);
}

/// Waits until the page shows the finished analysis, for as long as its progress bar moves: the
/// analysis is the server's CPU work, slow on a loaded machine but never stuck; only a bar that
/// stands still for the harness's PATIENCE fails.
async function analysisDone(page) {
  let done = -1;
  for (;;) {
    const seen = await page.waitForFunction(
      (before) => {
        if (document.querySelector('[data-testid=analysis]')?.dataset.state === 'done') return 'done';
        const now = Number(document.querySelector('[data-testid=analysis-progress]')?.value ?? -1);
        return now > before ? String(now) : false;
      },
      done,
      { timeout: PATIENCE },
    );
    const value = await seen.jsonValue();
    if (value === 'done') return;
    done = Number(value);
  }
}

const marksShown = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-testid=analysis-moves] > li')].map((li) => ({
      step: Number(li.querySelector('button').dataset.testid.slice('analysis-move-'.length)),
      mark: li.dataset.mark,
      text: li.querySelector('.mark').textContent,
    })),
  );

test("a finished game's analysis shows the engine's marks, accuracy and a chart that moves the replay", async () => {
  assert.equal(expected.deal_seed, 20261123, 'the harness deals from the same seed');
  const ada = await newPlayer(browser);
  const bob = await newPlayer(browser, { locale: 'de-DE' });
  const adaId = await visit(ada);
  await visit(bob);
  const { invite } = await createRoom(ada, server.url, 'fugitive', { clock: '300' });
  await bob.goto(invite);
  await bob.getByTestId('room').waitFor();
  for (const { role, action } of expected.script) await play(role === 'fugitive' ? ada : bob, action);
  await ada.getByTestId('game-over').waitFor();

  const room = new URL(invite).pathname.split('/')[2];
  // While it waits for a free worker, the page says how many computations are ahead of it: the
  // first two answers are a queued one's (docs/protocol.md, as a busy node gives them); the page
  // asks again and shows the progress bar once the server's own answer comes.
  const queued = [2, 1];
  const analysisUrl = `${server.url}/api/rooms/${room}/games/1/analysis`;
  await ada.route(analysisUrl, (route) => {
    const ahead = queued.shift();
    if (ahead === undefined) return route.continue();
    const body = { room, game: 1, state: 'queued', ahead, done: 0, total: 0 };
    return route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify(body) });
  });
  await ada.goto(`${server.url}/room/${room}/game/1`);
  await ada.getByTestId('analysis').waitFor();
  await ada.waitForFunction(() =>
    document.querySelector('[data-testid=analysis-queued]')?.textContent.includes('2 computations are ahead'),
  );
  await checkAxe(ada, 'analysis queued (en)');
  await ada.waitForFunction(() =>
    document.querySelector('[data-testid=analysis-queued]')?.textContent.includes('1 computation is ahead'),
  );
  assert.equal(await ada.getByTestId('analysis-progress').count(), 0, 'no progress bar while queued');
  // Then the first request that reaches the server starts the work: a progress bar until it is done.
  await ada.getByTestId('analysis-progress').waitFor();
  await ada.unroute(analysisUrl);
  await analysisDone(ada);
  const shown = await marksShown(ada);
  assert.deepEqual(
    shown.map(({ step, mark }) => ({ step, mark })),
    expected.marks,
  );
  const words = { best: 'Best', good: 'Good', inaccuracy: 'Inaccuracy', mistake: 'Mistake', blunder: 'Blunder' };
  for (const { mark, text } of shown) assert.equal(text, words[mark]);
  assert.match(await ada.getByTestId('analysis-accuracy-fugitive').textContent(), /^The Fugitive: accuracy \d+ %/);
  assert.match(await ada.getByTestId('analysis-accuracy-marshal').textContent(), /^The Marshal: accuracy \d+ %/);

  // A point of the chart (the win chance's, drawn on top), and a move of the list, move the replay there.
  const target = expected.marks[2].step;
  await ada.getByTestId(`analysis-point-wins-${target}`).click();
  await ada.waitForFunction((s) => document.querySelector('[data-testid=replay]').dataset.step === String(s), target);
  await ada.getByTestId(`analysis-move-${expected.marks[0].step}`).click();
  await ada.waitForFunction(
    (s) => document.querySelector('[data-testid=replay]').dataset.step === String(s),
    expected.marks[0].step,
  );
  await shot(ada, 'analysis');
  await checkAxe(ada, 'analysis (en)');

  for (const [lang, blunder] of [
    ['de', 'Grober Fehler'],
    ['fr', 'Gaffe'],
  ]) {
    await chooseLanguage(ada, lang);
    await ada.waitForFunction(
      (w) => document.querySelector('[data-testid=analysis-moves]')?.textContent.includes(w),
      blunder,
    );
    const translated = await marksShown(ada);
    assert.deepEqual(
      translated.map(({ step, mark }) => ({ step, mark })),
      expected.marks,
    );
    await checkAxe(ada, `analysis (${lang})`);
  }
  await chooseLanguage(ada, 'en');

  // The profile page shows the mean accuracy of her analysed games: this one.
  const accuracy = await ada.getByTestId('analysis-accuracy-fugitive').textContent();
  await ada.goto(`${server.url}/@/${adaId}`);
  await ada.getByTestId('profile-accuracy').waitFor();
  const mean = (await ada.getByTestId('profile-accuracy').textContent()).match(/\(1\): ([\d.]+) %/);
  assert.ok(mean, await ada.getByTestId('profile-accuracy').textContent());
  assert.equal(Math.round(Number(mean[1])), Number(accuracy.match(/(\d+) %/)[1]));
  await checkAxe(ada, 'profile with accuracy');
  for (const page of [ada, bob]) assert.deepEqual(page.errors, []);
});
