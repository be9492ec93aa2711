// How the tests' Fugitive plays: a simple greedy player that reaches 42 in a dozen turns or so.
// It reads only what the Fugitive sees (his hand and the last card of the trail).

export const sprintValue = (c) => (c === 0 ? 0 : c % 2 === 0 ? 2 : 1);

/// The fewest low cards of `spare` whose sprint values reach `need` (null: they can't).
function sprintSet(spare, need) {
  if (need <= 0) return [];
  const chosen = [];
  let value = 0;
  for (const card of [...spare].sort((a, b) => a - b)) {
    if (value >= need) break;
    chosen.push(card);
    value += sprintValue(card);
  }
  return value >= need ? chosen : null;
}

/// The Fugitive's placement: 42 as soon as it can be reached, else the highest card within 3,
/// else the lowest card that sprinting reaches; null means pass. `no42` keeps 42 back (the
/// opening may not play it).
export function plan(hand, last, { no42 = false } = {}) {
  const spare = hand.filter((c) => c !== 42);
  if (!no42 && hand.includes(42)) {
    const sprints = sprintSet(spare, 42 - last - 3);
    if (sprints) return { hideout: 42, sprints };
  }
  const near = spare.filter((c) => c > last && c - last <= 3);
  if (near.length) return { hideout: Math.max(...near), sprints: [] };
  for (const hideout of spare.filter((c) => c > last).sort((a, b) => a - b)) {
    const sprints = sprintSet(
      spare.filter((c) => c !== hideout),
      hideout - last - 3,
    );
    if (sprints) return { hideout, sprints };
  }
  return null;
}

/// The deck just above the end of the trail, or the next one that is not empty.
export function deckFor(last, sizes) {
  const order = last < 12 ? [1, 2, 3] : last < 26 ? [2, 3, 1] : [3, 2, 1];
  return order.find((d) => sizes[d] > 0) ?? null;
}
