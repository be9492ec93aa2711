// Small drawings of the table, as SVG data URLs (emoji fonts are not everywhere: headless
// Chromium has none): the footprint of a sprint value and the emblem on a card's back; and the
// icons of a few buttons, as inline SVG in the text's colour (symbols such as ⏮ ⏭ ♪ are missing
// from many fonts and draw as empty boxes).

const svg = (body, box = '0 0 24 24') =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="${box}">${body}</svg>`)}`;

/// One bare footprint: a card's sprint value is one (odd) or two (even) of them.
export const FOOTPRINT = svg(
  '<g fill="#7a5a23"><ellipse cx="12" cy="15.5" rx="4.6" ry="6.6"/><circle cx="8.2" cy="6.4" r="1.5"/>' +
    '<circle cx="11" cy="4.8" r="1.6"/><circle cx="14.2" cy="5.1" r="1.5"/><circle cx="16.6" cy="7" r="1.3"/></g>',
);

/// The emblem on the back of every card: a compass rose.
export const BACK = svg(
  '<g fill="none" stroke="#9db7e0" stroke-width="1.2"><circle cx="12" cy="12" r="8"/><circle cx="12" cy="12" r="3"/></g>' +
    '<path fill="#9db7e0" d="M12 1.5l1.6 7.2L12 12l-1.6-3.3zM12 22.5l-1.6-7.2L12 12l1.6 3.3zM1.5 12l7.2-1.6L12 12l-3.3 1.6zM22.5 12l-7.2 1.6L12 12l3.3-1.6z"/>',
);

/// The icons' shapes on a 24×24 grid, drawn in `currentColor`.
const ICONS = {
  first: '<path fill="currentColor" d="M5 5h2.5v14H5zM19 5v14L8.5 12z"/>',
  prev: '<path fill="currentColor" d="M17 5v14L6 12z"/>',
  next: '<path fill="currentColor" d="M7 5v14l11-7z"/>',
  last: '<path fill="currentColor" d="M16.5 5H19v14h-2.5zM5 5v14l10.5-7z"/>',
  sound:
    '<path fill="currentColor" d="M3 9h4l5-4v14l-5-4H3z"/>' +
    '<path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M15.5 9a4 4 0 0 1 0 6M18 6.5a7.5 7.5 0 0 1 0 11"/>',
  soundOff:
    '<path fill="currentColor" d="M3 9h4l5-4v14l-5-4H3z"/>' +
    '<path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M16 9.5l5 5M21 9.5l-5 5"/>',
};

/// An icon for a button whose words say what it does: hidden from screen readers.
export function icon(name) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  el.setAttribute('viewBox', '0 0 24 24');
  el.setAttribute('class', `icon icon-${name}`);
  el.setAttribute('aria-hidden', 'true');
  el.setAttribute('focusable', 'false');
  el.innerHTML = ICONS[name];
  return el;
}
