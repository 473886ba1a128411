//! Markdown from the data (a needle's description: "1. **Purpose**: …")
//! as formatted text. pulldown-cmark parses it; the elements are built
//! here from its events, so nothing of the data is ever parsed as HTML:
//! raw HTML in the text shows as text, a link shows as its text (the
//! address in its tooltip), an image as its alternative text.

use leptos::prelude::*;
use pulldown_cmark::{Event, Parser, Tag};

/// What a piece of the text becomes.
enum Node {
    Text(String),
    Code(String),
    Break,
    Rule,
    El(Kind, Vec<Node>),
}

#[derive(Clone)]
enum Kind {
    Paragraph,
    Heading,
    Quote,
    CodeBlock,
    List(Option<u64>),
    Item,
    Strong,
    Emphasis,
    Strike,
    Link(String),
    Plain,
}

fn kind_of(tag: &Tag<'_>) -> Kind {
    match tag {
        Tag::Paragraph => Kind::Paragraph,
        Tag::Heading { .. } => Kind::Heading,
        Tag::BlockQuote(_) => Kind::Quote,
        Tag::CodeBlock(_) => Kind::CodeBlock,
        Tag::List(start) => Kind::List(*start),
        Tag::Item => Kind::Item,
        Tag::Strong => Kind::Strong,
        Tag::Emphasis => Kind::Emphasis,
        Tag::Strikethrough => Kind::Strike,
        Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
            Kind::Link(dest_url.to_string())
        }
        _ => Kind::Plain,
    }
}

/// The text's tree of nodes (an unbalanced end closes what is open).
fn parse(text: &str) -> Vec<Node> {
    let mut stack: Vec<(Kind, Vec<Node>)> = vec![(Kind::Plain, Vec::new())];
    for event in Parser::new(text) {
        let node = match event {
            Event::Start(tag) => {
                stack.push((kind_of(&tag), Vec::new()));
                continue;
            }
            Event::End(_) => {
                if stack.len() < 2 {
                    continue;
                }
                let (kind, children) = stack.pop().unwrap_or((Kind::Plain, Vec::new()));
                Node::El(kind, children)
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => Node::Text(t.to_string()),
            Event::Code(t) => Node::Code(t.to_string()),
            Event::SoftBreak => Node::Text(" ".into()),
            Event::HardBreak => Node::Break,
            Event::Rule => Node::Rule,
            Event::FootnoteReference(t) => Node::Text(format!("[{t}]")),
            Event::TaskListMarker(done) => Node::Text(if done { "[x] " } else { "[ ] " }.into()),
            Event::InlineMath(t) | Event::DisplayMath(t) => Node::Code(t.to_string()),
        };
        if let Some((_, children)) = stack.last_mut() {
            children.push(node);
        }
    }
    while stack.len() > 1 {
        if let Some((kind, children)) = stack.pop() {
            if let Some((_, parent)) = stack.last_mut() {
                parent.push(Node::El(kind, children));
            }
        }
    }
    stack.pop().map(|(_, c)| c).unwrap_or_default()
}

fn view_of(nodes: Vec<Node>) -> AnyView {
    nodes
        .into_iter()
        .map(|n| match n {
            Node::Text(t) => t.into_any(),
            Node::Code(t) => view! { <code>{t}</code> }.into_any(),
            Node::Break => view! { <br/> }.into_any(),
            Node::Rule => view! { <hr/> }.into_any(),
            Node::El(kind, children) => {
                let inner = view_of(children);
                match kind {
                    Kind::Paragraph => view! { <p>{inner}</p> }.into_any(),
                    Kind::Heading => view! { <p><strong>{inner}</strong></p> }.into_any(),
                    Kind::Quote => view! { <blockquote>{inner}</blockquote> }.into_any(),
                    Kind::CodeBlock => view! { <pre class="code">{inner}</pre> }.into_any(),
                    Kind::List(Some(start)) => view! { <ol start=start>{inner}</ol> }.into_any(),
                    Kind::List(None) => view! { <ul>{inner}</ul> }.into_any(),
                    Kind::Item => view! { <li>{inner}</li> }.into_any(),
                    Kind::Strong => view! { <strong>{inner}</strong> }.into_any(),
                    Kind::Emphasis => view! { <em>{inner}</em> }.into_any(),
                    Kind::Strike => view! { <s>{inner}</s> }.into_any(),
                    Kind::Link(url) => {
                        view! { <span class="md-link" title=url>{inner}</span> }.into_any()
                    }
                    Kind::Plain => inner,
                }
            }
        })
        .collect_view()
        .into_any()
}

/// `text` (Markdown) as formatted text, in a `div.markdown`.
#[component]
pub fn Markdown(text: String, #[prop(optional)] id: Option<&'static str>) -> impl IntoView {
    view! { <div class="markdown" id=id>{view_of(parse(&text))}</div> }
}
