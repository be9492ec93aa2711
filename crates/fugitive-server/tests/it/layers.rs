//! The server crate in layers (issue 24, `docs/architecture.md`): reads every file under `src/`,
//! collects each module's `crate::…` and `super::…` paths (and a parent's `use child::…`), and
//! fails on
//! - an import circle between modules,
//! - an import upward across the layers below,
//! - a source file over 700 lines,
//! - the room machine's files naming a clock, an RNG, a metric, a mailbox, tokio or axum.
//!
//! A module's unit tests (from its `#[cfg(test)]` on, or a `tests.rs` file) are left out: a
//! test may start a whole server to check a small module. A submodule's use of its parent or
//! an ancestor (`super::Machine` in `room/machine/clock.rs`) is not an import: a module and
//! its submodules are one module spread over files (one type's `impl` may be split across
//! them), while a parent's use of its child, and everything between siblings, counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first; a module may import its own layer and those below. The longest
/// listed prefix of a module's path gives its layer.
const LAYERS: &[(&str, &[&str])] = &[
    ("leaves", &["config", "limit", "mailbox", "metrics", "open_files"]),
    ("model", &["model"]),
    (
        "wire, SQL, the computer, Web Push, puzzles and the background workers",
        &["protocol", "db", "computer", "push", "puzzles", "background"],
    ),
    ("leases", &["cluster::lease"]),
    ("the machine", &["room::machine"]),
    ("the room's shell", &["room"]),
    ("rooms, the lobby and the cluster", &["rooms", "lobby", "cluster", "analysis"]),
    ("app", &["app"]),
    (
        "edges",
        &[
            "http",
            "http_profile",
            "http_push",
            "http_puzzles",
            "http_analysis",
            "socket",
            "socket_lobby",
            "web",
            "serve",
        ],
    ),
    ("wiring", &["lib", "main"]),
];

/// Words the room machine's files may not name: it takes time and randomness as inputs and
/// hands frames out; the shell owns clocks, sockets, metrics and tasks.
const NOT_IN_THE_MACHINE: &[&str] = &[
    "Instant::now",
    "SystemTime",
    "now_ms",
    "thread_rng",
    "rand::random",
    "metrics",
    "Mailbox",
    "tokio",
    "axum",
];

const MAX_LINES: usize = 700;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/room/machine/clock.rs` → `room::machine::clock`; `src/room/mod.rs` → `room`;
/// `src/lib.rs` → `lib`.
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|last| last == "mod") && parts.len() > 1 {
        parts.pop();
    }
    parts.join("::")
}

/// Every `.rs` file under `src/` but unit-test files, as (module, path, text).
fn sources() -> Vec<(String, PathBuf, String)> {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter(|path| path.file_stem().is_some_and(|stem| stem != "tests"))
        .map(|path| (module_of(&path), path.clone(), std::fs::read_to_string(&path).unwrap()))
        .collect()
}

/// The code of a file without its comments and its unit tests.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let line = match line.find("//") {
            // Not `"http://…"` in a string.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a `use` tree spells, from `text` just after a `::`: `a::b::{c, d::e}` gives
/// `a::b::c` and `a::b::d::e`.
fn paths_from(text: &str, prefix: &str, out: &mut Vec<String>) {
    let text = text.trim_start();
    if let Some(inner) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (at, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths_from(&inner[start..at], prefix, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths_from(&inner[start..at], prefix, out);
                    start = at + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    let (segment, rest) = text.split_at(end);
    if segment.is_empty() {
        if !prefix.is_empty() {
            out.push(prefix.to_string());
        }
        return;
    }
    let path = if prefix.is_empty() { segment.to_string() } else { format!("{prefix}::{segment}") };
    match rest.strip_prefix("::") {
        Some(rest) => paths_from(rest, &path, out),
        None => out.push(path),
    }
}

/// The module a path names: its longest prefix that is a module, or `lib` for an item of the
/// crate's root.
fn resolve(path: &str, modules: &BTreeSet<String>) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find(|candidate| modules.contains(candidate))
        .unwrap_or_else(|| "lib".to_string())
}

fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((parent, _)) => parent.to_string(),
        None => "lib".to_string(),
    }
}

/// Each module's imports of other modules of the crate.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let sources = sources();
    let modules: BTreeSet<String> = sources.iter().map(|(module, ..)| module.clone()).collect();
    let mut graph = BTreeMap::new();
    for (module, _, text) in &sources {
        let code = code(text);
        let mut paths = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            if at > 0 && code[..at].ends_with(is_ident) {
                continue;
            }
            paths_from(&code[at + "crate::".len()..], "", &mut paths);
        }
        // `super::` from a `mod.rs` or a file: the parent of this module.
        for (at, _) in code.match_indices("super::") {
            if at > 0 && code[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                continue;
            }
            let mut relative = Vec::new();
            paths_from(&code[at + "super::".len()..], "", &mut relative);
            let base = parent(module);
            for path in relative {
                paths.push(if base == "lib" { path } else { format!("{base}::{path}") });
            }
        }
        // A parent's `use child::…` (children declared with `mod child;`).
        let base = if module == "lib" || module == "main" { String::new() } else { format!("{module}::") };
        for line in code.lines() {
            let line = line.trim_start();
            let Some(rest) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("use ")) else {
                continue;
            };
            let mut relative = Vec::new();
            paths_from(rest, "", &mut relative);
            for path in relative {
                let full = format!("{base}{path}");
                let first =
                    full.split("::").take(base.matches("::").count() + 1).collect::<Vec<_>>().join("::");
                if modules.contains(&first) && first != *module {
                    paths.push(full);
                }
            }
        }
        let mut targets = BTreeSet::new();
        for path in paths {
            let target = resolve(&path, &modules);
            // Its own module or an ancestor, or the crate's root (`lib.rs`) by `main.rs`.
            let ancestor = module.starts_with(&format!("{target}::"));
            if target != *module && !ancestor && !(module == "main" && target == "lib") {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

fn layer(module: &str) -> usize {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(rank, (_, prefixes))| prefixes.iter().map(move |prefix| (rank, prefix)))
        .filter(|(_, prefix)| module == **prefix || module.starts_with(&format!("{prefix}::")))
        .max_by_key(|(_, prefix)| prefix.len())
        .map(|(rank, _)| rank)
        .unwrap_or_else(|| panic!("module `{module}` is in no layer: add it to LAYERS"))
}

/// Strongly connected components of more than one module (Tarjan's).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        state.on_stack.insert(node);
        for next in state.graph.get(node).into_iter().flatten() {
            if !state.graph.contains_key(next.as_str()) {
                continue;
            }
            if !state.index.contains_key(next.as_str()) {
                visit(state, next);
                let low = state.low[node].min(state.low[next.as_str()]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next.as_str()) {
                let low = state.low[node].min(state.index[next.as_str()]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[test]
fn no_import_circle_between_the_modules() {
    let found = circles(&imports());
    assert!(found.is_empty(), "import circles: {found:#?}");
}

#[test]
fn imports_go_down_the_layers() {
    let mut upward = Vec::new();
    for (module, targets) in imports() {
        for target in targets {
            if layer(&target) > layer(&module) {
                upward.push(format!(
                    "{module} ({}) imports {target} ({})",
                    LAYERS[layer(&module)].0,
                    LAYERS[layer(&target)].0
                ));
            }
        }
    }
    assert!(upward.is_empty(), "upward imports: {upward:#?}");
}

#[test]
fn no_source_file_is_over_700_lines() {
    let mut files = Vec::new();
    self::files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:#?}");
}

#[test]
fn the_machine_reads_no_clock_draws_no_random_number_and_knows_no_socket() {
    let mut named = Vec::new();
    for (module, path, text) in sources() {
        if !(module == "room::machine" || module.starts_with("room::machine::")) {
            continue;
        }
        for (number, line) in code(&text).lines().enumerate() {
            for word in NOT_IN_THE_MACHINE {
                if line.contains(word) {
                    named.push(format!("{}:{}: {word}", path.display(), number + 1));
                }
            }
        }
    }
    assert!(named.is_empty(), "the machine names: {named:#?}");
}

/// The checks themselves: a circle, an upward import and a nested `use` tree are found.
#[test]
fn the_checks_find_what_they_look_for() {
    let mut paths = Vec::new();
    paths_from("{a::{b, c::D}, e}; use x;", "", &mut paths);
    assert_eq!(paths, ["a::b", "a::c::D", "e"]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(circles(&graph), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    assert!(layer("http") > layer("rooms"));
    assert!(layer("room::machine::clock") < layer("room::handle"));
    assert!(layer("cluster::lease") < layer("cluster::listen"));
}
