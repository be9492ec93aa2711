//! The web client is compressed at start-up in memory sized to its files, not to brotli's
//! largest windows (issue 28: a new server held 113–140 MB for its first seconds, 53 MB after).
//! Alone in its test binary: it counts the allocations of the thread that compresses with a
//! global allocator of its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting what the current thread holds.
struct Counting;

thread_local! {
    /// Bytes allocated less bytes freed on this thread (a block freed on another thread than
    /// its own is counted there), and the most of it since [`reset`].
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(bytes: isize) {
    // `try_with`: nothing is counted while the thread's locals are torn down.
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

// SAFETY: every call is passed to `System` as it came; the counting allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            count(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { System.dealloc(block, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            count(layout.size() as isize);
        }
        block
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most this thread held above what it held when `work` began.
fn peak_of(work: impl FnOnce()) -> usize {
    let start = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    work();
    (PEAK.with(Cell::get) - start) as usize
}

#[test]
fn compressing_the_client_takes_memory_in_proportion_to_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let page = "<!doctype html><title>t</title><script type=\"module\" src=\"/app.js\"></script>\n";
    std::fs::write(dir.path().join("index.html"), page).unwrap();
    // 50 KB of script: more than the encoder reads at once, so that it sets up its whole window.
    let script: String = (0..2000).map(|i| format!("export const v{i} = {};\n", i * 7919 % 10007)).collect();
    std::fs::write(dir.path().join("app.js"), &script).unwrap();
    let peak = peak_of(|| drop(fugitive_server::web::routes::<()>(dir.path())));
    // The files and their encodings are a few hundred KB; brotli at 22 bits took 10 MiB
    // (quality 5, a debug build) or 45 MiB (quality 11, a release build) for this file; sized to
    // it, 1.5 MiB (quality 4) or 5 MiB (quality 11).
    assert!(peak < 8 << 20, "{} KiB held at once to serve a {} KB client", peak >> 10, script.len() / 1000);
}
