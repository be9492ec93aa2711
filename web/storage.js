// The browser's storage, which may be missing or refuse (private mode, a full quota, a sandboxed
// frame, node in the tests): every read and write of the client goes through here, and none
// throws. What cannot be stored lasts as long as the page; what cannot be read is not there.

/// One storage area (`localStorage` or `sessionStorage`), if this page may use it.
function area(name) {
  try {
    return globalThis[name] ?? null;
  } catch {
    return null;
  }
}

function storage(name) {
  return {
    /// The text under `key`, or null.
    get(key) {
      try {
        return area(name)?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    /// Keeps `value` (a string) under `key`, if the browser lets it.
    set(key, value) {
      try {
        area(name)?.setItem(key, value);
      } catch {
        // Not kept: it lasts as long as the page.
      }
    },
    /// Forgets `key`.
    remove(key) {
      try {
        area(name)?.removeItem(key);
      } catch {
        // Nothing kept, nothing to forget.
      }
    },
    /// Every key held.
    keys() {
      try {
        const held = area(name);
        return held ? Array.from({ length: held.length }, (_, i) => held.key(i)).filter((k) => k !== null) : [];
      } catch {
        return [];
      }
    },
    /// The JSON value under `key`; `fallback` when there is none or it does not parse.
    getJson(key, fallback) {
      const text = this.get(key);
      if (text === null) return fallback;
      try {
        return JSON.parse(text) ?? fallback;
      } catch {
        return fallback;
      }
    },
    /// Keeps `value` as JSON under `key`.
    setJson(key, value) {
      this.set(key, JSON.stringify(value));
    },
  };
}

/// This browser's storage, kept across visits.
export const local = storage('localStorage');
/// This tab's storage, kept while the tab lives.
export const session = storage('sessionStorage');
