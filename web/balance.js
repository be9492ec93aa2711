// Who wins how often with each event variant when both computer players are `hard`: the balance a
// player can expect (issue 29, goal 4; BENCHMARKS.md). Written by `fugitive-sim --balance`
// from its reports; do not edit by hand.
export const BALANCE = {
  catchup: {
    games: 200,
    seeds: [1],
    marshal: { wins: 142, percent: 71.0, low: 64.4, high: 76.8 },
    fugitive: { wins: 58, percent: 29.0, low: 23.2, high: 35.6 },
  },
  discovery: {
    games: 500,
    seeds: [1],
    marshal: { wins: 309, percent: 61.8, low: 57.5, high: 66.0 },
    fugitive: { wins: 191, percent: 38.2, low: 34.0, high: 42.5 },
  },
  'helpful:fugitive': {
    games: 200,
    seeds: [1],
    marshal: { wins: 71, percent: 35.5, low: 29.2, high: 42.3 },
    fugitive: { wins: 129, percent: 64.5, low: 57.7, high: 70.8 },
  },
  'helpful:marshal': {
    games: 400,
    seeds: [1],
    marshal: { wins: 366, percent: 91.5, low: 88.4, high: 93.9 },
    fugitive: { wins: 34, percent: 8.5, low: 6.1, high: 11.6 },
  },
  random: {
    games: 300,
    seeds: [1],
    marshal: { wins: 221, percent: 73.7, low: 68.4, high: 78.3 },
    fugitive: { wins: 79, percent: 26.3, low: 21.7, high: 31.6 },
  },
};
