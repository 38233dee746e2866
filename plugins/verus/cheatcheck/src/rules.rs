//! The rules: a candidate may only add proof code to its task.
//!
//! * every assuming name (`lex::ASSUMING`: `assume`, `assume_`, `admit`, `external_body`, ...,
//!   in any spelling, path, alias, macro argument or attribute) occurs as often as in the task,
//!   and so do the task's own names for one (invocations of its macros that expand to one, uses
//!   of its `use ... as` aliases of one);
//! * what the task assumes stays what it assumes: each of its `assume(..)` calls, arguments
//!   compared token-wise, is still in the candidate;
//! * no body calls Verus's header builtins (`HEADER_BUILTINS`: `requires(..)`, `ensures(..)`,
//!   ...) beyond the task's own calls in that body: Verus reads them as the function's contract;
//!   and no new `use` (anywhere, macro tokens included) imports one, renamed or not (`use
//!   vstd::prelude::requires as r;` then `r([false]);`);
//! * every item of the task is still there and means the same (`layout.rs`: trees compared
//!   after layout is erased; attributes compared as Verus reads them, solver tuning aside; item
//!   order free, the benchmark's own solutions move the target), recursively inside `verus!`,
//!   `impl`, `trait` and `mod`. A `global` fact may be dropped (fewer facts prove less). A proof
//!   or exec function's `decreases` does not count (Verus checks it wherever the body is
//!   verified; stubs have none to check). `fn main` outside `verus!` may change its body (Verus
//!   never sees it);
//! * the target function(s) keep their attributes (solver tuning aside), signature and
//!   requires/ensures/recommends, may add `decreases`, `opens_invariants` and a `by(..)` prover;
//!   an exec target's body equals the task's once ghost code is erased (`ghost.rs`) and still
//!   asserts what the task asserts in it, where the task asserts it, about the same values
//!   (`claims.rs`); a proof target's body is free (header builtin calls aside);
//! * a new item is a `spec` or `proof` function that is no axiom (no unchecked attribute, no
//!   `axiom` mode, a body, no assuming name), an inherent `impl` holding only such functions, a
//!   `use`, a `broadcast use` or `broadcast group`, or a `macro_rules!` without attributes in
//!   its body; items nested in a target's or a new function's body obey the same rules (a
//!   nested `use` or `macro_rules!` the shadowing rule too: it reaches the code after it); nothing
//!   may be added inside a trait or a trait impl (a new method there overrides a default);
//! * no new item binds a name the task uses, nor the names Verus's syntax and the ghost erasure
//!   resolve (`view` for `x@`, `spec_index` for `s[i]`, `Ghost`, `Tracked`, vstd's proof
//!   macros): an inherent method wins over a trait's in Rust's method resolution, an item or an
//!   explicit `use` over a glob import, a later `macro_rules!` over an earlier one, so such a
//!   name would change what the task's fixed code means.

use std::collections::{HashMap, HashSet, VecDeque};

use verus_syn::visit::{self, Visit};
use quote::ToTokens;
use verus_syn::{Block, Expr, ExprCall, FnMode, Item, Macro, Stmt, UseTree};

use crate::attrs;
use crate::claims;
use crate::ghost::{executable, PROOF_MACROS, WRAPPERS};
use crate::items::{
    glob_paths, item_node, line_of, parse, FnNode, Kind, Node, Origin, Parsed,
};
use crate::lex::{assumed, canon_tokens, count_assuming, identifiers, unraw, Aliases, Counts, ASSUMING};

/// Method names Verus's syntax calls implicitly (`x@` is `x.view()`, `s[i]` in spec code is
/// `s.spec_index(i)`) and the spec operator traits' methods.
pub const IMPLICIT_METHODS: [&str; 20] = [
    "view",
    "deep_view",
    "spec_index",
    "spec_add",
    "spec_sub",
    "spec_mul",
    "spec_euclidean_div",
    "spec_euclidean_mod",
    "spec_neg",
    "spec_bitand",
    "spec_bitor",
    "spec_bitxor",
    "spec_shl",
    "spec_shr",
    "spec_lt",
    "spec_le",
    "spec_gt",
    "spec_ge",
    "ext_equal",
    "ext_equal_deep",
];

/// Verus's header builtins: a call of one of these at the start of a function's (or loop's)
/// body is read as part of its contract (`vir/headers.rs`, `read_header_block`), so
/// `requires(false);` in a lemma's body proves it under false. Only the task's own such calls
/// may stay in a body; the contract is the signature's.
pub const HEADER_BUILTINS: [&str; 20] = [
    "requires",
    "ensures",
    "recommends",
    "returns",
    "invariant",
    "invariant_except_break",
    "invariant_ensures",
    "decreases",
    "decreases_when",
    "decreases_by",
    "recommends_by",
    "opens_invariants",
    "opens_invariants_none",
    "opens_invariants_any",
    "opens_invariants_except",
    "opens_invariants_set",
    "no_unwind",
    "no_unwind_when",
    "extra_dependency",
    "no_method_body",
];

fn is_header_name(name: &str) -> bool {
    HEADER_BUILTINS.contains(&name)
}

/// A header builtin, or a name the task's own `use`s bind to one (`names`).
fn is_header(ident: &proc_macro2::Ident, names: &HashSet<String>) -> bool {
    let name = unraw(ident);
    is_header_name(&name) || names.contains(&name)
}

/// The header builtins a `use` tree imports (its leaves, renamed or not), or names the task
/// binds to one (`names`): `use vstd::prelude::requires as r;` lets `r([false]);` state a
/// contract under a name no call check knows.
pub fn header_imports(tree: &UseTree, names: &HashSet<String>) -> Vec<String> {
    match tree {
        UseTree::Path(p) => header_imports(&p.tree, names),
        UseTree::Name(n) if is_header(&n.ident, names) => vec![unraw(&n.ident)],
        UseTree::Rename(r) if is_header(&r.ident, names) => vec![unraw(&r.ident)],
        UseTree::Group(g) => g.items.iter().flat_map(|t| header_imports(t, names)).collect(),
        _ => Vec::new(),
    }
}

/// The names the task's own `use`s bind to a header builtin under another name (a call of one
/// is a header call too; only the task's own such calls may stay).
fn header_aliases(nodes: &[Node], out: &mut HashSet<String>) {
    fn renamed(tree: &UseTree, out: &mut HashSet<String>) {
        match tree {
            UseTree::Path(p) => renamed(&p.tree, out),
            UseTree::Rename(r) if is_header_name(&unraw(&r.ident)) => {
                out.insert(unraw(&r.rename));
            }
            UseTree::Group(g) => g.items.iter().for_each(|t| renamed(t, out)),
            _ => {}
        }
    }
    for node in nodes {
        match node {
            Node::Leaf { item, .. } => {
                if let Item::Use(u) = &**item {
                    renamed(&u.tree, out);
                }
            }
            Node::Container { children, .. } => header_aliases(children, out),
            Node::Fn(_) => {}
        }
    }
}

/// The header-builtin calls of a body, as `name(arguments)` (path prefix and `r#` erased):
/// calls in its expressions, and a builtin's name before `(..)` in its macros' tokens (see
/// `header_tokens`). Items nested in the body are left out (each is checked as a new item).
struct HeaderCalls<'a> {
    calls: Counts,
    /// The task's own names for a header builtin.
    names: &'a HashSet<String>,
}

impl<'a> HeaderCalls<'a> {
    fn of(block: &Block, names: &'a HashSet<String>) -> Counts {
        let mut calls = HeaderCalls {
            calls: Counts::new(),
            names,
        };
        calls.visit_block(block);
        calls.calls
    }
}

impl<'ast> Visit<'ast> for HeaderCalls<'_> {
    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        // `(requires)(..)` is the same call once parentheses are gone (as they are when Verus
        // reads the body); a method call (`self.requires()`) is no `ExprCall` at all.
        let mut func = &*call.func;
        while let Expr::Paren(verus_syn::ExprParen { expr, .. })
        | Expr::Group(verus_syn::ExprGroup { expr, .. }) = func
        {
            func = expr;
        }
        if let Expr::Path(path) = func {
            if let Some(last) = path.path.segments.last() {
                if is_header(&last.ident, self.names) {
                    let args = canon_tokens(&call.args.to_token_stream());
                    let name = unraw(&last.ident);
                    *self.calls.entry(format!("{name}({args})")).or_default() += 1;
                }
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let trusted = mac
            .path
            .segments
            .last()
            .is_some_and(|s| PROOF_MACROS.contains(&unraw(&s.ident).as_str()));
        header_tokens(&mac.tokens, trusted, self.names, &mut self.calls);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// Header builtins in `tokens` (macro bodies, which hold no tree to read): a builtin's name
/// followed by `(..)` or `::<` (a call; `(requires)(..)` too), counted as `name(arguments)`,
/// and one a `use` in the tokens imports, counted as `use name`.
///
/// A name right after a single `.` is a method call (`self.requires()`, a task's own `open spec
/// fn requires(&self)`), never a header, and is passed over, but only in the arguments of
/// vstd's proof macros (`trusted`: `calc!`, `assert_seqs_equal!`, ..., names no new item may
/// bind), which read them as expressions: any other macro, a new `macro_rules!` above all, could
/// drop the `x .` before the name and leave the call.
fn header_tokens(
    tokens: &proc_macro2::TokenStream,
    trusted: bool,
    names: &HashSet<String>,
    out: &mut Counts,
) {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let punct = |k: usize, c: char| matches!(trees.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let args_at = |k: usize| match trees.get(k) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => Some(g.stream()),
        _ => None,
    };
    let count = |out: &mut Counts, name: String, args: Option<proc_macro2::TokenStream>| {
        let args = args.map(|a| canon_tokens(&a)).unwrap_or_else(|| "..".to_string());
        *out.entry(format!("{name}({args})")).or_default() += 1;
    };
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if ident == "use" => use_tokens(&trees[i + 1..], names, out),
            TokenTree::Ident(ident) if is_header(ident, names) => {
                let method = trusted && i >= 1 && punct(i - 1, '.') && !(i >= 2 && punct(i - 2, '.'));
                if method {
                    continue;
                }
                if let Some(args) = args_at(i + 1) {
                    count(out, unraw(ident), Some(args));
                } else if punct(i + 1, ':') && punct(i + 2, ':') && punct(i + 3, '<') {
                    count(out, unraw(ident), None);
                }
            }
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::Parenthesis {
                    if let (Some(name), Some(args)) = (paren_callee(&g.stream(), names), args_at(i + 1)) {
                        count(out, name, Some(args));
                    }
                }
                // a macro invocation inside (`name!(..)`) is trusted only if it is a proof macro
                let inner = match (i >= 2 && punct(i - 1, '!'), trees.get(i.wrapping_sub(2))) {
                    (true, Some(TokenTree::Ident(m))) => PROOF_MACROS.contains(&unraw(m).as_str()),
                    _ => trusted,
                };
                header_tokens(&g.stream(), inner, names, out);
            }
            _ => {}
        }
    }
}

/// The header builtin a parenthesised callee ends in (`(requires)`, `((vstd::prelude::r#requires))`).
fn paren_callee(tokens: &proc_macro2::TokenStream, names: &HashSet<String>) -> Option<String> {
    use proc_macro2::{Delimiter, TokenTree};
    match tokens.clone().into_iter().last()? {
        TokenTree::Ident(ident) if is_header(&ident, names) => Some(unraw(&ident)),
        TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => paren_callee(&g.stream(), names),
        _ => None,
    }
}

/// The header builtins a `use` written in tokens imports (`trees`: what follows `use`, up to
/// its `;`): a builtin's name not followed by `::` (a leaf, renamed or not).
fn use_tokens(trees: &[proc_macro2::TokenTree], names: &HashSet<String>, out: &mut Counts) {
    use proc_macro2::TokenTree;
    let punct = |k: usize, c: char| matches!(trees.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Punct(p) if p.as_char() == ';' => return,
            TokenTree::Ident(ident) if is_header(ident, names) && !(punct(i + 1, ':') && punct(i + 2, ':')) => {
                *out.entry(format!("use {}", unraw(ident))).or_default() += 1;
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                use_tokens(&inner, names, out);
            }
            _ => {}
        }
    }
}

/// The header calls of `cand` that `task` does not have (as a multiset).
fn new_header_calls(task: &Counts, cand: &Counts) -> Vec<String> {
    cand.iter()
        .filter(|(call, n)| task.get(*call).copied().unwrap_or(0) < **n)
        .map(|(call, _)| call.clone())
        .collect()
}

pub struct Violation {
    pub rule: &'static str,
    pub reason: String,
    pub line: usize,
}

fn violation(rule: &'static str, line: usize, reason: String) -> Violation {
    Violation { rule, reason, line }
}

/// The task's own names for assuming things: macros whose bodies hold an assuming name (invoking
/// one assumes) and names its `use`s bind to one.
pub fn assuming_aliases(nodes: &[Node], out: &mut Aliases) {
    for node in nodes {
        match node {
            Node::Leaf {
                key, tokens, binds, ..
            } if !count_assuming(tokens, &Aliases::default()).is_empty() => {
                if let Some(name) = key.strip_prefix("macro_rules ") {
                    out.macros.insert(name.to_string());
                } else if key.starts_with("use ") {
                    out.names.extend(binds.iter().map(|(name, _)| name.clone()));
                }
            }
            Node::Container { children, .. } => assuming_aliases(children, out),
            _ => {}
        }
    }
}

/// How many items of `nodes` define each name (functions, types, constants, modules, traits),
/// and the module paths they glob-import.
fn definitions(nodes: &[Node], out: &mut HashMap<String, usize>, globs: &mut HashSet<String>) {
    for node in nodes {
        let key = node.key();
        let (kind, name) = key.split_once(' ').unwrap_or(("", ""));
        let defining = ["fn", "struct", "enum", "union", "type", "const", "static", "mod", "trait"];
        if defining.contains(&kind) && !name.contains(' ') {
            *out.entry(name.to_string()).or_default() += 1;
        }
        match node {
            Node::Container { children, .. } => definitions(children, out, globs),
            Node::Leaf { item, .. } => globs.extend(glob_paths(item)),
            Node::Fn(_) => {}
        }
    }
}

/// The names no new item may bind (see the module documentation).
pub fn reserved_names(task: &Parsed) -> HashSet<String> {
    let mut names = HashSet::new();
    identifiers(&task.tokens, &mut names);
    let fixed = IMPLICIT_METHODS.iter().chain(&PROOF_MACROS).chain(&WRAPPERS).chain(&ASSUMING);
    names.extend(fixed.map(|s| s.to_string()));
    names
}

pub struct Checker<'a> {
    pub target: Option<&'a str>,
    /// Whether the items being compared sit inside a `verus!` block.
    pub in_verus: bool,
    pub reserved: HashSet<String>,
    /// How many items of the task define each name.
    pub defined: HashMap<String, usize>,
    /// The module paths the task glob-imports (`use vstd::seq_lib::*;`).
    pub globs: HashSet<String>,
    pub aliases: Aliases,
    /// The task's own names for a header builtin (`use vstd::prelude::requires as r;`).
    pub header_names: HashSet<String>,
    /// The module chain of the items being compared (for nested items' layout).
    pub module: Vec<String>,
    pub out: Vec<Violation>,
}

impl<'a> Checker<'a> {
    pub fn new(task: &Parsed, target: Option<&'a str>) -> Self {
        let mut aliases = Aliases::default();
        assuming_aliases(&task.nodes, &mut aliases);
        let mut defined = HashMap::new();
        let mut globs = HashSet::new();
        definitions(&task.nodes, &mut defined, &mut globs);
        let mut header_names = HashSet::new();
        header_aliases(&task.nodes, &mut header_names);
        Checker {
            target,
            in_verus: false,
            reserved: reserved_names(task),
            defined,
            globs,
            aliases,
            header_names,
            module: Vec::new(),
            out: Vec::new(),
        }
    }

    fn push(&mut self, rule: &'static str, line: usize, reason: String) {
        self.out.push(violation(rule, line, reason));
    }

    /// Functions a proof may work on: the named target, or (no target named) every exec or
    /// proof function with a real body.
    fn is_target(&self, f: &FnNode) -> bool {
        self.in_verus && provable(f, self.target)
    }

    /// Each candidate item is matched to the first unused task item of the same key; order is
    /// free. Task items left unmatched were removed or renamed.
    pub fn compare_lists(&mut self, original: &[Node], candidate: &[Node], end: usize, scope: Kind) {
        let mut unused: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, orig) in original.iter().enumerate() {
            unused.entry(orig.key()).or_default().push_back(i);
        }
        let mut used = vec![false; original.len()];
        for cand in candidate {
            match unused.get_mut(&cand.key()).and_then(VecDeque::pop_front) {
                Some(i) => {
                    used[i] = true;
                    self.compare(&original[i], cand);
                }
                None => self.added(cand, scope, true),
            }
        }
        for (i, orig) in original.iter().enumerate() {
            // A `global` line states a layout fact (`size_of usize == 8`) the proof may rely
            // on; dropping one leaves the proof with fewer facts, never more.
            if !used[i] && !orig.key().starts_with("global ") {
                let what = match orig {
                    Node::Fn(f) if self.is_target(f) => "target function",
                    _ => "item",
                };
                self.push(
                    "item-removed",
                    end,
                    format!("{what} `{}` (task line {}) is missing", orig.describe(), orig.line()),
                );
            }
        }
    }

    /// A candidate item the task does not have, in a container of kind `scope`; `named`: whether
    /// its names can reach the task's code (false for items nested in a body).
    pub fn added(&mut self, cand: &Node, scope: Kind, named: bool) {
        let line = cand.line();
        match cand {
            Node::Fn(_) if matches!(scope, Kind::Trait | Kind::TraitImpl) => self.push(
                "new-item",
                line,
                format!(
                    "new function `{}` inside a trait or trait impl (it would add to or override \
                     the trait's own methods)",
                    cand.describe().trim_start_matches("fn ")
                ),
            ),
            Node::Fn(f) => self.new_fn(f, named),
            Node::Leaf {
                addable: true,
                binds,
                attrs,
                tokens,
                key,
                item,
                ..
            } => {
                if let Some(attr) = attrs::disallowed_on_new(attrs) {
                    self.push("new-item", line, format!("new item `{key}` carries {attr}"));
                }
                self.assumes(&format!("new item `{}`", cand.describe()), tokens, line);
                if named {
                    for (name, origin) in binds {
                        // `use crate::m::n;` where the task defines `n` once can only name that
                        // item, by the name the task's code already gives it; `use vstd::calc;`
                        // names the very proof macro the ghost erasure reads `calc!` as; `use
                        // vstd::m::n;` where the task has `use vstd::m::*;` and defines no `n`
                        // names the `n` the glob already gave the task's code.
                        let reimport = match origin {
                            Origin::Crate => self.defined.get(name) == Some(&1),
                            Origin::Vstd(path) => {
                                PROOF_MACROS.contains(&name.as_str())
                                    || (self.globs.contains(path)
                                        && !self.defined.contains_key(name))
                            }
                            Origin::Other => false,
                        };
                        if !reimport {
                            self.shadows(&format!("new item `{}`", cand.describe()), name, line);
                        }
                    }
                }
                if let Item::Use(u) = &**item {
                    let imported = header_imports(&u.tree, &self.header_names);
                    if !imported.is_empty() {
                        self.push(
                            "header-call",
                            line,
                            format!(
                                "new `use` imports Verus's header builtin `{}`: a call of it, \
                                 under any name, states the contract of the body it is in",
                                imported.join("`, `")
                            ),
                        );
                    }
                }
                let mut headers = Counts::new();
                header_tokens(tokens, false, &self.header_names, &mut headers);
                if key.starts_with("macro_rules ") && !headers.is_empty() {
                    self.push(
                        "header-call",
                        line,
                        format!(
                            "new macro `{key}` writes calls of Verus's header builtins (a \
                             contract) into the body it expands in"
                        ),
                    );
                }
                if key.starts_with("macro_rules ") && has_attribute(tokens) {
                    self.push(
                        "new-item",
                        line,
                        format!("new macro `{key}` writes attributes into the code it expands to"),
                    );
                }
            }
            Node::Container {
                kind: Kind::InherentImpl,
                attrs,
                children,
                ..
            } => {
                if let Some(attr) = attrs::disallowed_on_new(attrs) {
                    self.push("new-item", line, format!("new `impl` carries {attr}"));
                }
                for child in children {
                    self.added(child, Kind::InherentImpl, named);
                }
            }
            other => self.push(
                "new-item",
                line,
                format!(
                    "new item `{}` is not allowed; only spec and proof functions and uses may be \
                     added",
                    other.describe()
                ),
            ),
        }
    }

    fn new_fn(&mut self, f: &FnNode, named: bool) {
        let name = &f.name;
        let reason = if let Some(attr) = attrs::disallowed_on_new(&f.attrs) {
            Some(format!("new function `{name}` is not checked as written: {attr}"))
        } else if matches!(f.sig.mode, FnMode::ProofAxiom(_)) {
            Some(format!("new function `{name}` is an axiom"))
        } else if f.is_proof() && f.block.is_none() {
            Some(format!("new proof function `{name}` has no body"))
        } else if !f.is_spec() && !f.is_proof() {
            Some(format!(
                "new function `{name}` is executable; only spec and proof functions may be added"
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            self.push("new-item", f.line, reason);
        }
        self.assumes(&format!("new function `{name}`"), &f.tokens, f.line);
        if named {
            self.shadows(&format!("new function `{name}`"), name, f.line);
        }
        if let Some(block) = &f.block {
            self.header_calls(name, &Counts::new(), block, f.line);
            self.nested(block);
        }
    }

    /// A body may not state a contract with Verus's header builtins beyond the task's own.
    /// The task's claims in an exec target's body stay made where they stand (`claims.rs`).
    fn claims(&mut self, name: &str, task: &Block, cand: &Block, line: usize) {
        let made = claims::claims(task);
        if made.is_empty() {
            return;
        }
        let texts: HashSet<&str> = made.iter().map(|c| c.text.as_str()).collect();
        let kept = claims::claims_where(cand, |text| texts.contains(text));
        for claim in claims::dropped(&made, &kept) {
            self.push(
                "target-claim",
                line,
                format!(
                    "target `{name}`: the task asserts `{}` (task line {}) and the candidate no \
                     longer asserts it there, about the same values",
                    claim.text, claim.line
                ),
            );
        }
    }

    fn header_calls(&mut self, name: &str, task: &Counts, block: &Block, line: usize) {
        let added = new_header_calls(task, &HeaderCalls::of(block, &self.header_names));
        if !added.is_empty() {
            self.push(
                "header-call",
                line,
                format!(
                    "`{name}`'s body calls Verus's header builtins, which Verus reads as the \
                     function's contract: `{}`",
                    added.join("`, `")
                ),
            );
        }
    }

    /// Items nested in a body obey the rules for new items (their names stay in the body).
    fn nested(&mut self, block: &Block) {
        let mut found = NestedItems(Vec::new());
        found.visit_block(block);
        for item in found.0 {
            match item_node(item, &self.module) {
                // A `use` or `macro_rules!` in a body reaches the code after it in that body
                // (`use crate::yes as sorted;` before the task's `assert(sorted(v@))`), a
                // function's name only its own calls.
                Ok(node) => {
                    let reaches = matches!(node, Node::Leaf { .. });
                    self.added(&node, Kind::Mod, reaches)
                }
                Err(e) => self.push("parse", e.line, e.reason),
            }
        }
    }

    fn assumes(&mut self, what: &str, tokens: &proc_macro2::TokenStream, line: usize) {
        let found = count_assuming(tokens, &self.aliases);
        if !found.is_empty() {
            let names: Vec<&str> = found.keys().map(String::as_str).collect();
            self.push(
                "new-item",
                line,
                format!("{what} assumes instead of proving: uses `{}`", names.join("`, `")),
            );
        }
    }

    fn shadows(&mut self, what: &str, name: &str, line: usize) {
        if self.reserved.contains(name) {
            self.push(
                "shadowing",
                line,
                format!(
                    "{what} binds `{name}`, a name the task's code already resolves (a new \
                     inherent method wins over a trait method, a new item or `use` over a glob \
                     import): it could change what the fixed code means"
                ),
            );
        }
    }

    pub fn compare(&mut self, original: &Node, cand: &Node) {
        match (original, cand) {
            (Node::Fn(o), Node::Fn(c)) if self.is_target(o) => self.compare_target(o, c),
            (Node::Fn(o), Node::Fn(c)) if !self.in_verus && o.name == "main" => {
                let header = |f: &FnNode| FnNode {
                    block: None,
                    ..f.clone()
                };
                if !header(o).same(&header(c)) {
                    self.changed(original, cand);
                }
            }
            (Node::Fn(o), Node::Fn(c)) => {
                if !o.same(c) {
                    self.changed(original, cand);
                }
            }
            (
                Node::Container {
                    kind,
                    header: oh,
                    children: oc,
                    ..
                },
                Node::Container {
                    header: ch,
                    children: cc,
                    line,
                    ..
                },
            ) => {
                if oh != ch {
                    self.changed(original, cand);
                }
                let end = cc.last().map_or(*line, Node::line);
                let outer = (self.in_verus, self.module.clone());
                self.in_verus |= *kind == Kind::Verus;
                if *kind == Kind::Mod {
                    self.module
                        .push(original.key().trim_start_matches("mod ").to_string());
                }
                let scope = if *kind == Kind::Verus { Kind::Mod } else { *kind };
                self.compare_lists(oc, cc, end, scope);
                (self.in_verus, self.module) = outer;
            }
            (
                Node::Leaf {
                    meaning: om,
                    item: oi,
                    ..
                },
                Node::Leaf {
                    meaning: cm,
                    item: ci,
                    ..
                },
            ) if om == cm && oi == ci => {}
            _ => self.changed(original, cand),
        }
    }

    fn changed(&mut self, original: &Node, cand: &Node) {
        self.push(
            "item-changed",
            cand.line(),
            format!(
                "`{}` differs from the task (task line {})",
                original.describe(),
                original.line()
            ),
        );
    }

    fn compare_target(&mut self, o: &FnNode, c: &FnNode) {
        let name = &o.name;
        if attrs::meaning(&o.attrs) != attrs::meaning(&c.attrs) {
            self.push(
                "target-attributes",
                c.line,
                format!(
                    "target `{name}` changed attributes other than {} and lint, inline and \
                     format attributes",
                    attrs::TUNING.join(", ")
                ),
            );
        }
        if o.vis != c.vis {
            self.push(
                "target-signature",
                c.line,
                format!("target `{name}` changed its visibility"),
            );
        }
        let bare = |f: &FnNode| {
            let mut sig = f.sig.clone();
            sig.erase_spec_fields();
            sig
        };
        let contract = |f: &FnNode| {
            let mut sig = f.sig.clone();
            sig.spec.decreases = None;
            sig.spec.invariants = None;
            sig.spec.prover = None;
            sig
        };
        if bare(o) != bare(c) {
            self.push(
                "target-signature",
                c.line,
                format!("target `{name}` changed its signature"),
            );
        } else if contract(o) != contract(c) {
            self.push(
                "target-spec",
                c.line,
                format!(
                    "target `{name}` changed its specification (only decreases, \
                     opens_invariants and a by(..) prover may be added)"
                ),
            );
        }
        match (&o.block, &c.block) {
            (Some(_), None) => self.push(
                "target-body",
                c.line,
                format!("target `{name}` lost its body"),
            ),
            (Some(ob), Some(cb)) => {
                let task_calls = HeaderCalls::of(ob, &self.header_names);
                self.header_calls(name, &task_calls, cb, c.line);
                if !o.is_proof() {
                    let (oe, ce) = (executable(ob), executable(cb));
                    if oe != ce {
                        let line = first_difference(&oe, &ce).unwrap_or(c.line);
                        self.push(
                            "target-body",
                            line,
                            format!(
                                "target `{name}`: executable code differs from the task once \
                                 ghost code is removed"
                            ),
                        );
                    } else {
                        self.claims(name, ob, cb, c.line);
                    }
                }
                self.nested(cb);
            }
            _ => {}
        }
    }
}

/// Items declared in a block (not those inside them: each is checked as a whole).
struct NestedItems(Vec<Item>);

impl<'ast> Visit<'ast> for NestedItems {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match stmt {
            Stmt::Item(item) => self.0.push(item.clone()),
            other => visit::visit_stmt(self, other),
        }
    }
}

/// Whether a macro body writes an attribute (`#[..]` or `#![..]`).
fn has_attribute(tokens: &proc_macro2::TokenStream) -> bool {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Punct(p) if p.as_char() == '#' => matches!(
            trees.get(i + 1),
            Some(TokenTree::Group(_)) | Some(TokenTree::Punct(_))
        ),
        TokenTree::Group(g) => has_attribute(&g.stream()),
        _ => false,
    })
}

/// Line of the first statement where two de-ghosted bodies part ways.
fn first_difference(original: &Block, cand: &Block) -> Option<usize> {
    cand.stmts
        .iter()
        .enumerate()
        .find(|(i, stmt)| original.stmts.get(*i) != Some(*stmt))
        .map(|(_, stmt)| line_of(stmt))
}

/// An exec or proof function with a real body, named `target` when a target is given.
pub fn provable(f: &FnNode, target: Option<&str>) -> bool {
    !f.is_spec() && f.block.is_some() && !f.is_stub() && target.is_none_or(|t| f.name == t)
}

pub fn any_target(nodes: &[Node], target: Option<&str>, in_verus: bool) -> bool {
    nodes.iter().any(|n| match n {
        Node::Fn(f) => in_verus && provable(f, target),
        Node::Container { kind, children, .. } => {
            any_target(children, target, in_verus || *kind == Kind::Verus)
        }
        Node::Leaf { .. } => false,
    })
}

fn counts_differ(before: &Counts, after: &Counts) -> Vec<(String, usize, usize)> {
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| {
            let (b, a) = (
                before.get(name).copied().unwrap_or(0),
                after.get(name).copied().unwrap_or(0),
            );
            (a != b).then(|| (name.clone(), a, b))
        })
        .collect()
}

pub fn check(original: &str, candidate: &str, target: Option<&str>) -> Vec<Violation> {
    let task = match parse(original) {
        Ok(parsed) => parsed,
        Err(e) => {
            return vec![violation(
                "parse",
                0,
                format!("the task itself is unreadable: {}", e.reason),
            )]
        }
    };
    let cand = match parse(candidate) {
        Ok(parsed) => parsed,
        Err(e) => return vec![violation("parse", e.line, e.reason)],
    };
    let mut checker = Checker::new(&task, target);
    let before = count_assuming(&task.tokens, &checker.aliases);
    let after = count_assuming(&cand.tokens, &checker.aliases);
    for (name, a, b) in counts_differ(&before, &after) {
        checker.push(
            "counts",
            0,
            format!("`{name}` occurs {a} times in the candidate and {b} times in the task"),
        );
    }
    let kept = assumed(&cand.tokens);
    for (call, n) in assumed(&task.tokens) {
        if kept.get(&call).copied().unwrap_or(0) < n {
            checker.push(
                "assumed",
                0,
                format!("the task assumes `{call}` and the candidate no longer does (what the task \
                         assumes must stay as it is)"),
            );
        }
    }
    let end = candidate.lines().count();
    checker.compare_lists(&task.nodes, &cand.nodes, end, Kind::Mod);
    if let Some(name) = target {
        if !any_target(&task.nodes, target, false) {
            checker.push(
                "target-missing",
                0,
                format!("the task has no exec or proof function `{name}` with a body to prove"),
            );
        }
    }
    checker.out
}
