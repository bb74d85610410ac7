//! The search as a tree: BOS at the root, one node per token, the hypotheses the search kept drawn
//! strong and the candidates it pruned faint (on request), finished hypotheses marked with their rank,
//! the winner's path and greedy's path highlighted. Hover, tap or focus a node for its numbers; the
//! same tree is offered to screen readers as a nested list, and exported as SVG and JSON.

use leptos::prelude::*;
use wgslate_decode::trace::{Fate, Trace};

use crate::browser;

/// Columns and rows of the drawing, in CSS pixels.
const COLUMN: f64 = 96.0;
const ROW: f64 = 22.0;
const MARGIN: f64 = 12.0;
/// Room right of the last column for its labels: 12 characters and a rank (" #16") at 12 px.
const LABEL_ROOM: f64 = 120.0;
/// The most nodes drawn: a beam-16 search of 200 tokens records ~100 000 candidates.
pub const MAX_DRAWN: usize = 4000;

/// Which nodes the drawing shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    /// The candidates the search pruned (below the beam, EOS too early, repeated n-grams, cut).
    pub pruned: bool,
    /// Hypotheses whose line died out before finishing.
    pub dead_ends: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// (node, x, y) of every node drawn, the root first.
    pub placed: Vec<(usize, f64, f64)>,
    pub width: f64,
    pub height: f64,
    /// Nodes left out by `MAX_DRAWN`.
    pub left_out: usize,
}

/// Children of each node, the most likely first.
pub fn children(trace: &Trace) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]; trace.nodes.len()];
    for (i, n) in trace.nodes.iter().enumerate().skip(1) {
        out[n.parent as usize].push(i);
    }
    for c in &mut out {
        c.sort_by(|&a, &b| {
            let (x, y) = (&trace.nodes[a], &trace.nodes[b]);
            y.token_log_prob.total_cmp(&x.token_log_prob).then(x.token.cmp(&y.token))
        });
    }
    out
}

/// Greedy's path through the trace: from the root, each node's most likely candidate (an EOS before
/// the minimum length left out, as greedy leaves it), for as long as the trace recorded it.
pub fn greedy_path(trace: &Trace, kids: &[Vec<usize>]) -> Vec<usize> {
    let mut path = vec![];
    let mut at = 0;
    while let Some(&next) = kids[at].iter().find(|&&c| trace.nodes[c].fate != Fate::EosTooEarly) {
        path.push(next);
        at = next;
    }
    path
}

fn lives_on(n: Fate) -> bool {
    matches!(n, Fate::Kept | Fate::Finished(_) | Fate::CannotWin)
}

/// Places the nodes `shown` asks for (and greedy's path), leaves one row each, a parent at the middle of its children.
pub fn layout(trace: &Trace, shown: Shown, greedy: &[usize]) -> Layout {
    let kids = children(trace);
    // Whether a kept node leads to a finished hypothesis.
    let mut finishes = vec![false; trace.nodes.len()];
    for i in (0..trace.nodes.len()).rev() {
        if matches!(trace.nodes[i].fate, Fate::Finished(_)) || kids[i].iter().any(|&c| finishes[c]) {
            finishes[i] = true;
        }
    }
    let on_greedy: std::collections::HashSet<usize> = greedy.iter().copied().collect();
    let drawn = |i: usize| {
        let f = trace.nodes[i].fate;
        on_greedy.contains(&i)
            || (lives_on(f) && (shown.dead_ends || finishes[i]))
            || (shown.pruned && !lives_on(f) && shown.dead_ends)
            || (shown.pruned && !lives_on(f) && finishes[trace.nodes[i].parent as usize])
    };
    let mut placed = vec![];
    let mut y_of = vec![f64::NAN; trace.nodes.len()];
    let (mut next_row, mut left_out) = (0usize, 0usize);
    // Depth first, children before their parent is placed (an explicit stack: 200 levels deep).
    let mut stack = vec![(0usize, false)];
    while let Some((i, expanded)) = stack.pop() {
        let shown_kids: Vec<usize> = kids[i].iter().copied().filter(|&c| drawn(c)).collect();
        if !expanded {
            if placed.len() + stack.len() >= MAX_DRAWN && i != 0 {
                left_out += 1;
                continue;
            }
            stack.push((i, true));
            stack.extend(shown_kids.iter().rev().map(|&c| (c, false)));
            continue;
        }
        let ys: Vec<f64> = shown_kids.iter().map(|&c| y_of[c]).filter(|y| y.is_finite()).collect();
        let y = match (ys.first(), ys.last()) {
            (Some(a), Some(b)) => (a + b) / 2.0,
            _ => {
                next_row += 1;
                MARGIN + (next_row - 1) as f64 * ROW + ROW / 2.0
            }
        };
        y_of[i] = y;
        let x = MARGIN + if i == 0 { 0.0 } else { (trace.nodes[i].step as f64 + 1.0) * COLUMN };
        placed.push((i, x, y));
    }
    placed.reverse();
    // The root first, then parents before children (the order of the depth-first walk reversed).
    if let Some(pos) = placed.iter().position(|p| p.0 == 0) {
        let root = placed.remove(pos);
        placed.insert(0, root);
    }
    let steps = placed.iter().map(|p| trace.nodes[p.0].step as f64 + 1.0).fold(0.0, f64::max);
    Layout {
        width: 2.0 * MARGIN + steps * COLUMN + LABEL_ROOM,
        height: 2.0 * MARGIN + next_row.max(1) as f64 * ROW,
        placed,
        left_out,
    }
}

/// What a node says when hovered, tapped or focused (and to a screen reader).
pub fn describe(trace: &Trace, words: &dyn Fn(u32) -> String, i: usize, ranks: &[usize], scores: &[f32]) -> String {
    if i == 0 {
        return "BOS: where every hypothesis starts".into();
    }
    let n = &trace.nodes[i];
    let mut text = format!(
        "{:?} at position {}: p = {:.3} (log-prob {:.3}), cumulative log-prob {:.3}; {}",
        words(n.token).trim(),
        n.step + 1,
        (n.token_log_prob as f64).exp(),
        n.token_log_prob,
        n.log_prob,
        n.fate.name()
    );
    if let Fate::Finished(f) = n.fate {
        let rank = ranks.iter().position(|&r| r == f).map_or(0, |p| p + 1);
        let score = scores.get(f).copied().unwrap_or(f32::NAN);
        text.push_str(&format!(", rank {rank}, score {score:.3}"));
    }
    text
}

/// The tree as SVG markup (the drawing and the export are the same text).
pub fn svg(
    trace: &Trace,
    l: &Layout,
    words: &dyn Fn(u32) -> String,
    winner: &[usize],
    greedy: &[usize],
    ranks: &[usize],
) -> String {
    let at: std::collections::HashMap<usize, (f64, f64)> = l.placed.iter().map(|&(i, x, y)| (i, (x, y))).collect();
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="search-tree" width="{:.0}" height="{:.0}" viewBox="0 0 {:.0} {:.0}" font-family="system-ui, sans-serif" font-size="12">"#,
        l.width, l.height, l.width, l.height
    );
    for &(i, x, y) in l.placed.iter().skip(1) {
        let Some(&(px, py)) = at.get(&(trace.nodes[i].parent as usize)) else { continue };
        let class = edge_class(trace.nodes[i].fate, winner.contains(&i), greedy.contains(&i));
        out += &format!(
            r#"<path class="{class}" d="M{px:.1},{py:.1} C{:.1},{py:.1} {:.1},{y:.1} {x:.1},{y:.1}"/>"#,
            px + 40.0,
            x - 40.0
        );
    }
    for &(i, x, y) in &l.placed {
        let n = &trace.nodes[i];
        let label = if i == 0 { "<s>".to_string() } else { words(n.token).trim().to_string() };
        let label = if label.is_empty() { "␣".to_string() } else { label };
        let short: String =
            if label.chars().count() > 12 { label.chars().take(11).collect::<String>() + "…" } else { label };
        let rank = match n.fate {
            Fate::Finished(f) => ranks.iter().position(|&r| r == f).map(|p| format!(" #{}", p + 1)).unwrap_or_default(),
            _ => String::new(),
        };
        let class = node_class(n.fate, winner.contains(&i), greedy.contains(&i));
        out += &format!(
            r#"<g class="{class}" data-node="{i}" transform="translate({x:.1},{y:.1})"><circle r="4"/><text x="7" y="4">{}{}</text></g>"#,
            escape(&short),
            escape(&rank)
        );
    }
    out + "</svg>"
}

fn edge_class(f: Fate, winner: bool, greedy: bool) -> String {
    let mut c = vec!["edge", if lives_on(f) { "kept" } else { "pruned" }];
    if winner {
        c.push("winner");
    }
    if greedy {
        c.push("greedy");
    }
    c.join(" ")
}

fn node_class(f: Fate, winner: bool, greedy: bool) -> String {
    let kind = match f {
        Fate::Finished(_) => "finished",
        f if lives_on(f) => "kept",
        _ => "pruned",
    };
    let mut c = vec!["node", kind];
    if winner {
        c.push("winner");
    }
    if greedy {
        c.push("greedy");
    }
    c.join(" ")
}

/// The drawn tree as nested lists, for screen readers (and anyone who prefers text).
fn nested_list(trace: &Trace, l: &Layout, words: &dyn Fn(u32) -> String, ranks: &[usize], scores: &[f32]) -> String {
    let drawn: std::collections::HashSet<usize> = l.placed.iter().map(|p| p.0).collect();
    let kids = children(trace);
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let mut out = String::new();
    let mut stack = vec![(0usize, false)];
    while let Some((i, closing)) = stack.pop() {
        if closing {
            out += "</ul></li>";
            continue;
        }
        let shown: Vec<usize> = kids[i].iter().copied().filter(|c| drawn.contains(c)).collect();
        out += &format!("<li>{}", escape(&describe(trace, words, i, ranks, scores)));
        if shown.is_empty() {
            out += "</li>";
        } else {
            out += "<ul>";
            stack.push((i, true));
            stack.extend(shown.iter().rev().map(|&c| (c, false)));
        }
    }
    format!("<ul>{out}</ul>")
}

#[component]
pub fn SearchTree(
    trace: Trace,
    words: std::collections::HashMap<u32, String>,
    /// The finished hypotheses' order under the penalties chosen now, and their scores.
    ranking: Signal<(Vec<usize>, Vec<f32>)>,
) -> impl IntoView {
    let trace = StoredValue::new(trace);
    let words = StoredValue::new(words);
    let word = move |t: u32| words.with_value(|w| w.get(&t).cloned().unwrap_or_else(|| format!("<{t}>")));
    let show_pruned = RwSignal::new(false);
    let show_dead = RwSignal::new(true);
    let selected = RwSignal::new(None::<usize>);
    let greedy = Memo::new(move |_| trace.with_value(|t| greedy_path(t, &children(t))));
    let layout = Memo::new(move |_| {
        let shown = Shown { pruned: show_pruned.get(), dead_ends: show_dead.get() };
        trace.with_value(|t| layout(t, shown, &greedy.get()))
    });
    let winner = Memo::new(move |_| {
        ranking.with(|(r, _)| trace.with_value(|t| r.first().map(|&f| t.path(t.finished[f].node)).unwrap_or_default()))
    });
    let markup = Memo::new(move |_| {
        let (ranks, _) = ranking.get();
        trace.with_value(|t| layout.with(|l| svg(t, l, &word, &winner.get(), &greedy.get(), &ranks)))
    });
    let list = Memo::new(move |_| {
        let (ranks, scores) = ranking.get();
        trace.with_value(|t| layout.with(|l| nested_list(t, l, &word, &ranks, &scores)))
    });
    let greedy_note = move || {
        trace.with_value(|t| {
            let g = greedy.get();
            let last = g.last().map(|&i| t.nodes[i].fate);
            match last {
                Some(Fate::Finished(_)) => {
                    "Greedy's path (dashed) ends in a finished hypothesis of the beam.".to_string()
                }
                Some(Fate::CannotWin) => format!(
                    "Greedy's path (dashed) was still in the beam after {} tokens when the search stopped: it could no longer beat the finished hypotheses.",
                    g.len()
                ),
                Some(_) => format!(
                    "Greedy's path (dashed) leaves the beam after {} tokens: the search pruned it there.",
                    g.len().saturating_sub(1)
                ),
                None => String::new(),
            }
        })
    };
    let pick = move |ev: &web_sys::Event| {
        let node = browser::closest_data(ev, "data-node").and_then(|v| v.parse::<usize>().ok());
        if node.is_some() {
            selected.set(node);
        }
    };
    let move_selection = move |ev: web_sys::KeyboardEvent| {
        let Some(at) = selected.get_untracked() else { return };
        let next = trace.with_value(|t| {
            let kids = children(t);
            let placed: std::collections::HashSet<usize> =
                layout.with_untracked(|l| l.placed.iter().map(|p| p.0).collect());
            let parent = t.nodes[at].parent as usize;
            let siblings: Vec<usize> = kids[parent].iter().copied().filter(|c| placed.contains(c)).collect();
            let pos = siblings.iter().position(|&s| s == at).unwrap_or(0);
            match ev.key().as_str() {
                "ArrowRight" => kids[at].iter().copied().find(|c| placed.contains(c)),
                "ArrowLeft" => (at != 0).then_some(parent),
                "ArrowDown" => siblings.get(pos + 1).copied(),
                "ArrowUp" => pos.checked_sub(1).and_then(|p| siblings.get(p).copied()),
                _ => None,
            }
        });
        if let Some(n) = next {
            ev.prevent_default();
            selected.set(Some(n));
        }
    };
    let readout = move || {
        let (ranks, scores) = ranking.get();
        selected.get().map(|i| trace.with_value(|t| describe(t, &word, i, &ranks, &scores)))
    };
    view! {
        <div class="search-tree-panel" data-testid="search-tree-panel">
            <div class="options">
                <label><input type="checkbox" data-testid="search-tree-pruned" prop:checked=move || show_pruned.get()
                    on:change=move |ev| show_pruned.set(event_target_checked(&ev)) />" Show pruned candidates"</label>
                <label><input type="checkbox" data-testid="search-tree-dead" prop:checked=move || show_dead.get()
                    on:change=move |ev| show_dead.set(event_target_checked(&ev)) />" Show hypotheses that died out"</label>
                <button data-testid="search-export-svg" on:click=move |_| browser::download_text("search-tree.svg", &markup.get_untracked(), "image/svg+xml")>"Export SVG"</button>
                <button data-testid="search-export-json" on:click=move |_| {
                    let json = trace.with_value(|t| serde_json::to_string_pretty(t).unwrap_or_default());
                    browser::download_text("search-trace.json", &json, "application/json");
                }>"Export JSON"</button>
            </div>
            <p class="hint">"Kept hypotheses are drawn strong, pruned candidates faint; the winner's path is thick, greedy's dashed; #n marks a finished hypothesis' rank. Focus the tree and use the arrow keys, or hover or tap a node."</p>
            <p class="hint" data-testid="search-greedy-note">{greedy_note}</p>
            {move || layout.with(|l| (l.left_out > 0).then(|| view! {
                <p class="hint" data-testid="search-tree-cut">{format!("{} more nodes (and what grew from them) are not drawn (at most {MAX_DRAWN}): untick an option to see fewer.", l.left_out)}</p>
            }))}
            <p class="hint readout" aria-live="polite" data-testid="search-node">{move || readout().unwrap_or_else(|| "\u{a0}".into())}</p>
            <div class="tree-scroll" tabindex="0" role="group" aria-label="The search tree: focus it, then the arrow keys move between nodes"
                data-testid="search-tree"
                on:mouseover=move |ev| pick(&ev)
                on:click=move |ev| pick(&ev)
                on:focus=move |_| if selected.get_untracked().is_none() { selected.set(Some(0)) }
                on:keydown=move_selection
                inner_html=move || {
                    let m = markup.get();
                    match selected.get() {
                        Some(i) => m.replacen(&format!("data-node=\"{i}\" "), &format!("data-node=\"{i}\" data-selected=\"true\" "), 1),
                        None => m,
                    }
                }>
            </div>
            <details class="tree-list">
                <summary>"The tree as a list"</summary>
                <div data-testid="search-tree-list" inner_html=move || list.get()></div>
            </details>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgslate_decode::trace::Node;
    use wgslate_decode::Scoring;

    fn node(parent: u32, step: u32, token: u32, lp: f32, fate: Fate) -> Node {
        Node { parent, step, token, token_log_prob: lp, log_prob: lp, fate }
    }

    /// root → a (kept) → c (finished), d (pruned); root → b (kept, dies out), e (pruned).
    fn small() -> Trace {
        let mut t = Trace::new(3, Scoring::default());
        t.nodes.extend([
            node(0, 0, 10, -0.1, Fate::Kept),
            node(0, 0, 11, -1.0, Fate::Kept),
            node(1, 1, 2, -0.2, Fate::Finished(0)),
            node(1, 1, 12, -3.0, Fate::BelowBeam),
            node(0, 0, 13, -4.0, Fate::BelowBeam),
        ]);
        t
    }

    #[test]
    fn kept_paths_are_drawn_and_pruned_candidates_only_when_asked() {
        let t = small();
        let greedy = greedy_path(&t, &children(&t));
        assert_eq!(greedy, [1, 3]);
        let ids = |l: &Layout| l.placed.iter().map(|p| p.0).collect::<std::collections::BTreeSet<_>>();
        let all = layout(&t, Shown { pruned: true, dead_ends: true }, &greedy);
        assert_eq!(ids(&all), (0..6).collect());
        let kept = layout(&t, Shown { pruned: false, dead_ends: true }, &greedy);
        assert_eq!(ids(&kept), [0, 1, 2, 3].into());
        let finishing = layout(&t, Shown { pruned: false, dead_ends: false }, &greedy);
        assert_eq!(ids(&finishing), [0, 1, 3].into());
        // A parent sits between its children; leaves get rows of their own.
        let y = |l: &Layout, i: usize| l.placed.iter().find(|p| p.0 == i).unwrap().2;
        assert_eq!(y(&all, 1), (y(&all, 3) + y(&all, 4)) / 2.0);
        assert_eq!(all.placed[0].0, 0, "the root first");
    }

    #[test]
    fn the_last_columns_labels_fit_the_drawing() {
        let t = small();
        let l = layout(&t, Shown { pruned: true, dead_ends: true }, &[1, 3]);
        let last = l.placed.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(last + LABEL_ROOM <= l.width, "last column at {last}, width {}", l.width);
    }

    #[test]
    fn the_drawing_and_the_list_name_every_node_drawn() {
        let t = small();
        let l = layout(&t, Shown { pruned: true, dead_ends: true }, &[1, 3]);
        let words = |t: u32| format!(" w{t}");
        let svg = svg(&t, &l, &words, &[1, 3], &[1, 3], &[0]);
        assert_eq!(svg.matches("<g class=").count(), 6);
        assert!(svg.contains("w2 #1"), "the finished hypothesis shows its rank");
        let list = nested_list(&t, &l, &words, &[0], &[-0.3]);
        assert_eq!(list.matches("<li>").count(), 6);
        assert!(list.contains("rank 1, score -0.300"));
    }
}
