//! What an exec body asserts: the claims a task writes among its executable statements, and
//! where each stands.
//!
//! In exec code an `assert(..)` is the only way to state a property inline: Verus-Bench's
//! `havoc_inline_post.rs` ends with its "inline postcondition" in a `proof { assert(..); .. }`
//! block, `arg_free.rs` ends `main` with `assert(res == 25)`. Ghost erasure removes such claims
//! before exec code is compared, so a candidate that drops one proves less than its task asks.
//! A task's claim is kept when the candidate asserts the same expression at the same place: in
//! the same block, between the same executable statements, as a statement of its own or one of a
//! `proof { }` block standing there (an assertion nested in a ghost `if` is no longer made on
//! every path). `assert(P) by ..` keeps `P`: the proof is the candidate's. A claim the task
//! itself nests in ghost code (`proof { if c { assert(P) } }`) keeps that code around it: the
//! candidate must leave it as the task wrote it.
//!
//! The place is not all: `let ghost res = 25;` before `assert(res == 25)` asserts something
//! else. So a claim's key also holds the ghost statements that reach it and write a variable it
//! reads (its free variables: not the methods it calls nor what its quantifiers bind): those
//! that bind one, in scope before it (in its own block and the blocks around it; anywhere in a
//! loop body around it, which the next iteration runs first), and those that change one's value
//! (`x = ..`, `x@ = ..`, `&mut x`, a method called as a statement), anywhere before it or in a
//! loop around it. A macro other than vstd's proof macros may expand to either, so it counts as
//! writing every name in its tokens. The task's own such statements are in the task's key too,
//! so they must stay as they are; a candidate's new ones make its key differ. The claim's text
//! holds its attributes and those of the `proof` blocks around it: `#[cfg(any())]` on a claim
//! removes it before Verus reads it.
//!
//! A proof function states its claims in `ensures`: the assertions in its body are steps of a
//! proof (VeruSAGE's `via_fn` decreases proofs) which the candidate's own proof may replace, so
//! this holds for exec targets only.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use quote::ToTokens;
use verus_syn::visit::{self, Visit};
use verus_syn::visit_mut::{self, VisitMut};
use verus_syn::{
    Attribute, BinOp, Block, Expr, ExprBlock, ExprForLoop, ExprLit, ExprLoop, ExprUnary, ExprWhile,
    Item, Lit, LitStr, Pat, Stmt, UnOp,
};

use crate::ghost;
use crate::items::line_of;
use crate::lex::{canon_tokens, identifiers};

/// A claim of a body: what it asserts, where it stands (`key`) and its line.
pub struct Claim {
    pub text: String,
    pub key: String,
    pub line: usize,
}

/// The claims of an exec body, each with its key.
pub fn claims(body: &Block) -> Vec<Claim> {
    claims_where(body, |_| true)
}

/// The claims of `body` whose text `wanted` accepts.
pub fn claims_where(body: &Block, wanted: impl Fn(&str) -> bool) -> Vec<Claim> {
    let mut listing = Listing {
        prefix: nonce(),
        found: Vec::new(),
    };
    let mut body = flattened(body);
    listing.visit_block_mut(&mut body);
    let texts: Vec<&str> = listing.found.iter().map(|c| c.text.as_str()).collect();
    let mut keys: HashMap<usize, String> = HashMap::new();
    let mut out = Vec::new();
    for claim in &listing.found {
        if !wanted(&claim.text) {
            continue;
        }
        let key = keys
            .entry(claim.run)
            .or_insert_with(|| key(&body, &listing.prefix, &texts, claim.run, &claim.names));
        out.push(Claim {
            key: key.clone(),
            text: claim.text.clone(),
            line: claim.line,
        });
    }
    out
}

/// The claims of the task that the candidate no longer makes where the task makes them.
pub fn dropped<'a>(task: &'a [Claim], cand: &[Claim]) -> Vec<&'a Claim> {
    let mut kept: HashMap<&str, usize> = HashMap::new();
    for claim in cand {
        *kept.entry(claim.key.as_str()).or_default() += 1;
    }
    task.iter()
        .filter(|claim| match kept.get_mut(claim.key.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

fn proof_block(attrs: Vec<Attribute>, stmts: Vec<Stmt>) -> Expr {
    Expr::Unary(ExprUnary {
        attrs,
        op: UnOp::Proof(Default::default()),
        expr: Box::new(Expr::Block(ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: Block {
                brace_token: Default::default(),
                stmts,
            },
        })),
    })
}

/// The attributes and statements of a `proof { .. }` statement, if it is one (its attributes
/// and its block's, `#[cfg(..)]` among them, say whether it runs at all).
fn proof_parts(stmt: &Stmt) -> Option<(Vec<Attribute>, &[Stmt])> {
    match stmt {
        Stmt::Expr(Expr::Unary(unary), _) if matches!(unary.op, UnOp::Proof(_)) => {
            match &*unary.expr {
                Expr::Block(b) => {
                    let attrs = unary.attrs.iter().chain(&b.attrs).cloned().collect();
                    Some((attrs, &b.block.stmts))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn proof_stmts(stmt: &Stmt) -> Option<&[Stmt]> {
    proof_parts(stmt).map(|(_, stmts)| stmts)
}

/// Every `proof { a; b; }` statement split into `proof { a; } proof { b; }` (nested ones too),
/// so that each ghost statement stands in the block's own list and stays ghost code.
fn flattened(body: &Block) -> Block {
    struct Split;
    impl VisitMut for Split {
        fn visit_block_mut(&mut self, block: &mut Block) {
            // `outer`: the attributes of the proof blocks around, which each part keeps.
            fn split(stmt: Stmt, outer: &[Attribute], out: &mut Vec<Stmt>) {
                match proof_parts(&stmt) {
                    Some((attrs, inner))
                        if inner.len() != 1 || proof_stmts(&inner[0]).is_some() =>
                    {
                        let attrs: Vec<Attribute> = outer.iter().cloned().chain(attrs).collect();
                        for s in inner.iter().cloned() {
                            if proof_stmts(&s).is_some() {
                                split(s, &attrs, out);
                            } else {
                                let part = proof_block(attrs.clone(), vec![s]);
                                out.push(Stmt::Expr(part, Some(Default::default())));
                            }
                        }
                    }
                    _ if outer.is_empty() => out.push(stmt),
                    Some((attrs, inner)) => {
                        let attrs = outer.iter().cloned().chain(attrs).collect();
                        let part = proof_block(attrs, inner.to_vec());
                        out.push(Stmt::Expr(part, Some(Default::default())));
                    }
                    None => out.push(Stmt::Expr(
                        proof_block(outer.to_vec(), vec![stmt]),
                        Some(Default::default()),
                    )),
                }
            }
            let mut out = Vec::with_capacity(block.stmts.len());
            for stmt in std::mem::take(&mut block.stmts) {
                split(stmt, &[], &mut out);
            }
            block.stmts = out;
            visit_mut::visit_block_mut(self, block);
        }
        fn visit_item_mut(&mut self, _: &mut Item) {}
    }
    let mut body = body.clone();
    Split.visit_block_mut(&mut body);
    body
}

/// The assertion a (flattened) statement makes, if it makes one: `assert(..)` or `assert forall`,
/// alone or as the one statement of a `proof { }`; with the attributes on it and around it.
fn asserted(stmt: &Stmt) -> Option<(&Expr, Vec<Attribute>)> {
    let (attrs, expr) = match (stmt, proof_parts(stmt)) {
        (_, Some((attrs, [Stmt::Expr(e, _)]))) => (attrs, e),
        (Stmt::Expr(e, _), None) => (Vec::new(), e),
        _ => return None,
    };
    let own = match expr {
        Expr::Assert(a) => &a.attrs,
        Expr::AssertForall(a) => &a.attrs,
        _ => return None,
    };
    Some((expr, attrs.into_iter().chain(own.iter().cloned()).collect()))
}

/// A claim as text (its attributes, then the asserted expression: `#[cfg(any())]` on it makes
/// another claim), the free variables it reads and its line.
fn claim_of(expr: &Expr, attrs: &[Attribute]) -> (String, HashSet<String>, usize) {
    let mut free = FreeNames::default();
    let mut tokens = proc_macro2::TokenStream::new();
    for attr in attrs {
        attr.to_tokens(&mut tokens);
    }
    match expr {
        Expr::AssertForall(a) => {
            // As `assert(forall|..| a ==> b)`, which it proves.
            tokens.extend(quote::quote!(forall |));
            a.inputs.to_tokens(&mut tokens);
            tokens.extend(quote::quote!(|));
            a.expr.to_tokens(&mut tokens);
            if let Some((_, consequent)) = &a.implies {
                tokens.extend(quote::quote!(==>));
                consequent.to_tokens(&mut tokens);
            }
            free.bind(a.inputs.iter(), |free| {
                free.visit_expr(&a.expr);
                if let Some((_, consequent)) = &a.implies {
                    free.visit_expr(consequent);
                }
            });
        }
        Expr::Assert(a) => {
            a.expr.to_tokens(&mut tokens);
            free.visit_expr(&a.expr);
        }
        other => other.to_tokens(&mut tokens),
    }
    (canon_tokens(&tokens), free.names, line_of(expr))
}

/// The variables an expression reads: single-name paths not bound by a closure or quantifier
/// inside it (method and field names are no variables), and every name in a macro's tokens.
#[derive(Default)]
struct FreeNames {
    names: HashSet<String>,
    bound: Vec<HashSet<String>>,
}

impl FreeNames {
    fn bind<'p>(&mut self, pats: impl Iterator<Item = &'p Pat>, body: impl FnOnce(&mut Self)) {
        let mut binders = Binders(HashSet::new());
        for pat in pats {
            binders.visit_pat(pat);
        }
        self.bound.push(binders.0);
        body(self);
        self.bound.pop();
    }
}

impl<'ast> Visit<'ast> for FreeNames {
    fn visit_expr_path(&mut self, path: &'ast verus_syn::ExprPath) {
        if let Some(ident) = path.path.get_ident().filter(|_| path.qself.is_none()) {
            let name = ident.to_string();
            if !self.bound.iter().any(|b| b.contains(&name)) {
                self.names.insert(name);
            }
        }
        visit::visit_expr_path(self, path);
    }
    fn visit_expr_closure(&mut self, closure: &'ast verus_syn::ExprClosure) {
        self.bind(closure.inputs.iter().map(|arg| &arg.pat), |free| {
            visit::visit_expr_closure(free, closure)
        });
    }
    fn visit_macro(&mut self, mac: &'ast verus_syn::Macro) {
        identifiers(&mac.tokens, &mut self.names);
    }
}

/// The names patterns bind (a macro in a pattern: every name in its tokens).
struct Binders(HashSet<String>);

impl<'ast> Visit<'ast> for Binders {
    fn visit_pat(&mut self, pat: &'ast Pat) {
        match pat {
            Pat::Ident(p) => {
                self.0.insert(p.ident.to_string());
            }
            Pat::Macro(m) => identifiers(&m.mac.tokens, &mut self.0),
            _ => {}
        }
        visit::visit_pat(self, pat);
    }
    fn visit_expr(&mut self, _: &'ast Expr) {}
    fn visit_type(&mut self, _: &'ast verus_syn::Type) {}
}

/// A text no task can hold, so that no literal of its own reads as a claim's placeholder.
fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!("\u{0}claim-{random:016x}-")
}

/// A claim as listed: its text, line, the names it reads, and the first claim of its run (the
/// same text asserted again in the same block with only claims and ghost code between that
/// writes none of its names stands in the same place: one key serves the run, so that a
/// thousand copies of a claim cost one pass over the body, not a thousand).
struct Listed {
    text: String,
    line: usize,
    names: HashSet<String>,
    run: usize,
}

/// Replaces each claim of a flattened body by a placeholder (a string literal: the prefix and
/// the claim's number, in walking order) and lists them. A key is then a pass over the body
/// without its claims.
struct Listing {
    prefix: String,
    found: Vec<Listed>,
}

impl VisitMut for Listing {
    fn visit_block_mut(&mut self, block: &mut Block) {
        // The run each text has open in this block: its first claim.
        let mut open: HashMap<String, usize> = HashMap::new();
        for stmt in &mut block.stmts {
            match asserted(stmt) {
                Some((expr, attrs)) => {
                    let (text, names, line) = claim_of(expr, &attrs);
                    let k = self.found.len();
                    let run = *open.entry(text.clone()).or_insert(k);
                    *stmt = marker(format!("{}{}", self.prefix, k));
                    self.found.push(Listed {
                        text,
                        line,
                        names,
                        run,
                    });
                }
                None => {
                    let before = self.found.len();
                    self.visit_stmt_mut(stmt);
                    if self.found.len() != before || !ghost::is_ghost_stmt(stmt) {
                        open.clear();
                    } else if !open.is_empty() {
                        let writes = Writes::of(stmt);
                        let found = &self.found;
                        open.retain(|_, first| !writes.touches(&found[*first].names));
                    }
                }
            }
        }
    }
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// The number of the claim a statement stands for, if it is a placeholder.
fn placeholder(stmt: &Stmt, prefix: &str) -> Option<usize> {
    match stmt {
        Stmt::Expr(
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }),
            None,
        ) => s.value().strip_prefix(prefix)?.parse().ok(),
        _ => None,
    }
}

/// How many claims a node holds.
fn count_block(block: &Block, prefix: &str) -> usize {
    let mut counting = Counting(prefix, 0);
    counting.visit_block(block);
    counting.1
}

fn count_stmt(stmt: &Stmt, prefix: &str) -> usize {
    let mut counting = Counting(prefix, 0);
    counting.visit_stmt(stmt);
    counting.1
}

fn count_expr(expr: &Expr, prefix: &str) -> usize {
    let mut counting = Counting(prefix, 0);
    counting.visit_expr(expr);
    counting.1
}

struct Counting<'a>(&'a str, usize);

impl<'ast> Visit<'ast> for Counting<'_> {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match placeholder(stmt, self.0) {
            Some(_) => self.1 += 1,
            None => visit::visit_stmt(self, stmt),
        }
    }
    fn visit_item(&mut self, _: &'ast Item) {}
}

/// What a ghost statement does to names: binds them for the statements after it (a `let`, or
/// a `proof { let .. }` part) or changes their values (assignments, `&mut` borrows, method
/// calls made as statements, `x@ = ..`; and any macro but vstd's proof macros, whose tokens
/// may expand to either: every name in them).
#[derive(Default)]
struct Writes {
    bound: HashSet<String>,
    changed: HashSet<String>,
}

impl Writes {
    fn of(stmt: &Stmt) -> Writes {
        let mut writes = Writes::default();
        let local = match (stmt, proof_stmts(stmt)) {
            (_, Some([Stmt::Local(local)])) | (Stmt::Local(local), None) => Some(local),
            _ => None,
        };
        if let Some(local) = local {
            let mut binders = Binders(HashSet::new());
            binders.visit_pat(&local.pat);
            writes.bound = binders.0;
        }
        writes.visit_stmt(stmt);
        writes
    }

    fn touches(&self, names: &HashSet<String>) -> bool {
        !self.bound.is_disjoint(names) || !self.changed.is_disjoint(names)
    }
}

/// The variables an assignment target or a receiver stands on (`x.f[i]`, `*x`, `x@`, `x.m()`,
/// each part of `(x, y)` or `[x, y]`, a struct's fields).
fn roots(expr: &Expr, out: &mut HashSet<String>) {
    match expr {
        Expr::Path(p) if p.qself.is_none() => out.extend(p.path.get_ident().map(|i| i.to_string())),
        Expr::Field(f) => roots(&f.base, out),
        Expr::Index(i) => roots(&i.expr, out),
        Expr::Paren(p) => roots(&p.expr, out),
        Expr::Unary(u) => roots(&u.expr, out),
        Expr::View(v) => roots(&v.expr, out),
        Expr::MethodCall(m) => roots(&m.receiver, out),
        Expr::Tuple(t) => t.elems.iter().for_each(|e| roots(e, out)),
        Expr::Array(a) => a.elems.iter().for_each(|e| roots(e, out)),
        Expr::Struct(s) => s.fields.iter().for_each(|f| roots(&f.expr, out)),
        _ => {}
    }
}

/// Whether a method called as a statement may change its receiver: any may (`&mut self`,
/// a proof method the candidate adds to an inherent impl), but not one called on a view
/// (`s@.to_multiset_ensures()`): `x@` is a spec value, which nothing changes.
fn may_change_receiver(receiver: &Expr) -> bool {
    match receiver {
        Expr::Paren(p) => may_change_receiver(&p.expr),
        Expr::View(_) => false,
        _ => true,
    }
}

impl<'ast> Visit<'ast> for Writes {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Stmt::Expr(Expr::MethodCall(call), _) = stmt {
            if may_change_receiver(&call.receiver) {
                roots(&call.receiver, &mut self.changed);
            }
        }
        visit::visit_stmt(self, stmt);
    }
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Assign(a) => roots(&a.left, &mut self.changed),
            Expr::Binary(b) if is_compound_assignment(&b.op) => roots(&b.left, &mut self.changed),
            Expr::Reference(r) if r.mutability.is_some() => roots(&r.expr, &mut self.changed),
            _ => {}
        }
        visit::visit_expr(self, expr);
    }
    fn visit_macro(&mut self, mac: &'ast verus_syn::Macro) {
        // `proof!{ .. }` holds statements of any kind; the others, expressions.
        let trusted = mac.path.segments.last().is_some_and(|s| {
            s.ident != "proof" && ghost::PROOF_MACROS.iter().any(|m| s.ident == m)
        });
        if !trusted {
            identifiers(&mac.tokens, &mut self.changed);
        }
    }
    fn visit_item(&mut self, _: &'ast Item) {}
}

fn is_compound_assignment(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

fn marker(text: String) -> Stmt {
    Stmt::Expr(
        Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit: Lit::Str(LitStr::new(&text, Span::call_site())),
        }),
        None,
    )
}

/// Claim `k` of a flattened body, where it stands: the body's executable code with the claim
/// in its place and the ghost statements that write its names before it, as text.
fn key(body: &Block, prefix: &str, texts: &[&str], k: usize, names: &HashSet<String>) -> String {
    let mut body = body.clone();
    Keep {
        prefix,
        texts,
        k,
        seen: 0,
        names,
        loop_bodies: Vec::new(),
    }
    .visit_block_mut(&mut body);
    canon_tokens(&ghost::executable(&body).to_token_stream())
}

struct Keep<'a> {
    prefix: &'a str,
    texts: &'a [&'a str],
    k: usize,
    /// Claims walked so far (the placeholders' numbers follow the walk).
    seen: usize,
    names: &'a HashSet<String>,
    /// The claim ranges of the loop bodies being walked.
    loop_bodies: Vec<(usize, usize)>,
}

impl Keep<'_> {
    /// Drops the placeholders inside a statement (claims other than `k`).
    fn k_free(&self, stmt: &mut Stmt) {
        struct Unplace<'a>(&'a str);
        impl VisitMut for Unplace<'_> {
            fn visit_block_mut(&mut self, block: &mut Block) {
                block.stmts.retain(|s| placeholder(s, self.0).is_none());
                visit_mut::visit_block_mut(self, block);
            }
            fn visit_item_mut(&mut self, _: &mut Item) {}
        }
        Unplace(self.prefix).visit_stmt_mut(stmt);
    }

    /// Whether what a ghost statement writes reaches claim `k` (the statement ends where claim
    /// `after` would start): a binding, within `scope` (the claims after it in its block, or all
    /// of a loop body's: the next iteration runs them first); a change of value, everything
    /// after it, and everything in a loop around the claim.
    fn reaches(&self, writes: &Writes, scope: std::ops::Range<usize>, after: usize) -> bool {
        let k = self.k;
        let in_loop = self.loop_bodies.iter().any(|&(s, e)| (s..e).contains(&k));
        let bound = !writes.bound.is_disjoint(self.names) && scope.contains(&k);
        let changed = !writes.changed.is_disjoint(self.names) && (k >= after || in_loop);
        bound || changed
    }

    /// Notes the claims a loop's body holds (its condition or iterator comes first).
    fn enter_loop(&mut self, before_body: usize, body: &Block) {
        let start = self.seen + before_body;
        self.loop_bodies
            .push((start, start + count_block(body, self.prefix)));
    }
}

impl VisitMut for Keep<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let start = self.seen;
        let end = start + count_block(block, self.prefix);
        let whole = self.loop_bodies.contains(&(start, end));
        let mut out = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            if let Some(n) = placeholder(&stmt, self.prefix) {
                if n == self.k {
                    out.push(marker(format!("claim {}", self.texts[n])));
                }
                self.seen += 1;
                continue;
            }
            let after = self.seen + count_stmt(&stmt, self.prefix);
            if (self.seen..after).contains(&self.k) && ghost::is_ghost_stmt(&stmt) {
                // The claim stands inside ghost code, which erasure would take with it.
                self.visit_stmt_mut(&mut stmt);
                out.push(marker(format!(
                    "ghost {}",
                    canon_tokens(&stmt.to_token_stream())
                )));
                continue;
            }
            let scope = if whole { start..end } else { after..end };
            if ghost::is_ghost_stmt(&stmt) && self.reaches(&Writes::of(&stmt), scope, after) {
                // Other claims inside it are left out: only this claim's text is in its key.
                self.k_free(&mut stmt);
                out.push(marker(format!(
                    "kept {}",
                    canon_tokens(&stmt.to_token_stream())
                )));
                self.seen = after;
                continue;
            }
            self.visit_stmt_mut(&mut stmt);
            out.push(stmt);
        }
        block.stmts = out;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let holds_k = ghost::is_ghost_expr(expr)
            && (self.seen..self.seen + count_expr(expr, self.prefix)).contains(&self.k);
        visit_mut::visit_expr_mut(self, expr);
        if holds_k {
            // As for a ghost statement: a match arm's `proof { .. }`, say.
            let text = format!("ghost {}", canon_tokens(&expr.to_token_stream()));
            if let Stmt::Expr(lit, _) = marker(text) {
                *expr = lit;
            }
        }
    }

    fn visit_expr_while_mut(&mut self, e: &mut ExprWhile) {
        self.enter_loop(count_expr(&e.cond, self.prefix), &e.body);
        visit_mut::visit_expr_while_mut(self, e);
        self.loop_bodies.pop();
    }

    fn visit_expr_loop_mut(&mut self, e: &mut ExprLoop) {
        self.enter_loop(0, &e.body);
        visit_mut::visit_expr_loop_mut(self, e);
        self.loop_bodies.pop();
    }

    fn visit_expr_for_loop_mut(&mut self, e: &mut ExprForLoop) {
        self.enter_loop(count_expr(&e.expr, self.prefix), &e.body);
        visit_mut::visit_expr_for_loop_mut(self, e);
        self.loop_bodies.pop();
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}
