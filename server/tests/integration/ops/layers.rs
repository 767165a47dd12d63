//! The layering holds (README, "Architecture"): every module of `server/src` imports only
//! modules of its own rank or a lower one in [`RANKS`], and without a circle; the domain and the engine import nothing of HTTP (neither `axum` nor
//! `http`, nor our adapters: the JSON API in `http/`, the console in `console/`, the `edge` that
//! holds both); and the two adapters never import each other. Read from the sources: every
//! `crate::`/`super::` path names the module file it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers that must know no HTTP (a folder, or a folder's module). (Our client of the
/// partner bank is the crate `kaadxpay-partner`, whose manifest has no server framework.)
const HTTP_FREE: [&str; 9] = [
    "payments",
    "idempotency",
    "webhooks",
    "reconcile",
    "history",
    "contract",
    "service/author",
    "service/commands",
    "service/kernel",
];

/// What the domain and the engine must never reach: the adapters and start-up.
const ADAPTERS: [&str; 4] = ["http", "console", "edge", "service/startup"];

/// The folders of `server/src` from the bottom up: a module may import its own rank or a lower
/// one, never a higher. A module's rank is that of the longest entry it is within.
const RANKS: [(&str, u8); 26] = [
    // 0, the primitives, which know nothing of payments: the database, logs, mail, sealing
    // (`platform`), the API's errors, input and pages (`contract`), and the flags
    // (`service/config` and what they mean beyond clap, `service/flags`: leaves, see
    // `the_flags_know_no_component`).
    ("platform", 0),
    ("contract", 0),
    ("service/config", 0),
    ("service/flags", 0),
    // 1, the engine: each POST at most once, its faults as the contract's errors.
    ("idempotency", 1),
    // 2, the kernel the domain runs on: the database and the engine (`service/kernel`), who
    // acts (`service/author`) and the keyed command.
    ("service/kernel", 2),
    ("service/author", 2),
    ("service/commands", 2),
    // 3, the domain. Its folders may import one another without a circle: a payout is
    // audited (`history`), and makes a webhook event (`webhooks` builds it from the `Order` or
    // `Payout`, and `payments` queues it in the outbox), until the domain owns its events.
    ("accounts", 3),
    ("history", 3),
    ("request_log", 3),
    ("payments", 3),
    ("webhooks", 3),
    // 4, the domain's morning after: reconciliation matches the partner's transfers to payouts.
    ("reconcile", 4),
    // 5, what reads the whole domain: the CSV exports, the list of every keyed command, and the
    // state the adapters share (the kernel, with the API keys' cache and the request log).
    ("exports", 5),
    ("service/keyed", 5),
    ("service/state", 5),
    // 6, the adapters, and the request's pieces both read: the client's address, the request
    // id and the request log's caller, which the edge's middleware sets, and the NUL refusal
    // it runs.
    ("http", 6),
    ("console", 6),
    ("edge/client", 6),
    ("edge/middleware", 6),
    ("edge/nul", 6),
    ("edge/request_log", 6),
    // 7, the edge: the router and the middleware every request passes, holding both adapters.
    ("edge", 7),
    // 8, the composition root: each component built from the flags, and start-up.
    ("service/components", 8),
    ("service/startup", 8),
];

type Module = Vec<String>;

/// The rank of the module named `name`: that of the longest entry of [`RANKS`] it is within.
fn rank(name: &str) -> u8 {
    RANKS
        .iter()
        .filter(|(layer, _)| within(name, layer))
        .max_by_key(|(layer, _)| layer.len())
        .map(|&(_, rank)| rank)
        .unwrap_or_else(|| panic!("{name} has no rank: add its folder to RANKS"))
}

/// Whether the module named `name` (`a/b/c`) is `layer` or inside it.
fn within(name: &str, layer: &str) -> bool {
    name == layer || name.starts_with(&format!("{layer}/"))
}

fn modules() -> BTreeMap<Module, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = BTreeMap::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Module = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            found.insert(module, code_of(&source));
        }
    }
    found
}

/// The source without comments and without its unit tests.
fn code_of(source: &str) -> String {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module files that `module`'s `crate::`/`super::` paths reach.
fn imports(module: &Module, code: &str, known: &BTreeSet<Module>) -> BTreeSet<Module> {
    let mut reached = BTreeSet::new();
    for (start, prefix) in [("crate::", Vec::new()), ("super::", parent(module))] {
        for (at, _) in code.match_indices(start) {
            let preceded_by_word = code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            if preceded_by_word {
                continue;
            }
            let rest = &code[at + start.len()..];
            let head: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut path = prefix.clone();
            path.extend(
                head.split("::")
                    .filter(|part| !part.is_empty())
                    .map(str::to_owned),
            );
            // `use x::{a, b::c}` reaches x's children a and b as well.
            let mut paths = vec![path.clone()];
            if let Some(group) = rest[head.len()..].strip_prefix('{') {
                let group = group.split('}').next().unwrap_or_default();
                for item in group.split(',') {
                    let mut child = path.clone();
                    child.extend(item.trim().split("::").take(1).map(str::to_owned));
                    paths.push(child);
                }
            }
            for path in paths {
                if let Some(target) = longest_known_prefix(&path, known) {
                    if &target != module {
                        reached.insert(target);
                    }
                }
            }
        }
    }
    reached
}

/// The module whose file a path's `super` is: a `mod.rs` is its folder's module.
fn parent(module: &Module) -> Module {
    module[..module.len().saturating_sub(1)].to_vec()
}

fn longest_known_prefix(path: &[String], known: &BTreeSet<Module>) -> Option<Module> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| known.contains(prefix))
}

/// A circle through `from`, if any, as the modules along it.
fn circle_through(
    from: &Module,
    graph: &BTreeMap<Module, BTreeSet<Module>>,
) -> Option<Vec<Module>> {
    let mut stack = vec![(from.clone(), vec![from.clone()])];
    let mut seen = BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in &graph[&module] {
            if next == from {
                return Some(path);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn the_module_imports_form_no_circle() {
    let sources = modules();
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    let graph: BTreeMap<Module, BTreeSet<Module>> = sources
        .iter()
        .map(|(module, code)| (module.clone(), imports(module, code, &known)))
        .collect();
    assert!(graph.len() > 40, "the sources were found: {}", graph.len());
    for module in graph.keys() {
        if let Some(circle) = circle_through(module, &graph) {
            let names: Vec<String> = circle.iter().map(|m| m.join("/")).collect();
            panic!("an import circle: {} -> back", names.join(" -> "));
        }
    }
}

#[test]
fn the_domain_and_the_engine_know_no_http() {
    let sources = modules();
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    for (module, code) in &sources {
        let name = module.join("/");
        if !HTTP_FREE.iter().any(|layer| within(&name, layer)) {
            continue;
        }
        for foreign in ["axum", "http", "tower_http"] {
            assert!(!names_path(code, foreign), "{name} uses {foreign}");
        }
        for reached in imports(module, code, &known) {
            let reached = reached.join("/");
            assert!(
                !ADAPTERS.iter().any(|adapter| within(&reached, adapter)),
                "{name} imports {reached}"
            );
        }
    }
}

/// Whether `code` names the path `root::…` (not as the tail of a longer path or name).
fn names_path(code: &str, root: &str) -> bool {
    code.match_indices(&format!("{root}::")).any(|(at, _)| {
        !code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
    })
}

#[test]
fn only_the_console_knows_the_console_crate() {
    for (module, code) in modules() {
        if module[0] != "console" {
            assert!(
                !names_path(&code, "app"),
                "{} uses the console crate `app`: what the domain shares with it belongs in \
                 kaadxpay_types",
                module.join("/")
            );
        }
    }
}

#[test]
fn the_console_and_the_json_api_never_import_each_other() {
    let sources = modules();
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    let mut checked = 0;
    for (module, code) in &sources {
        let other = match module[0].as_str() {
            "http" => "console",
            "console" => "http",
            _ => continue,
        };
        checked += 1;
        for reached in imports(module, code, &known) {
            assert!(
                reached[0] != other,
                "{} imports {}",
                module.join("/"),
                reached.join("/")
            );
        }
    }
    assert!(checked > 20, "the adapters' sources were found: {checked}");
}

#[test]
fn the_flags_know_no_component() {
    let sources = modules();
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    let config: Module = vec!["service".into(), "config".into()];
    let reached = imports(&config, &sources[&config], &known);
    assert!(
        reached.is_empty(),
        "service/config imports {reached:?}: a component's settings are built from the flags \
         in service/components, never the other way round"
    );
}

#[test]
fn every_import_runs_downward() {
    let sources = modules();
    let known: BTreeSet<Module> = sources.keys().cloned().collect();
    let mut upward = Vec::new();
    for (module, code) in &sources {
        let name = module.join("/");
        for reached in imports(module, code, &known) {
            let reached = reached.join("/");
            if rank(&reached) > rank(&name) {
                upward.push(format!(
                    "{name} ({}) imports {reached} ({})",
                    rank(&name),
                    rank(&reached)
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run upward (move the primitive down, README \"Architecture\"):\n{}",
        upward.join("\n")
    );
}
