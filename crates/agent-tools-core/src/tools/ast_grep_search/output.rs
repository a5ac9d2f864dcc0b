//! What the CLI's JSON printer makes of a match.

use super::stoppable::{line_context, StoppableDoc};
use super::*;

/// The comment text that can suppress a match (`// ast-grep-ignore`).
pub(super) const SUPPRESSION_MARKER: &str = "ast-grep-ignore";

pub(super) type SgNode<'t> = Node<'t, StoppableDoc>;
pub(super) type SgMatch<'t> = NodeMatch<'t, StoppableDoc>;

fn range_between(start: &SgNode, end: &SgNode) -> AstGrepJsonRange {
    let (from, to) = (start.start_pos(), end.end_pos());
    AstGrepJsonRange {
        byte_offset: ByteOffset {
            start: start.range().start,
            end: end.range().end,
        },
        start: AstGrepJsonPosition {
            line: from.line(),
            column: from.column(start),
        },
        end: AstGrepJsonPosition {
            line: to.line(),
            column: to.column(end),
        },
    }
}

fn matched_node(node: &SgNode) -> MatchedNode {
    MatchedNode {
        text: node.text().into_owned(),
        range: range_between(node, node),
    }
}

/// What the CLI's JSON printer makes of one match.
pub(super) fn to_item(rule: &RuleConfig<SupportLang>, m: &SgMatch, file: &str) -> AstGrepJsonMatch {
    let (leading, trailing) = line_context(m);
    let lines = format!("{leading}{}{trailing}", m.text());
    let source = m.get_doc().source();
    let labels = rule
        .get_labels(m)
        .iter()
        .map(|label| {
            let span = label.range();
            MatchLabel {
                text: source.get(span).unwrap_or_default().to_string(),
                range: range_between(&label.start_node, &label.end_node),
                style: match label.style {
                    LabelStyle::Primary => "primary",
                    LabelStyle::Secondary => "secondary",
                },
            }
        })
        .collect();
    AstGrepJsonMatch {
        text: m.text().into_owned(),
        range: range_between(m, m),
        file: file.to_string(),
        lines,
        char_count: CharCount {
            leading: leading.chars().count(),
            trailing: trailing.chars().count(),
        },
        language: *m.lang(),
        meta_variables: meta_variables(m),
        rule_id: RULE_ID,
        severity: "hint",
        note: rule.note.clone(),
        message: rule.get_message(m),
        labels,
    }
}

fn meta_variables(m: &SgMatch) -> Option<MetaVariables> {
    let env = m.get_env();
    let mut vars = env.get_matched_variables().peekable();
    vars.peek()?;
    let mut out = MetaVariables {
        single: Default::default(),
        multi: Default::default(),
        transformed: Default::default(),
    };
    for var in vars {
        match var {
            MetaVariable::Capture(name, _) => {
                if let Some(node) = env.get_match(&name) {
                    out.single.insert(name, matched_node(node));
                } else if let Some(bytes) = env.get_transformed(&name) {
                    out.transformed
                        .insert(name, String::from_utf8_lossy(bytes).into_owned());
                }
            }
            MetaVariable::MultiCapture(name) => {
                let nodes = env.get_multiple_matches(&name);
                out.multi
                    .insert(name, nodes.iter().map(matched_node).collect());
            }
            _ => {}
        }
    }
    Some(out)
}
