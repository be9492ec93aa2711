// Who wins how often with each event variant when both computer players are `hard`: the balance a
// player can expect (issue 29, goal 4; BENCHMARKS.md). Written by `fugitive-sim --balance`
// from its reports; do not edit by hand.
export const BALANCE = {
  discovery: {
    games: 100,
    seeds: [1],
    marshal: { wins: 58, percent: 58.0, low: 48.2, high: 67.2 },
    fugitive: { wins: 42, percent: 42.0, low: 32.8, high: 51.8 },
  },
  'helpful:marshal': {
    games: 100,
    seeds: [1],
    marshal: { wins: 91, percent: 91.0, low: 83.8, high: 95.2 },
    fugitive: { wins: 9, percent: 9.0, low: 4.8, high: 16.2 },
  },
  random: {
    games: 100,
    seeds: [1],
    marshal: { wins: 69, percent: 69.0, low: 59.4, high: 77.2 },
    fugitive: { wins: 31, percent: 31.0, low: 22.8, high: 40.6 },
  },
};
