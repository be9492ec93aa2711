// A tiny helper to build DOM trees without a framework.

/// `h('button', {class: 'x', onclick: f, 'data-testid': 'go'}, 'Go')`. `aria-*` and `data-*`
/// booleans are written as "true"/"false"; other attributes whose value is `false`, `null` or
/// `undefined` are left out, and `true` sets an empty attribute.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, raw] of Object.entries(attrs ?? {})) {
    const value = typeof raw === 'boolean' && /^(aria|data)-/.test(name) ? String(raw) : raw;
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'class' && Array.isArray(value)) {
      el.className = value.filter(Boolean).join(' ');
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/// Replaces the children of `parent`, keeping keyboard focus on the element with the same
/// `data-testid` (or id) as before, so re-rendering never throws a keyboard user off.
export function replace(parent, ...children) {
  afterPress(parent, () => replaceNow(parent, children));
}

function replaceNow(parent, children) {
  const active = document.activeElement;
  const key = active && parent.contains(active) ? focusKey(active) : null;
  parent.replaceChildren();
  append(parent, children);
  if (key) {
    const again = parent.querySelector(key);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

// A redraw that replaced a button between its pointerdown and its pointerup would lose the
// click: the press starts on the old button and ends on the new one (or beside it, when the
// redraw moved it), and the browser clicks neither. So while a press is under way inside a
// redrawn part, its redraw waits until the press ends and its click has run; a press held
// longer than `HELD_MS` no longer holds the page still.
const HELD_MS = 1000;
let pressed = null;
let pressedAt = 0;
let held = null;
const waiting = new Map();

// Not in Node, where the unit tests import this module.
globalThis.addEventListener?.(
  'pointerdown',
  (event) => {
    pressed = event.target;
    pressedAt = performance.now();
  },
  true,
);
for (const type of ['pointerup', 'pointercancel']) {
  globalThis.addEventListener?.(
    type,
    () => {
      pressed = null;
      // The click comes in the same task as the pointerup: draw after it.
      setTimeout(drawWaiting);
    },
    true,
  );
}

function drawWaiting() {
  clearTimeout(held);
  held = null;
  const draws = [...waiting.values()];
  waiting.clear();
  for (const draw of draws) draw();
}

/// Runs `draw` now, or, while a press is under way inside `parent`, once it has ended (the
/// latest `draw` for a `parent` wins).
export function afterPress(parent, draw) {
  if (pressed && parent.contains(pressed) && performance.now() - pressedAt < HELD_MS) {
    held ??= setTimeout(drawWaiting, HELD_MS);
    waiting.set(parent, draw);
  } else {
    waiting.delete(parent);
    draw();
  }
}

function focusKey(el) {
  if (el.dataset.testid) return `[data-testid="${CSS.escape(el.dataset.testid)}"]`;
  if (el.id) return `#${CSS.escape(el.id)}`;
  return null;
}

/// Whether a scrolled box shows its end (within a few pixels): a list read at its end follows
/// what is added to it; read further up, it stays where the reader is.
export const atEnd = (el) => el.scrollHeight - el.scrollTop - el.clientHeight < 8;

/// Notes where the scrolled list `selector` inside `parent` is before a re-render replaces it,
/// and returns the function that puts the new list back: at its end when the old one was (or
/// when there was none, or when `toEnd` asks for it), otherwise at the same scroll position.
export function keepScroll(parent, selector) {
  const old = parent.querySelector(selector);
  const follow = !old || atEnd(old);
  const top = old ? old.scrollTop : 0;
  return (toEnd = false) => {
    const list = parent.querySelector(selector);
    if (list) list.scrollTop = follow || toEnd ? list.scrollHeight : top;
  };
}

/// Scrolls the window as little as it takes to show all of `elements` (those present), together
/// when they fit: smoothly, unless the reader asks for less motion.
export function bringIntoView(elements) {
  const boxes = elements.filter(Boolean).map((el) => el.getBoundingClientRect());
  if (!boxes.length) return;
  const top = Math.min(...boxes.map((b) => b.top));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  // Above the window: up to their top. Below it: down until their bottom shows, never past their top.
  const by = top < 0 ? top : bottom > window.innerHeight ? Math.min(bottom - window.innerHeight, top) : 0;
  if (!by) return;
  const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
  window.scrollBy({ top: by, behavior: still ? 'auto' : 'smooth' });
}

/// Sprint value of a card (R1): even +2, odd +1; 0 sprints nothing.
export function sprintValue(card) {
  if (card === 0) return 0;
  return card % 2 === 0 ? 2 : 1;
}

export function sprintTotal(cards) {
  return cards.reduce((sum, c) => sum + sprintValue(c), 0);
}

/// Says `text` to screen readers through the page's live region.
export function announce(text) {
  const live = document.getElementById('live');
  if (!live) return;
  // Clearing first makes a repeated sentence be read again.
  live.textContent = '';
  setTimeout(() => {
    live.textContent = text;
  }, 50);
}
