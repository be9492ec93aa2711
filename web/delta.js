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
  if ('legal' in delta) next.legal = withSprintSources(delta.legal, view);
  if (delta.room) next.room = { ...held.room, ...delta.room };
  if ('notepad' in delta) {
    if (delta.notepad === null) delete next.notepad;
    else next.notepad = delta.notepad;
  }
  return next;
}

/// A delta's `legal` with each placement's `from` filled in where the server left it out: every
/// card of the Fugitive's hand but that placement's hideout and 42.
function withSprintSources(legal, view) {
  if (!legal || !legal.placements.some((p) => p.sprints.kind === 'at_least' && !p.sprints.from)) return legal;
  const hand = view.hands.fugitive.cards;
  const placements = legal.placements.map((p) =>
    p.sprints.kind === 'at_least' && !p.sprints.from
      ? { ...p, sprints: { ...p.sprints, from: hand.filter((card) => card !== p.hideout && card !== 42) } }
      : p,
  );
  return { ...legal, placements };
}
