//! The portal's pages, rendered on the server (no script): the list of mods with a search box,
//! and a mod's page with its versions, dependencies, armies and the command that installs it.

use crate::store::{ArmyCard, ModDetail, ModSummary, TileCard};

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} - Hexforge mods</title>\
         <style>body{{font-family:sans-serif;max-width:52em;margin:2em auto;padding:0 1em}}\
         td,th{{padding:.2em .6em;text-align:left}}code{{background:#eee;padding:.1em .3em}}</style>\
         </head><body><p><a href=\"/\">Hexforge mods</a></p>\n{body}\n</body></html>\n",
        escape(title)
    )
}

/// The list of mods, with the search box holding `query`.
pub fn list(query: &str, found: &[ModSummary]) -> String {
    let mut body = format!(
        "<h1>Mods</h1>\n<form method=\"get\" action=\"/\"><input name=\"q\" value=\"{}\" \
         aria-label=\"search\" placeholder=\"search\"> <button type=\"submit\">Search</button></form>\n",
        escape(query)
    );
    if found.is_empty() {
        body.push_str("<p id=\"none\">No mod matches.</p>\n");
    } else {
        body.push_str(
            "<table id=\"mods\"><tr><th>mod</th><th>latest</th><th>author</th><th>downloads</th><th>description</th></tr>\n",
        );
        for m in found {
            body.push_str(&format!(
                "<tr><td><a href=\"/mods/{id}\">{name}</a></td><td>{latest}</td><td>{author}</td>\
                 <td>{downloads}</td><td>{description}</td></tr>\n",
                id = crate::http::encode(&m.id),
                name = escape(&m.name),
                latest = escape(&m.latest),
                author = escape(&m.author),
                downloads = m.downloads,
                description = escape(&m.description),
            ));
        }
        body.push_str("</table>\n");
    }
    page("Mods", &body)
}

/// A mod's page.
pub fn detail(d: &ModDetail) -> String {
    let m = &d.summary;
    let mut body = format!(
        "<h1>{name}</h1>\n<p>{description}</p>\n<p>By {author}; {downloads} downloads.</p>\n\
         <p>Install: <code id=\"install\">hexforge mods install {id} --portal PORTAL</code></p>\n\
         <h2>Versions</h2>\n<table id=\"versions\"><tr><th>version</th><th>needs</th><th>armies</th>\
         <th>content hash</th><th>downloads</th></tr>\n",
        name = escape(&m.name),
        description = escape(&m.description),
        author = escape(&m.author),
        downloads = m.downloads,
        id = escape(&m.id),
    );
    for v in &d.versions {
        let needs: Vec<String> = v
            .dependencies
            .iter()
            .map(|dep| {
                format!(
                    "<a href=\"/mods/{}\">{}</a> {}",
                    crate::http::encode(&dep.id),
                    escape(&dep.id),
                    escape(&dep.req)
                )
            })
            .collect();
        body.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
            escape(&v.version),
            if needs.is_empty() {
                "-".to_string()
            } else {
                needs.join(", ")
            },
            escape(&v.armies.join(", ")),
            escape(&v.hash),
            v.downloads
        ));
    }
    body.push_str("</table>\n");
    if let Some(newest) = d.versions.first()
        && !newest.cards.is_empty()
    {
        body.push_str(&format!(
            "<h2>Armies of {}</h2>\n<p>Each tile with its front edge up: M melee, R ranged (with strength), A armor, N net, L module link; initiative above the name; kind, copies and toughness below.</p>\n",
            escape(&newest.version)
        ));
        for a in &newest.cards {
            body.push_str(&army_section(a));
        }
    }
    page(&m.name, &body)
}

/// A tile drawn as a hexagon (its front edge up, edges clockwise, as army files number them):
/// each edge's icons written against it (`M2` melee of strength 2, `R1` ranged, `A` armor, `N`
/// net, `L` module link), its name, kind and count in the middle, its initiative above them.
pub fn tile_svg(t: &TileCard) -> String {
    let (cx, cy, r) = (60.0f64, 60.0f64, 54.0f64);
    let corner = |k: f64| {
        let a = (60.0 * k).to_radians();
        (cx + r * a.cos(), cy + r * a.sin())
    };
    let points: Vec<String> = (0..6)
        .map(|k| {
            let (x, y) = corner(f64::from(k));
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let fill = match t.kind.as_str() {
        "hq" => "#f3e2b3",
        "module" => "#dcebdc",
        "instant" => "#e6e0f0",
        _ => "#e3e8ef",
    };
    let mut svg = format!(
        "<svg class=\"tile\" role=\"img\" aria-label=\"{label}\" width=\"120\" height=\"120\" viewBox=\"0 0 120 120\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>{label}</title><polygon points=\"{points}\" fill=\"{fill}\" stroke=\"#333\" stroke-width=\"2\"/>",
        label = escape(&format!("{} ({}, {})", t.name, t.kind, t.id)),
        points = points.join(" "),
    );
    for (i, &(melee, ranged, armor, net, link)) in t.edges.iter().enumerate().take(6) {
        let mut marks: Vec<(String, &str)> = Vec::new();
        if melee > 0 {
            marks.push((format!("M{melee}"), "#b3261e"));
        }
        if ranged > 0 {
            marks.push((format!("R{ranged}"), "#1f4fb3"));
        }
        if armor {
            marks.push(("A".into(), "#555"));
        }
        if net {
            marks.push(("N".into(), "#1e7b34"));
        }
        if link {
            marks.push(("L".into(), "#b36b00"));
        }
        if marks.is_empty() {
            continue;
        }
        // The middle of edge i, a little inside: edge 0 faces up, the others clockwise.
        let a = (-90.0 + 60.0 * i as f64).to_radians();
        let d = r * 0.866 - 10.0;
        let (x, y) = (cx + d * a.cos(), cy + d * a.sin() + 4.0);
        let text: Vec<String> = marks
            .iter()
            .map(|(m, colour)| format!("<tspan fill=\"{colour}\">{m}</tspan>"))
            .collect();
        svg.push_str(&format!(
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>",
            text.join(" ")
        ));
    }
    let initiative = t
        .initiative
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",");
    if !initiative.is_empty() {
        svg.push_str(&format!(
            "<text x=\"60\" y=\"46\" font-size=\"12\" text-anchor=\"middle\">{initiative}</text>"
        ));
    }
    let mut name = t.name.clone();
    if name.chars().count() > 14 {
        name = name.chars().take(13).collect::<String>() + "…";
    }
    svg.push_str(&format!(
        "<text x=\"60\" y=\"64\" font-size=\"11\" text-anchor=\"middle\">{}</text>\
         <text x=\"60\" y=\"78\" font-size=\"9\" text-anchor=\"middle\" fill=\"#555\">{} ×{}{}{}</text></svg>",
        escape(&name),
        escape(&t.kind),
        t.count,
        if t.toughness > 0 {
            format!(" +{}", t.toughness)
        } else {
            String::new()
        },
        if t.mobile { " mobile" } else { "" },
    ));
    svg
}

/// An army's tiles as pictures, in file order.
fn army_section(a: &ArmyCard) -> String {
    let tiles: Vec<String> = a.tiles.iter().map(tile_svg).collect();
    format!(
        "<h3>{} <small>({})</small></h3>\n<div class=\"army\" id=\"army-{}\">{}</div>\n",
        escape(&a.name),
        escape(&a.id),
        escape(&a.id),
        tiles.join("")
    )
}

/// A page that says what went wrong.
pub fn problem(message: &str) -> String {
    page(
        "Problem",
        &format!("<p id=\"problem\">{}</p>", escape(message)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_is_drawn_with_its_edges_initiative_and_name() {
        let mut edges = vec![(0, 0, false, false, false); 6];
        edges[0] = (2, 0, true, false, false);
        edges[3] = (0, 1, false, true, false);
        let t = TileCard {
            id: "crawler".into(),
            name: "Scrap <Crawler>".into(),
            kind: "soldier".into(),
            count: 2,
            initiative: vec![3, 2],
            toughness: 1,
            mobile: true,
            edges,
        };
        let svg = tile_svg(&t);
        assert!(svg.starts_with("<svg class=\"tile\""), "{svg}");
        assert!(svg.contains("aria-label=\"Scrap &lt;Crawler&gt; (soldier, crawler)\""));
        // Edge 0 faces up (above the middle), edge 3 down.
        assert!(svg.contains("<text x=\"60.0\" y=\"27.2\""), "{svg}");
        assert!(svg.contains("<text x=\"60.0\" y=\"100.8\""), "{svg}");
        assert!(
            svg.contains(">M2</tspan> <tspan fill=\"#555\">A</tspan>"),
            "{svg}"
        );
        assert!(
            svg.contains(">R1</tspan> <tspan fill=\"#1e7b34\">N</tspan>"),
            "{svg}"
        );
        assert!(svg.contains(">3,2</text>"));
        assert!(svg.contains("soldier ×2 +1 mobile"));
        assert!(!svg.contains("<Crawler>"));
    }

    #[test]
    fn what_a_modder_wrote_is_escaped() {
        let m = ModSummary {
            id: "x".into(),
            name: "<script>alert(1)</script>".into(),
            description: "a & b \"c\"".into(),
            author: "me".into(),
            latest: "1.0.0".into(),
            downloads: 3,
        };
        let html = list("<q>", std::slice::from_ref(&m));
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("a &amp; b &quot;c&quot;"));
        assert!(html.contains("value=\"&lt;q&gt;\""));
    }
}
