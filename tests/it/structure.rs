//! The workspace's structure as tests: no cycles between source files, nothing below
//! `src/http` imports it, and no file in `src/` over 450 lines. Edges are read with `syn`
//! from `use` trees and paths that start with `crate`, `super` or `self`; test modules are
//! left out (a test may import anything).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

const CRATES: &[&str] = &["src", "storage/src", "packing/src"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every module file of the crate rooted at `dir` (relative to the workspace), keyed by
/// module path (`["http", "orders"]`); `lib.rs` is the empty path.
fn modules(dir: &str) -> BTreeMap<Vec<String>, PathBuf> {
    fn walk(base: &Path, at: &Path, out: &mut BTreeMap<Vec<String>, PathBuf>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(base).unwrap().with_extension("");
            let mut segs: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            match segs.last().map(String::as_str) {
                Some("lib") if segs.len() == 1 => segs.clear(),
                Some("main") if segs.len() == 1 => continue,
                Some("mod") => {
                    segs.pop();
                }
                _ => {}
            }
            out.insert(segs, path);
        }
    }
    let base = root().join(dir);
    let mut out = BTreeMap::new();
    walk(&base, &base, &mut out);
    out
}

/// Collects the module paths a file refers to, resolved against the module it is in.
struct Refs<'a> {
    module: Vec<String>,
    found: &'a mut BTreeSet<Vec<String>>,
}

impl Refs<'_> {
    /// Resolves a path's leading `crate` / `super` / `self` segments; `None` for paths into
    /// other crates or plain names.
    fn resolve(&self, segs: &[String]) -> Option<Vec<String>> {
        let mut at = self.module.clone();
        let mut rest = segs;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                at.clear();
                rest = &rest[1..];
            }
            Some("super") | Some("self") => {}
            _ => return None,
        }
        while let Some(first) = rest.first() {
            match first.as_str() {
                "super" => {
                    at.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        at.extend(rest.iter().cloned());
        Some(at)
    }

    fn add(&mut self, segs: Vec<String>) {
        if let Some(p) = self.resolve(&segs) {
            self.found.insert(p);
        }
    }

    fn tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.add(full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.add(full);
            }
            syn::UseTree::Glob(_) => self.add(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.tree(prefix, t);
                }
            }
        }
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

impl<'ast> Visit<'ast> for Refs<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.add(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    // `pub(crate)` and `pub(super)` name who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_test(&m.attrs) {
            return;
        }
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
}

/// The file-to-file edges of one crate: (from, to) by module path.
fn edges(mods: &BTreeMap<Vec<String>, PathBuf>) -> BTreeSet<(Vec<String>, Vec<String>)> {
    let mut out = BTreeSet::new();
    for (module, path) in mods {
        let file = syn::parse_file(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut found = BTreeSet::new();
        Refs {
            module: module.clone(),
            found: &mut found,
        }
        .visit_file(&file);
        for target in found {
            // The longest module path the reference starts with is the file it reaches.
            let owner = (0..=target.len())
                .rev()
                .map(|n| target[..n].to_vec())
                .find(|p| mods.contains_key(p));
            if let Some(owner) = owner {
                if &owner != module {
                    out.insert((module.clone(), owner));
                }
            }
        }
    }
    out
}

fn name(dir: &str, m: &[String]) -> String {
    if m.is_empty() {
        format!("{dir}/lib.rs")
    } else {
        format!("{dir}/{}", m.join("/"))
    }
}

/// A cycle in the graph, if there is one (depth-first search with colours).
fn find_cycle(edges: &BTreeSet<(Vec<String>, Vec<String>)>) -> Option<Vec<Vec<String>>> {
    let mut next: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    fn dfs<'a>(
        at: &'a Vec<String>,
        next: &BTreeMap<&'a Vec<String>, Vec<&'a Vec<String>>>,
        state: &mut BTreeMap<&'a Vec<String>, u8>,
        stack: &mut Vec<&'a Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        state.insert(at, 1);
        stack.push(at);
        for &n in next.get(at).map(Vec::as_slice).unwrap_or(&[]) {
            match state.get(n) {
                Some(1) => {
                    let from = stack.iter().position(|s| *s == n).unwrap();
                    return Some(stack[from..].iter().map(|s| (*s).clone()).collect());
                }
                Some(_) => {}
                None => {
                    if let Some(c) = dfs(n, next, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(at, 2);
        None
    }
    let mut state = BTreeMap::new();
    for start in next.keys() {
        if !state.contains_key(start) {
            if let Some(c) = dfs(start, &next, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_source_file_imports_another_that_imports_it_back() {
    for dir in CRATES {
        let mods = modules(dir);
        assert!(mods.len() > 5, "{dir}: modules not found");
        if let Some(cycle) = find_cycle(&edges(&mods)) {
            let names: Vec<String> = cycle.iter().map(|m| name(dir, m)).collect();
            panic!(
                "import cycle: {} -> (back to the first)",
                names.join(" -> ")
            );
        }
    }
}

#[test]
fn the_cycle_check_finds_a_cycle_when_there_is_one() {
    let e: BTreeSet<(Vec<String>, Vec<String>)> = [
        (vec!["a".to_string()], vec!["b".to_string()]),
        (vec!["b".to_string()], vec!["c".to_string()]),
        (vec!["c".to_string()], vec!["a".to_string()]),
    ]
    .into_iter()
    .collect();
    assert_eq!(find_cycle(&e).map(|c| c.len()), Some(3));
    let mut acyclic = e.clone();
    acyclic.remove(&(vec!["c".to_string()], vec!["a".to_string()]));
    assert_eq!(find_cycle(&acyclic), None);
}

#[test]
fn nothing_below_the_http_layer_imports_it() {
    let mods = modules("src");
    // Above `http`: the crate root that wires it, and the accept loops that call it.
    let above: [Vec<String>; 2] = [vec![], vec!["server".to_string()]];
    for (from, to) in edges(&mods) {
        let into_http = to.first().is_some_and(|s| s == "http");
        let from_http = from.first().is_some_and(|s| s == "http");
        assert!(
            !into_http || from_http || above.contains(&from),
            "{} imports {}",
            name("src", &from),
            name("src", &to)
        );
    }
}

#[test]
fn no_file_in_src_is_over_450_lines() {
    for path in modules("src").values() {
        let lines = std::fs::read_to_string(path).unwrap().lines().count();
        assert!(lines <= 450, "{} has {lines} lines", path.display());
    }
}
