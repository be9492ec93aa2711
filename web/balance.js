// Who wins how often with each event variant when both computer players are `hard`: the balance a
// player can expect (issue 29, goal 4; BENCHMARKS.md). Written by `fugitive-sim --balance`
// from its reports; do not edit by hand.
export const BALANCE = {
  catchup: {
    games: 300,
    seeds: [1],
    marshal: { wins: 212, percent: 70.7, low: 65.3, high: 75.5 },
    fugitive: { wins: 88, percent: 29.3, low: 24.5, high: 34.7 },
  },
  discovery: {
    games: 600,
    seeds: [1],
    marshal: { wins: 366, percent: 61.0, low: 57.0, high: 64.8 },
    fugitive: { wins: 234, percent: 39.0, low: 35.2, high: 43.0 },
  },
  'helpful:fugitive': {
    games: 300,
    seeds: [1],
    marshal: { wins: 110, percent: 36.7, low: 31.4, high: 42.3 },
    fugitive: { wins: 190, percent: 63.3, low: 57.7, high: 68.6 },
  },
  'helpful:marshal': {
    games: 600,
    seeds: [1],
    marshal: { wins: 553, percent: 92.2, low: 89.7, high: 94.1 },
    fugitive: { wins: 47, percent: 7.8, low: 5.9, high: 10.3 },
  },
  off: {
    games: 1300,
    seeds: [1],
    marshal: { wins: 973, percent: 74.8, low: 72.4, high: 77.1 },
    fugitive: { wins: 327, percent: 25.2, low: 22.9, high: 27.6 },
  },
  random: {
    games: 300,
    seeds: [1],
    marshal: { wins: 221, percent: 73.7, low: 68.4, high: 78.3 },
    fugitive: { wins: 79, percent: 26.3, low: 21.7, high: 31.6 },
  },
};
