// Protocol 2's deltas (docs/protocol-v2.md): what changed in a viewer's state since the one it
// holds, applied to give the new state. Pure: the held state is not changed, a new one is made
// (the page compares the state before and after each change), sharing what did not change.

/// Whether `delta` applies to `held` (the same game, and made from the version held).
export function fits(held, delta) {
  return Boolean(held) && held.game === delta.game && held.version === delta.base;
}

/// The state after `delta`: `held` (a `snapshot`'s fields) with its changes.
export function applyDelta(held, delta) {
  const view = { ...held.view };
  if (delta.history) view.history = view.history.concat(delta.history);
  if (delta.revealed) {
    view.history = view.history.slice();
    for (const [index, entry] of delta.revealed) view.history[index] = entry;
  }
  if (delta.trail) {
    const trail = view.trail.slice(0, delta.trail.length);
    for (const [position, card] of delta.trail.cards) trail[position] = card;
    view.trail = trail;
  }
  if (delta.view) Object.assign(view, delta.view);
  const next = { ...held, version: delta.version, view };
  if ('legal' in delta) next.legal = delta.legal;
  if (delta.room) next.room = { ...held.room, ...delta.room };
  // The notepad and the public candidates: whole when they changed, `null` once there are none.
  for (const key of ['notepad', 'candidates']) {
    if (!(key in delta)) continue;
    if (delta[key] === null) delete next[key];
    else next[key] = delta[key];
  }
  return next;
}
