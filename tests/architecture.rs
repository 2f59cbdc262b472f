//! The house in layers (ARCHITECTURE.md), checked from the source: each top-level module
//! of the library uses only the modules its layer may use, so no import circle can form;
//! the files inside a layer, and the binary's modules, form no circle either; nothing in
//! the library prints; and no layer above the store names Oxigraph's store.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// What each top-level module of the library may use, as ARCHITECTURE.md lists it.
const LAYERS: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("read", &[]),
    ("check", &["model", "read"]),
    ("payload", &[]),
    ("import", &["model", "read", "check", "payload"]),
    ("rdf", &["model", "payload"]),
    ("query", &["rdf"]),
    ("reason", &["rdf"]),
    ("store", &["model", "rdf", "query", "reason"]),
    (
        "ingest",
        &["model", "read", "check", "import", "rdf", "store"],
    ),
    ("context", &["model", "payload", "query", "store"]),
    ("memory", &["model", "payload", "rdf", "query", "store"]),
    ("integrity", &["model", "read", "check", "rdf", "store"]),
    ("report", &["query", "store"]),
    ("generate", &[]),
    (
        "serve",
        &[
            "model",
            "read",
            "check",
            "import",
            "rdf",
            "query",
            "store",
            "ingest",
            "context",
            "memory",
            "integrity",
            "report",
        ],
    ),
];

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// A file's code, without its unit tests (the `#[cfg(test)]` module that ends a file)
/// and without comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file names through `crate::` paths (in `use` lines and
/// inline), and through `super::` from a module's own root.
fn uses(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (position, _) in code.match_indices(prefix) {
        let rest = &code[position + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment of each item at the group's own depth.
            let (mut depth, mut item_start) = (0_usize, true);
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        if !name.is_empty() {
                            found.insert(std::mem::take(&mut name));
                        }
                        item_start = true;
                    }
                    c if item_start && (c.is_alphanumeric() || c == '_') => name.push(c),
                    _ if item_start && !name.is_empty() => {
                        found.insert(std::mem::take(&mut name));
                        item_start = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                found.insert(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

/// Module -> modules it uses, for the files under `root` (each first-level entry a
/// module), by `prefix` (`crate::`).
fn module_graph(root: &Path, skip: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    rust_files(root, &mut files);
    for file in files {
        let relative = file.strip_prefix(root).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        if skip.contains(&module.as_str()) {
            continue;
        }
        let used = uses(&code(&file), "crate::");
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(used.into_iter().filter(|used| *used != module));
    }
    graph
}

/// A circle in the graph, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| n == node) {
            let mut found = path[start..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn library_layers_use_only_the_layers_below_them() {
    let graph = module_graph(&source_dir(), &["bin", "lib"]);
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    for (module, used) in &graph {
        let Some(may_use) = allowed.get(module.as_str()) else {
            panic!("src/{module} is not a layer of ARCHITECTURE.md: add it there and here")
        };
        for used in used {
            assert!(
                may_use.contains(&used.as_str()),
                "src/{module} uses crate::{used}, which its layer may not (it may use {may_use:?})"
            );
        }
    }
    assert_eq!(circle(&graph), None);
}

#[test]
fn no_file_circle_inside_a_layer() {
    // Within one folder, a file names a sibling file's module through `super::`.
    let mut folders = vec![source_dir().join("bin/ihigraph/commands")];
    for (layer, _) in LAYERS {
        folders.push(source_dir().join(layer));
    }
    for folder in folders {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let siblings: BTreeSet<String> = fs::read_dir(&folder)
            .unwrap()
            .filter_map(|entry| {
                let path = entry.unwrap().path();
                let name = path.file_stem()?.to_string_lossy().into_owned();
                (name != "mod").then_some(name)
            })
            .collect();
        for sibling in &siblings {
            let path = folder.join(format!("{sibling}.rs"));
            if !path.is_file() {
                continue;
            }
            let used = uses(&code(&path), "super::");
            graph.insert(
                sibling.clone(),
                used.intersection(&siblings).cloned().collect(),
            );
        }
        assert_eq!(circle(&graph), None, "{}: {graph:?}", folder.display());
    }
}

#[test]
fn the_binary_has_no_import_circle() {
    let graph = module_graph(&source_dir().join("bin/ihigraph"), &["main"]);
    assert!(graph.contains_key("commands"), "{graph:?}");
    assert_eq!(circle(&graph), None, "{graph:?}");
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(
        circle(&graph),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(str::to_owned)
                .collect()
        )
    );
    assert_eq!(
        uses("use crate::{model::Role, rdf::{a, b}};", "crate::"),
        ["model", "rdf"].into_iter().map(str::to_owned).collect()
    );
    assert_eq!(
        uses("use super::{agentos, anthropic, gemini};", "super::"),
        ["agentos", "anthropic", "gemini"]
            .into_iter()
            .map(str::to_owned)
            .collect()
    );
}

#[test]
fn the_library_never_prints_and_only_the_store_names_oxigraphs_store() {
    let mut files = Vec::new();
    rust_files(&source_dir(), &mut files);
    for file in files {
        let relative = file.strip_prefix(source_dir()).unwrap();
        if relative.starts_with("bin") {
            continue;
        }
        let code = code(&file);
        for printer in ["print!(", "println!(", "eprint!(", "eprintln!(", "dbg!("] {
            assert!(
                !code.contains(printer),
                "src/{} uses {printer}: the library reports through events and errors; only the binary prints",
                relative.display()
            );
        }
        if !relative.starts_with("store") {
            assert!(
                !code.contains("oxigraph::store"),
                "src/{} names oxigraph::store: only src/store may",
                relative.display()
            );
        }
    }
}
