//! A document whose tree stops being walkable once its search is cancelled.
//!
//! A rule's match inside one file cannot be interrupted from outside: a rule of nested
//! relational rules (`has` / `inside` with `stopBy: end`) walks the tree again for every node it
//! tries, which on a large file takes minutes. Every walk of ast-grep goes through the node
//! methods below (children, parent, siblings, depth-first order), so once the search's flag is
//! set each of them answers "nothing there": every loop ends at its next step, and the thread is
//! free within microseconds. What was matched after that point is incomplete; the search
//! answers `TIMEOUT` instead of using it.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ast_grep_core::source::{Doc, Edit, SgNode};
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Node, Position};
use ast_grep_language::SupportLang;

type TsNode<'r> = <StrDoc<SupportLang> as Doc>::Node<'r>;

/// A parsed file and the flag of the search it belongs to.
#[derive(Clone)]
pub(super) struct StoppableDoc {
    inner: StrDoc<SupportLang>,
    stop: Arc<AtomicBool>,
}

impl StoppableDoc {
    pub(super) fn new(inner: StrDoc<SupportLang>, stop: Arc<AtomicBool>) -> Self {
        StoppableDoc { inner, stop }
    }

    pub(super) fn source(&self) -> &str {
        &self.inner.src
    }
}

impl Doc for StoppableDoc {
    type Source = String;
    type Lang = SupportLang;
    type Node<'r> = StoppableNode<'r>;

    fn get_lang(&self) -> &SupportLang {
        self.inner.get_lang()
    }

    fn get_source(&self) -> &String {
        self.inner.get_source()
    }

    fn do_edit(&mut self, edit: &Edit<String>) -> Result<(), String> {
        self.inner.do_edit(edit)
    }

    fn root_node(&self) -> StoppableNode<'_> {
        StoppableNode {
            node: self.inner.root_node(),
            stop: &self.stop,
        }
    }

    fn get_node_text<'a>(&'a self, node: &StoppableNode<'a>) -> Cow<'a, str> {
        self.inner.get_node_text(&node.node)
    }
}

#[derive(Clone)]
pub(super) struct StoppableNode<'r> {
    node: TsNode<'r>,
    stop: &'r AtomicBool,
}

impl<'r> StoppableNode<'r> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn wrap(&self, node: TsNode<'r>) -> Self {
        StoppableNode {
            node,
            stop: self.stop,
        }
    }

    /// `found` unless the search was stopped.
    fn unless_stopped(&self, found: impl FnOnce() -> Option<TsNode<'r>>) -> Option<Self> {
        if self.stopped() {
            return None;
        }
        found().map(|n| self.wrap(n))
    }

    /// The items of `iter`, each wrapped, until the search is stopped.
    fn walk(&self, iter: impl Iterator<Item = TsNode<'r>>) -> impl Iterator<Item = Self> {
        let stop = self.stop;
        iter.take_while(move |_| !stop.load(Ordering::Relaxed))
            .map(move |node| StoppableNode { node, stop })
    }
}

/// Children that run out once the search is stopped (the count stays what was promised only
/// while it runs; a stopped search's results are not used).
pub(super) struct Children<'r, I> {
    iter: Option<I>,
    stop: &'r AtomicBool,
}

impl<'r, I: ExactSizeIterator<Item = TsNode<'r>>> Iterator for Children<'r, I> {
    type Item = StoppableNode<'r>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stop.load(Ordering::Relaxed) {
            self.iter = None;
        }
        let node = self.iter.as_mut()?.next()?;
        Some(StoppableNode {
            node,
            stop: self.stop,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.iter.as_ref().map_or(0, ExactSizeIterator::len);
        (n, Some(n))
    }
}

impl<'r, I: ExactSizeIterator<Item = TsNode<'r>>> ExactSizeIterator for Children<'r, I> {}

impl<'r> SgNode<'r> for StoppableNode<'r> {
    fn parent(&self) -> Option<Self> {
        self.unless_stopped(|| self.node.parent())
    }

    fn children(&self) -> impl ExactSizeIterator<Item = Self> {
        Children {
            iter: (!self.stopped()).then(|| SgNode::children(&self.node)),
            stop: self.stop,
        }
    }

    fn named_children(&self) -> impl Iterator<Item = Self> {
        self.walk(SgNode::named_children(&self.node))
    }

    fn kind(&self) -> Cow<'_, str> {
        SgNode::kind(&self.node)
    }

    fn kind_id(&self) -> u16 {
        SgNode::kind_id(&self.node)
    }

    fn node_id(&self) -> usize {
        SgNode::node_id(&self.node)
    }

    fn range(&self) -> std::ops::Range<usize> {
        SgNode::range(&self.node)
    }

    fn start_pos(&self) -> Position {
        SgNode::start_pos(&self.node)
    }

    fn end_pos(&self) -> Position {
        SgNode::end_pos(&self.node)
    }

    fn ancestors(&self, root: Self) -> impl Iterator<Item = Self> {
        let all: Vec<TsNode<'r>> = if self.stopped() {
            Vec::new()
        } else {
            SgNode::ancestors(&self.node, root.node).collect()
        };
        self.walk(all.into_iter())
    }

    fn dfs(&self) -> impl Iterator<Item = Self> {
        self.walk(SgNode::dfs(&self.node))
    }

    fn child(&self, nth: usize) -> Option<Self> {
        self.unless_stopped(|| SgNode::child(&self.node, nth))
    }

    fn next(&self) -> Option<Self> {
        self.unless_stopped(|| SgNode::next(&self.node))
    }

    fn prev(&self) -> Option<Self> {
        self.unless_stopped(|| SgNode::prev(&self.node))
    }

    fn next_all(&self) -> impl Iterator<Item = Self> {
        self.walk(SgNode::next_all(&self.node))
    }

    fn prev_all(&self) -> impl Iterator<Item = Self> {
        self.walk(SgNode::prev_all(&self.node))
    }

    fn is_named(&self) -> bool {
        SgNode::is_named(&self.node)
    }

    fn is_named_leaf(&self) -> bool {
        SgNode::is_named_leaf(&self.node)
    }

    fn is_leaf(&self) -> bool {
        SgNode::is_leaf(&self.node)
    }

    fn is_missing(&self) -> bool {
        SgNode::is_missing(&self.node)
    }

    fn is_error(&self) -> bool {
        SgNode::is_error(&self.node)
    }

    fn is_extra(&self) -> bool {
        SgNode::is_extra(&self.node)
    }

    fn field(&self, name: &str) -> Option<Self> {
        self.unless_stopped(|| SgNode::field(&self.node, name))
    }

    fn field_children(&self, field_id: Option<u16>) -> impl Iterator<Item = Self> {
        self.walk(SgNode::field_children(&self.node, field_id))
    }

    fn child_by_field_id(&self, field_id: u16) -> Option<Self> {
        self.unless_stopped(|| SgNode::child_by_field_id(&self.node, field_id))
    }
}

/// The text of the match's lines before and after it (the CLI's `lines` with no context lines).
pub(super) fn line_context<'r>(node: &Node<'r, StoppableDoc>) -> (&'r str, &'r str) {
    let source = node.get_doc().source();
    let bytes = source.as_bytes();
    let range = node.range();
    let end = range.end.min(bytes.len());
    let leading = bytes[..range.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let trailing = bytes[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| end + i);
    (&source[leading..range.start], &source[end..trailing])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;
    use ast_grep_core::AstGrep;

    #[test]
    fn a_stopped_document_walks_nowhere() {
        let stop = Arc::new(AtomicBool::new(false));
        let parsed = SupportLang::JavaScript.ast_grep("function a() { return b(c(d), 1); }");
        let doc = StoppableDoc::new(parsed.root().get_doc().clone(), Arc::clone(&stop));
        let root = AstGrep::doc(doc);
        let all: Vec<_> = root.root().dfs().collect();
        assert!(all.len() > 10);
        let leaf = all.last().unwrap().clone();
        assert!(leaf.parent().is_some());
        assert_eq!(
            root.root().find_all("$F($$$)").count(),
            2,
            "b(...) and c(...)"
        );
        stop.store(true, Ordering::Relaxed);
        assert_eq!(root.root().dfs().count(), 0);
        assert_eq!(root.root().children().count(), 0);
        assert!(leaf.parent().is_none());
        assert!(leaf.next().is_none() && leaf.prev().is_none());
        assert_eq!(root.root().find_all("$F($$$)").count(), 0);
    }

    #[test]
    fn line_context_is_the_rest_of_the_match_lines() {
        let parsed = SupportLang::JavaScript.ast_grep("let x = 1;\nfoo(bar);\nlast");
        let doc = StoppableDoc::new(parsed.root().get_doc().clone(), Arc::default());
        let root = AstGrep::doc(doc);
        let m = root.root().find("bar").unwrap();
        assert_eq!(line_context(&m), ("foo(", ");"));
        let m = root.root().find("last").unwrap();
        assert_eq!(line_context(&m), ("", ""));
    }
}
