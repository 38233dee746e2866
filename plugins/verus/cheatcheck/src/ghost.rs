//! Ghost erasure: what remains of an exec body once everything Verus erases before compiling
//! is gone, which is the code that runs and which a proof must leave as it was.
//!
//! Erased: `assert`/`assert forall`/`assume`/`reveal` statements, `proof { .. }` blocks (as
//! statements, match-arm bodies or branches), vstd's proof macros, `let ghost`/`let tracked`
//! bindings and `let x = Ghost(..)`/`Tracked(..)`, ghost reassignments `x = Ghost(..)`, the
//! arguments of `Ghost(..)`/`Tracked(..)` wrappers, `broadcast use` and nested spec or proof
//! functions, loop invariants/ensures/decreases and the solver-tuning attributes of loops,
//! closures' requires/ensures, and grouping parentheses. Erasure may leave an empty `else { }`,
//! which is dropped (it runs nothing), and the tail `let x = e; x` is read as `e` (a proof names
//! the result to state facts about it; both return the value of `e`). A statement's `;` is
//! dropped: where `x;` and `x` both compile as a block's end they run alike.

use verus_syn::visit_mut::{self, VisitMut};
use verus_syn::{
    Block, Expr, ExprBlock, ExprCall, ExprClosure, ExprForLoop, ExprIf, ExprLoop, ExprWhile, Item,
    Pat, Stmt, UnOp,
};

use crate::attrs;
use crate::items::fn_mode_is_ghost;

/// vstd's proof macros, which exec code may use as statements: they expand to proof blocks.
pub const PROOF_MACROS: [&str; 9] = [
    "assert_seqs_equal",
    "assert_sets_equal",
    "assert_maps_equal",
    "assert_multisets_equal",
    "assert_by_contradiction",
    "assert_nonlinear_by",
    "assert_bitvector_by",
    "calc",
    "proof",
];

/// The wrappers whose contents are ghost: `Ghost(..)`, `Tracked(..)`.
pub const WRAPPERS: [&str; 2] = ["Ghost", "Tracked"];

fn is_wrapper(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| WRAPPERS.iter().any(|w| s.ident == w)))
}

fn is_wrapped(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if is_wrapper(&call.func))
}

fn is_proof_macro(path: &verus_syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| PROOF_MACROS.iter().any(|name| s.ident == name))
}

/// An expression that is ghost as a whole.
pub fn is_ghost_expr(expr: &Expr) -> bool {
    match expr {
        Expr::Assert(_) | Expr::AssertForall(_) | Expr::Assume(_) | Expr::RevealHide(_) => true,
        Expr::Unary(unary) => matches!(unary.op, UnOp::Proof(_)),
        Expr::Macro(m) => is_proof_macro(&m.mac.path),
        Expr::Assign(assign) => is_wrapped(&assign.right),
        _ => false,
    }
}

pub fn is_ghost_stmt(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Local(local) => {
            local.ghost.is_some()
                || local.tracked.is_some()
                || local
                    .init
                    .as_ref()
                    .is_some_and(|init| init.diverge.is_none() && is_wrapped(&init.expr))
        }
        Stmt::Expr(expr, _) => is_ghost_expr(expr),
        Stmt::Item(Item::BroadcastUse(_)) => true,
        Stmt::Item(Item::Fn(f)) => fn_mode_is_ghost(&f.sig.mode),
        Stmt::Macro(m) => is_proof_macro(&m.mac.path),
        Stmt::Item(_) => false,
    }
}

fn empty_block() -> Expr {
    Expr::Block(ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: Block {
            brace_token: Default::default(),
            stmts: Vec::new(),
        },
    })
}

fn is_empty_block(expr: &Expr) -> bool {
    matches!(expr, Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() && b.block.stmts.is_empty())
}

/// `let x = e; x` at a block's end (`x` a plain binding): the value of `e`.
fn fold_named_result(block: &mut Block) {
    let n = block.stmts.len();
    if n < 2 {
        return;
    }
    let folded = match (&block.stmts[n - 2], &block.stmts[n - 1]) {
        (Stmt::Local(local), Stmt::Expr(Expr::Path(path), None))
            if local.attrs.is_empty() && path.qself.is_none() =>
        {
            let pat = match &local.pat {
                Pat::Type(typed) => &*typed.pat,
                other => other,
            };
            match (pat, &local.init) {
                (Pat::Ident(name), Some(init))
                    if name.by_ref.is_none()
                        && name.mutability.is_none()
                        && name.subpat.is_none()
                        && init.diverge.is_none()
                        && path.path.is_ident(&name.ident) =>
                {
                    Some((*init.expr).clone())
                }
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(expr) = folded {
        block.stmts.truncate(n - 2);
        block.stmts.push(Stmt::Expr(expr, None));
    }
}

/// Clears what a loop of any kind may carry as proof. The three loop types share these fields
/// without sharing a type, hence a macro.
macro_rules! strip_loop_proof {
    ($e:ident) => {
        $e.attrs.retain(|a| !attrs::effective(a).iter().all(attrs::is_tuning));
        $e.invariant_except_break = None;
        $e.invariant = None;
        $e.ensures = None;
        $e.decreases = None;
    };
}

struct Deghost;

impl VisitMut for Deghost {
    fn visit_block_mut(&mut self, block: &mut Block) {
        block.stmts.retain(|stmt| !is_ghost_stmt(stmt));
        for stmt in &mut block.stmts {
            if let Stmt::Expr(_, semi) = stmt {
                *semi = None;
            }
        }
        visit_mut::visit_block_mut(self, block);
        fold_named_result(block);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // Parentheses are grouping only: the tree already holds the precedence they spell.
        while let Expr::Paren(paren) = expr {
            let inner = std::mem::replace(&mut *paren.expr, empty_block());
            *expr = inner;
        }
        if is_ghost_expr(expr) {
            *expr = empty_block();
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_expr_if_mut(&mut self, e: &mut ExprIf) {
        visit_mut::visit_expr_if_mut(self, e);
        if e.else_branch.as_ref().is_some_and(|(_, b)| is_empty_block(b)) {
            e.else_branch = None;
        }
    }

    fn visit_expr_call_mut(&mut self, call: &mut ExprCall) {
        if is_wrapper(&call.func) {
            call.args.clear();
        } else {
            visit_mut::visit_expr_call_mut(self, call);
        }
    }

    fn visit_expr_closure_mut(&mut self, e: &mut ExprClosure) {
        e.requires = None;
        e.ensures = None;
        e.invariants = None;
        visit_mut::visit_expr_closure_mut(self, e);
    }

    fn visit_expr_while_mut(&mut self, e: &mut ExprWhile) {
        strip_loop_proof!(e);
        e.invariant_ensures = None;
        visit_mut::visit_expr_while_mut(self, e);
    }

    fn visit_expr_loop_mut(&mut self, e: &mut ExprLoop) {
        strip_loop_proof!(e);
        e.invariant_ensures = None;
        visit_mut::visit_expr_loop_mut(self, e);
    }

    fn visit_expr_for_loop_mut(&mut self, e: &mut ExprForLoop) {
        strip_loop_proof!(e);
        e.expr_name = None;
        visit_mut::visit_expr_for_loop_mut(self, e);
    }
}

/// The executable part of a (normalised) exec body.
pub fn executable(block: &Block) -> Block {
    let mut block = block.clone();
    Deghost.visit_block_mut(&mut block);
    block
}
