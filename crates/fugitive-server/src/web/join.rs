//! A page's modules joined into one file at start-up (issue 28). Over plain HTTP/1.1 a browser
//! asks for at most six files at once, and a slow network costs each request a round trip: the
//! table's 29 modules took about a second before its first state. Joined, they are one request.
//!
//! The file holds each module of the page's static graph in the order the browser evaluates
//! them (a module after the ones it imports, in the order of its imports; the page's entries
//! first, then its view), each in an async function of its own, so that its top-level names
//! stay its own as in a module and its top-level `await` still waits:
//!
//! ```js
//! const __joined_3 = await (async () => {
//! const { h, replace } = __joined_0; // was: import { h, replace } from './dom.js';
//! function table() { … }             // was: export function table() { … }
//! return { table };
//! })();
//! export const { table } = __joined_3;
//! ```
//!
//! The page's import map sends each joined module's URL to the file (`assets.rs`), so a module
//! imported later (`import('./howto.js')`, which imports `./dom.js`) and the entry's own import
//! get the same single instance, and the file's module specifiers (`import('./howto.js')`)
//! are made absolute, since the file is not where its modules were.
//!
//! What a copy of each export would not keep, it refuses, and the page then loads its modules
//! one by one as before: an export other than `export function|class|const NAME` (an exported
//! `let` is a live binding), `import * as` and default imports or exports, `import.meta`, a
//! cycle, two modules exporting one name, a name imported from a module that does not export
//! it, a computed `import(…)` in a module outside the root directory. The modules are read as
//! prettier writes them: each import and export at the start of a line, an import ending at
//! its line's `;`.

use std::collections::{BTreeSet, HashMap};

/// The prefix of the name the file gives each module's exports.
const PREFIX: &str = "__joined_";

/// A page's modules as one file.
#[derive(Debug, PartialEq, Eq)]
pub struct Joined {
    /// The modules it holds, in the order they run.
    pub modules: Vec<String>,
    /// The file's text, a module.
    pub source: String,
}

/// Why the modules were not joined.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{module}: {why}")]
pub struct Refusal {
    pub module: String,
    pub why: &'static str,
}

/// One line of a module as the file holds it.
#[derive(Debug)]
enum Line {
    Text(String),
    /// An import: from which module, and each (exported, local) name.
    Import(String, Vec<(String, String)>),
}

#[derive(Debug)]
struct Module {
    lines: Vec<Line>,
    exports: Vec<String>,
}

/// The static graph of `roots` (URL paths without `/`: `app.js`, `room.js`), read with
/// `source`, joined into one module.
///
/// # Errors
///
/// A [`Refusal`] names the first module that could not be joined and why (see the module's
/// documentation); a module that `source` does not have is one.
pub fn join(roots: &[String], source: impl Fn(&str) -> Option<String>) -> Result<Joined, Refusal> {
    let mut parsed: HashMap<String, Module> = HashMap::new();
    let mut order = Vec::new();
    let mut open = Vec::new();
    for root in roots {
        visit(root, &source, &mut parsed, &mut open, &mut order)?;
    }
    let index: HashMap<&str, usize> = order.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    let mut exported = BTreeSet::new();
    for name in &order {
        for export in &parsed[name].exports {
            if !exported.insert(export.as_str()) {
                return Err(refusal(name, "another joined module exports the same name"));
            }
        }
    }
    let mut out =
        format!("// {} modules joined by the server (web/join.rs): {}.\n", order.len(), order.join(", "));
    for (i, name) in order.iter().enumerate() {
        let module = &parsed[name];
        out.push_str(&format!("// {name}\nconst {PREFIX}{i} = await (async () => {{\n"));
        for line in &module.lines {
            match line {
                Line::Text(text) => out.push_str(text),
                Line::Import(from, names) => {
                    let exporter = &parsed[from].exports;
                    if names.iter().any(|(name, _)| !exporter.contains(name)) {
                        return Err(refusal(name, "imports a name not exported"));
                    }
                    let bindings: Vec<String> = names
                        .iter()
                        .map(
                            |(name, local)| {
                                if name == local { name.clone() } else { format!("{name}: {local}") }
                            },
                        )
                        .collect();
                    if !bindings.is_empty() {
                        out.push_str(&format!(
                            "const {{ {} }} = {PREFIX}{};",
                            bindings.join(", "),
                            index[from.as_str()]
                        ));
                    }
                }
            }
            out.push('\n');
        }
        out.push_str(&format!("return {{ {} }};\n}})();\n", module.exports.join(", ")));
        if !module.exports.is_empty() {
            out.push_str(&format!("export const {{ {} }} = {PREFIX}{i};\n", module.exports.join(", ")));
        }
    }
    Ok(Joined { modules: order, source: out })
}

/// Reads `name` and, first, the modules it imports (depth first, in the order of its imports):
/// `order` ends with it.
fn visit(
    name: &str,
    source: &impl Fn(&str) -> Option<String>,
    parsed: &mut HashMap<String, Module>,
    open: &mut Vec<String>,
    order: &mut Vec<String>,
) -> Result<(), Refusal> {
    if open.iter().any(|m| m == name) {
        return Err(refusal(name, "is imported in a cycle"));
    }
    if parsed.contains_key(name) {
        return Ok(());
    }
    let text = source(name).ok_or_else(|| refusal(name, "is not a file of the client"))?;
    let module = parse(name, &text)?;
    let imports: Vec<String> = module
        .lines
        .iter()
        .filter_map(|line| match line {
            Line::Import(from, _) => Some(from.clone()),
            Line::Text(_) => None,
        })
        .collect();
    open.push(name.to_owned());
    for import in imports {
        visit(&import, source, parsed, open, order)?;
    }
    open.pop();
    parsed.insert(name.to_owned(), module);
    order.push(name.to_owned());
    Ok(())
}

fn refusal(module: &str, why: &'static str) -> Refusal {
    Refusal { module: module.to_owned(), why }
}

/// A module's lines: its imports read, `export ` taken off its declarations, its dynamic
/// imports' relative specifiers made absolute.
fn parse(name: &str, text: &str) -> Result<Module, Refusal> {
    if text.contains("import.meta") {
        return Err(refusal(name, "uses import.meta"));
    }
    if text.contains(PREFIX) {
        return Err(refusal(name, "uses the joined file's own names"));
    }
    let text = absolute_dynamic_imports(name, text)?;
    let mut lines = Vec::new();
    let mut exports = Vec::new();
    let mut statement: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let line = line.strip_suffix('\n').unwrap_or(line);
        if statement.is_none() && line.starts_with("import ") {
            statement = Some(String::new());
        }
        if let Some(text) = statement.as_mut() {
            text.push_str(line);
            text.push(' ');
            if line.trim_end().ends_with(';') {
                lines.push(import(name, text)?);
                statement = None;
            }
            continue;
        }
        match line.strip_prefix("export ") {
            Some(declaration) => {
                exports.push(
                    declared(declaration)
                        .ok_or_else(|| refusal(name, "exports other than a function, class or const"))?,
                );
                lines.push(Line::Text(declaration.to_owned()));
            }
            None => lines.push(Line::Text(line.to_owned())),
        }
    }
    if statement.is_some() {
        return Err(refusal(name, "an import without its end"));
    }
    Ok(Module { lines, exports })
}

/// `import { a, b as c } from './x.js';` or `import './x.js';`.
fn import(module: &str, statement: &str) -> Result<Line, Refusal> {
    let rest = statement.trim().strip_prefix("import").unwrap_or_default().trim_start();
    let (names, specifier) = match rest.strip_prefix('{') {
        Some(rest) => {
            let (names, after) =
                rest.split_once('}').ok_or_else(|| refusal(module, "an import without its end"))?;
            let specifier = after
                .trim_start()
                .strip_prefix("from")
                .ok_or_else(|| refusal(module, "an import without from"))?;
            (names, specifier.trim())
        }
        None if rest.starts_with(['\'', '"']) => ("", rest),
        None => return Err(refusal(module, "a default or namespace import")),
    };
    let specifier = specifier.trim_end_matches(';').trim();
    let quoted =
        specifier.len() >= 2 && specifier.starts_with(['\'', '"']) && specifier.ends_with(&specifier[..1]);
    if !quoted {
        return Err(refusal(module, "an import's specifier is not a string"));
    }
    let names = names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| match n.split_once(" as ") {
            Some((name, local)) => (name.trim().to_owned(), local.trim().to_owned()),
            None => (n.to_owned(), n.to_owned()),
        })
        .collect();
    Ok(Line::Import(resolve(module, &specifier[1..specifier.len() - 1]), names))
}

/// The name an `export` declares: `function NAME`, `async function NAME`, `function* NAME`,
/// `class NAME`, `const NAME =`; `None` for any other export.
fn declared(declaration: &str) -> Option<String> {
    let rest = ["async function ", "function* ", "function ", "class ", "const "]
        .iter()
        .find_map(|keyword| declaration.strip_prefix(keyword))?
        .trim_start();
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// `text` with each `import('./x.js')` written `import('/x.js')`: the joined file is not where
/// the module was. A computed specifier (`` import(`./i18n/${lang}.js`) ``) resolves against
/// the file's URL, the root, so it is kept in a module at the root and refused elsewhere.
fn absolute_dynamic_imports(name: &str, text: &str) -> Result<String, Refusal> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("import(") {
        let open = at + "import(".len();
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let skipped = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..skipped]);
        rest = &rest[skipped..];
        let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"');
        let literal = quote.and_then(|q| rest[1..].find(q).map(|end| (q, &rest[1..=end])));
        match literal {
            Some((q, specifier)) if specifier.starts_with("./") || specifier.starts_with("../") => {
                out.push_str(&format!("{q}/{}{q}", resolve(name, specifier)));
                rest = &rest[specifier.len() + 2..];
            }
            Some(_) => {}
            None if name.contains('/') => return Err(refusal(name, "a computed import outside the root")),
            None => {}
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// `specifier` resolved against the module path `module` (`panels/a.js` + `../dom.js` = `dom.js`).
pub fn resolve(module: &str, specifier: &str) -> String {
    let mut parts: Vec<&str> =
        if specifier.starts_with('/') { Vec::new() } else { module.split('/').collect::<Vec<_>>() };
    parts.pop();
    for segment in specifier.trim_start_matches('/').split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            segment => parts.push(segment),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> =
            list.iter().map(|(n, s)| ((*n).to_owned(), (*s).to_owned())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn modules_run_after_their_imports_each_in_its_own_scope() {
        let source = files(&[
            (
                "app.js",
                "import { h } from './dom.js';\nimport { t as say } from './i18n.js';\nconst x = 1;\nh(say(x));\n",
            ),
            ("dom.js", "const x = 2;\nexport function h(v) {\n  return v + x;\n}\n"),
            ("i18n.js", "import {\n  h,\n} from './dom.js';\nawait 0;\nexport const t = (v) => h(v);\n"),
            (
                "room.js",
                "import { h } from './dom.js';\nexport async function showRoom() {\n  await import('./panels/x.js');\n}\n",
            ),
        ]);
        let joined = join(&["app.js".to_owned(), "room.js".to_owned()], source).unwrap();
        assert_eq!(joined.modules, ["dom.js", "i18n.js", "app.js", "room.js"]);
        assert_eq!(
            joined.source,
            "// 4 modules joined by the server (web/join.rs): dom.js, i18n.js, app.js, room.js.\n\
             // dom.js\nconst __joined_0 = await (async () => {\nconst x = 2;\nfunction h(v) {\n  return v + x;\n}\n\
             return { h };\n})();\nexport const { h } = __joined_0;\n\
             // i18n.js\nconst __joined_1 = await (async () => {\nconst { h } = __joined_0;\nawait 0;\nconst t = (v) => h(v);\n\
             return { t };\n})();\nexport const { t } = __joined_1;\n\
             // app.js\nconst __joined_2 = await (async () => {\nconst { h } = __joined_0;\nconst { t: say } = __joined_1;\n\
             const x = 1;\nh(say(x));\nreturn {  };\n})();\n\
             // room.js\nconst __joined_3 = await (async () => {\nconst { h } = __joined_0;\n\
             async function showRoom() {\n  await import('/panels/x.js');\n}\nreturn { showRoom };\n})();\n\
             export const { showRoom } = __joined_3;\n"
        );
    }

    #[test]
    fn what_a_copy_would_not_keep_is_refused() {
        let refused = |list: &[(&str, &str)]| join(&["a.js".to_owned()], files(list)).unwrap_err();
        let why = |list: &[(&str, &str)]| refused(list).why;
        assert_eq!(why(&[("a.js", "export let n = 1;\n")]), "exports other than a function, class or const");
        assert_eq!(why(&[("a.js", "export default 1;\n")]), "exports other than a function, class or const");
        assert_eq!(why(&[("a.js", "export { b };\n")]), "exports other than a function, class or const");
        assert_eq!(
            why(&[("a.js", "import * as b from './b.js';\n"), ("b.js", "")]),
            "a default or namespace import"
        );
        assert_eq!(
            why(&[("a.js", "import b from './b.js';\n"), ("b.js", "")]),
            "a default or namespace import"
        );
        assert_eq!(why(&[("a.js", "const u = import.meta.url;\n")]), "uses import.meta");
        assert_eq!(why(&[("a.js", "import './b.js';\n")]), "is not a file of the client");
        let cycle = refused(&[("a.js", "import './b.js';\n"), ("b.js", "import './a.js';\n")]);
        assert_eq!((cycle.module.as_str(), cycle.why), ("a.js", "is imported in a cycle"));
        assert_eq!(
            why(&[("a.js", "import { c } from './b.js';\n"), ("b.js", "export const d = 1;\n")]),
            "imports a name not exported"
        );
        assert_eq!(
            why(&[("a.js", "import './b.js';\nexport const d = 2;\n"), ("b.js", "export const d = 1;\n")]),
            "another joined module exports the same name"
        );
        let computed = refused(&[("a.js", "import './p/b.js';\n"), ("p/b.js", "import(`./${x}.js`);\n")]);
        assert_eq!(
            (computed.module.as_str(), computed.why),
            ("p/b.js", "a computed import outside the root")
        );
        // At the root, a computed import resolves as it did.
        assert!(join(&["a.js".to_owned()], files(&[("a.js", "import(`./i18n/${x}.js`);\n")])).is_ok());
    }
}
