//! The portal's pages, rendered on the server (no script): the list of mods with a search box,
//! and a mod's page with its versions, dependencies, armies and the command that installs it.

use crate::store::{ModDetail, ModSummary};

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
    page(&m.name, &body)
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
