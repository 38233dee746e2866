//! The ground truth's proof moved into its task: the task's text with each target function's
//! signature and body taken from the ground truth's function of the same name and place
//! (`impl`, `mod`, `verus!`), plus the ground truth's new items that the rules allow, each
//! after the item it follows in the ground truth. Everything else keeps the task's bytes: the
//! benchmark extracted task and solution separately, so their context items differ in ways no
//! proof asks for. A target keeps the task's attributes (the ground truth's are added where
//! the task lacks them): a ground truth that only drops one of the task's attributes is the
//! benchmark's inconsistency, not the proof's.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;

use crate::attrs;
use crate::items::{parse, FnNode, Kind, Node, Parsed};
use crate::rules::{provable, Checker};

pub fn transplant(task: &str, truth: &str, target: Option<&str>) -> Result<String, String> {
    let task_parsed = parse(task).map_err(|e| format!("the task: {}", e.reason))?;
    let truth_parsed = parse(truth).map_err(|e| format!("the ground truth: {}", e.reason))?;
    let mut graft = Graft {
        target,
        task,
        truth,
        parsed: &task_parsed,
        edits: Vec::new(),
    };
    graft.lists(&task_parsed.nodes, &truth_parsed.nodes, false, None, Kind::Mod);
    let mut edits = graft.edits;
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(task.len() + truth.len() / 4);
    let mut cursor = 0;
    for (range, text) in edits {
        if range.start < cursor {
            return Err("overlapping edits".into());
        }
        out.push_str(&task[cursor..range.start]);
        out.push_str(&text);
        cursor = range.end;
    }
    out.push_str(&task[cursor..]);
    Ok(out)
}

struct Graft<'a> {
    target: Option<&'a str>,
    task: &'a str,
    truth: &'a str,
    parsed: &'a Parsed,
    /// Task byte ranges and their new text (an empty range inserts).
    edits: Vec<(Range<usize>, String)>,
}

impl Graft<'_> {
    /// `open`: where an item goes that follows no kept item (None: the file's start).
    fn lists(&mut self, task: &[Node], truth: &[Node], in_verus: bool, open: Option<usize>, scope: Kind) {
        let mut unused: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, node) in task.iter().enumerate() {
            unused.entry(node.key()).or_default().push_back(i);
        }
        let matched: Vec<Option<usize>> = truth
            .iter()
            .map(|node| unused.get_mut(&node.key()).and_then(VecDeque::pop_front))
            .collect();
        for (j, node) in truth.iter().enumerate() {
            match matched[j] {
                Some(i) => self.matched(&task[i], node, in_verus),
                None if self.allowed(node, scope) => {
                    let text = self.slice(node.span());
                    let indent = indent_before(self.truth, node.span().start);
                    let after = matched[..j].iter().rev().flatten().next();
                    let (at, text) = match (after, open) {
                        (Some(&i), _) => (task[i].span().end, format!("\n\n{indent}{text}")),
                        (None, Some(at)) => (at, format!("\n{indent}{text}")),
                        (None, None) => (0, format!("{text}\n")),
                    };
                    self.edits.push((at..at, text));
                }
                None => {}
            }
        }
    }

    fn matched(&mut self, task: &Node, truth: &Node, in_verus: bool) {
        match (task, truth) {
            (Node::Fn(o), Node::Fn(c)) if in_verus && provable(o, self.target) => {
                let text = self.target_text(o, c);
                if text != self.task[o.span.clone()] {
                    self.edits.push((o.span.clone(), text));
                }
            }
            (
                Node::Container {
                    kind,
                    children: oc,
                    open,
                    ..
                },
                Node::Container { children: cc, .. },
            ) => {
                let scope = if *kind == Kind::Verus { Kind::Mod } else { *kind };
                self.lists(oc, cc, in_verus || *kind == Kind::Verus, Some(*open), scope);
            }
            _ => {}
        }
    }

    /// The task's attributes, those of the ground truth the task lacks, then the ground truth's
    /// function from its signature on.
    fn target_text(&self, o: &FnNode, c: &FnNode) -> String {
        let had: HashSet<String> = o.attrs.iter().flat_map(attrs::effective).map(|e| e.text).collect();
        let mut text = self.task[o.span.start..o.head].to_string();
        let outer = c.attrs.iter().filter(|a| matches!(a.style, verus_syn::AttrStyle::Outer));
        for attr in outer {
            if attrs::effective(attr).iter().any(|e| !had.contains(&e.text)) {
                let start = attr.pound_token.span.byte_range().start;
                let end = attr.bracket_token.span.close().byte_range().end;
                text.push_str(&self.slice(start..end));
                text.push('\n');
                text.push_str(indent_before(self.truth, c.head));
            }
        }
        text.push_str(&self.slice(c.head..c.span.end));
        text
    }

    /// Whether the cheat checker accepts `node` as a new item here.
    fn allowed(&self, node: &Node, scope: Kind) -> bool {
        let mut checker = Checker::new(self.parsed, None);
        checker.added(node, scope, true);
        checker.out.is_empty() && !node.span().is_empty()
    }

    fn slice(&self, range: Range<usize>) -> String {
        self.truth.get(range).unwrap_or_default().to_string()
    }
}

/// The blanks between the start of `at`'s line and `at` (nothing when other text is there).
fn indent_before(text: &str, at: usize) -> &str {
    let line = &text[..at.min(text.len())];
    let start = line.rfind('\n').map_or(0, |i| i + 1);
    let indent = &line[start..];
    if indent.chars().all(char::is_whitespace) {
        indent
    } else {
        ""
    }
}
