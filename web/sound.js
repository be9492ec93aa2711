// Optional sounds, made with WebAudio (no files to download): "your turn", "hideout found",
// "Manhunt" and game over. Off by default; the toggle in the header is remembered.

import { local } from './storage.js';

const KEY = 'fugitive:sound';
let context = null;
const listeners = new Set();

export function soundOn() {
  return local.get(KEY) === 'on';
}

export function setSound(on) {
  // Without storage the choice lasts for this page only.
  local.set(KEY, on ? 'on' : 'off');
  memory = on;
  for (const listener of listeners) listener(on);
}

let memory = null;
const enabled = () => memory ?? soundOn();

export function onSoundChange(listener) {
  listeners.add(listener);
}

// Each sound: notes as [frequency Hz, start s, length s], and the wave.
const SOUNDS = {
  turn: {
    wave: 'sine',
    notes: [
      [660, 0, 0.12],
      [880, 0.13, 0.16],
    ],
  },
  found: {
    wave: 'triangle',
    notes: [
      [523, 0, 0.1],
      [659, 0.09, 0.1],
      [784, 0.18, 0.1],
      [1047, 0.27, 0.22],
    ],
  },
  manhunt: {
    wave: 'sawtooth',
    notes: [
      [220, 0, 0.22],
      [185, 0.24, 0.22],
      [220, 0.48, 0.22],
      [185, 0.72, 0.3],
    ],
  },
  won: {
    wave: 'triangle',
    notes: [
      [523, 0, 0.14],
      [659, 0.14, 0.14],
      [784, 0.28, 0.14],
      [1047, 0.42, 0.4],
    ],
  },
  lost: {
    wave: 'sine',
    notes: [
      [392, 0, 0.2],
      [330, 0.2, 0.2],
      [262, 0.4, 0.45],
    ],
  },
};

/// Plays `name` when sounds are on. Every played sound is also counted on `<body data-sound>`
/// (the last one's name), so a test can tell it was asked for.
export function play(name) {
  if (!enabled() || !SOUNDS[name]) return;
  document.body.dataset.sound = name;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds ?? 0) + 1);
  try {
    context ??= new AudioContext();
    if (context.state === 'suspended') context.resume();
    const { wave, notes } = SOUNDS[name];
    const now = context.currentTime + 0.02;
    for (const [freq, start, length] of notes) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(wave === 'sawtooth' ? 0.05 : 0.12, now + start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(context.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.05);
    }
  } catch {
    // No audio here: the game goes on silently.
  }
}
