//! The `/api/docs` page: a self-contained HTML reference rendered from the OpenAPI
//! document, with inline CSS and no external assets (the appliance runs offline).

use std::fmt::Write;

use serde_json::Value;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The tiny markdown subset the descriptions use: paragraphs, `code`, **bold** and
/// fenced code blocks (without blank lines inside).
fn markdown(s: &str) -> String {
    let mut out = String::new();
    for para in s.split("\n\n") {
        if let Some(block) = para
            .strip_prefix("```\n")
            .and_then(|b| b.strip_suffix("```").or(Some(b)))
        {
            let _ = write!(out, "<pre><code>{}</code></pre>", esc(block.trim_end()));
            continue;
        }
        let mut html = String::new();
        let mut code = false;
        let mut bold = false;
        let escaped = esc(para);
        let mut rest = escaped.as_str();
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('`') {
                html.push_str(if code { "</code>" } else { "<code>" });
                code = !code;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("**").filter(|_| !code) {
                html.push_str(if bold { "</strong>" } else { "<strong>" });
                bold = !bold;
                rest = r;
            } else {
                let c = rest.chars().next().expect("non-empty");
                html.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        let _ = write!(out, "<p>{html}</p>");
    }
    out
}

fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let path = r.trim_start_matches("#/").split('/');
            path.fold(doc, |node, key| &node[key])
        }
        None => v,
    }
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.rsplit('/').next()
}

fn type_label(v: &Value) -> String {
    if let Some(name) = ref_name(v) {
        return format!("<a href=\"#schema-{0}\">{0}</a>", esc(name));
    }
    if let Some(items) = v.get("items") {
        return format!("array of {}", type_label(items));
    }
    if let Some(e) = v.get("enum").and_then(Value::as_array) {
        let vals: Vec<String> = e.iter().map(|x| esc(&x.to_string())).collect();
        return format!("one of {}", vals.join(", "));
    }
    if let Some(c) = v.get("const") {
        return esc(&c.to_string());
    }
    if let Some(alts) = v.get("oneOf").and_then(Value::as_array) {
        let parts: Vec<String> = alts.iter().map(type_label).collect();
        return parts.join(" or ");
    }
    match v.get("type") {
        Some(Value::String(t)) => esc(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".into(),
    }
}

fn schema_table(schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return format!("<p>{}</p>", type_label(schema));
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out =
        String::from("<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>");
    for (name, p) in props {
        let _ = write!(
            out,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            type_label(p),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                ""
            },
            esc(p.get("description").and_then(Value::as_str).unwrap_or(""))
        );
    }
    out.push_str("</table>");
    out
}

const CSS: &str = "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}table{border-collapse:collapse;margin:.5em 0 1em}\
td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}th{background:#fafafa}\
.op{border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:1em 0}.m{display:inline-block;min-width:4.5em;font-weight:bold;\
text-align:center;border-radius:4px;color:#fff;margin-right:.5em}.GET{background:#2f7d32}.POST{background:#1565c0}\
.PATCH{background:#ef6c00}.DELETE{background:#c62828}.PUT{background:#6a1b9a}nav a{margin-right:1em}pre{background:#f6f6f6;padding:1em;overflow:auto}";

/// Renders the whole page.
pub fn render(doc: &Value) -> String {
    let title = doc["info"]["title"].as_str().unwrap_or("API");
    let mut out = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{CSS}</style></head><body><h1>{t}</h1><p>Version {v} · <a href=\"openapi.json\">openapi.json</a> · <a href=\"/console/reference\">try it in the console</a></p>{intro}",
        t = esc(title),
        v = esc(doc["info"]["version"].as_str().unwrap_or("")),
        intro = markdown(doc["info"]["description"].as_str().unwrap_or("")),
    );
    let mut ops: Vec<(String, String, String, &Value)> = Vec::new();
    if let Some(paths) = doc["paths"].as_object() {
        for (path, item) in paths {
            for (method, op) in item.as_object().into_iter().flatten() {
                let tag = op["tags"][0].as_str().unwrap_or("Other").to_string();
                ops.push((tag, path.clone(), method.to_ascii_uppercase(), op));
            }
        }
    }
    let mut tags: Vec<String> = ops.iter().map(|o| o.0.clone()).collect();
    tags.dedup();
    tags.sort();
    tags.dedup();
    out.push_str("<nav>");
    for t in &tags {
        let _ = write!(out, "<a href=\"#tag-{0}\">{0}</a>", esc(t));
    }
    out.push_str("<a href=\"#schemas\">Schemas</a></nav>");
    for tag in &tags {
        let _ = write!(out, "<h2 id=\"tag-{0}\">{0}</h2>", esc(tag));
        for (_, path, method, op) in ops.iter().filter(|o| &o.0 == tag) {
            render_op(&mut out, doc, path, method, op);
        }
    }
    out.push_str("<h2 id=\"schemas\">Schemas</h2>");
    if let Some(schemas) = doc["components"]["schemas"].as_object() {
        for (name, s) in schemas {
            let _ = write!(out, "<h3 id=\"schema-{0}\">{0}</h3>", esc(name));
            if let Some(d) = s.get("description").and_then(Value::as_str) {
                let _ = write!(out, "<p>{}</p>", esc(d));
            }
            out.push_str(&schema_table(s));
            if let Some(ex) = s.get("examples").and_then(|e| e.get(0)) {
                let _ = write!(
                    out,
                    "<pre>{}</pre>",
                    esc(&serde_json::to_string_pretty(ex).unwrap_or_default())
                );
            }
        }
    }
    out.push_str("</body></html>");
    out
}

fn render_op(out: &mut String, doc: &Value, path: &str, method: &str, op: &Value) {
    let _ = write!(
        out,
        "<div class=\"op\"><h3><span class=\"m {method}\">{method}</span><code>{}</code></h3><p>{}</p>",
        esc(path),
        esc(op["summary"].as_str().unwrap_or(""))
    );
    let schemes: Vec<&str> = op["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_object())
        .flat_map(|r| r.keys().map(String::as_str))
        .collect();
    let auth = if schemes.contains(&"webhookSignature") {
        "Signed with the source's HMAC secret (X-Webhook-Signature, X-Webhook-Timestamp; see Inbound callbacks above), or a Bearer token or X-API-Key."
    } else if schemes == ["apiKeyAuth"] {
        "Needs X-API-Key."
    } else if !schemes.is_empty() {
        "Needs a Bearer token or X-API-Key."
    } else {
        "No authentication."
    };
    let _ = write!(out, "<p><em>{auth}</em></p>");
    if let Some(params) = op["parameters"].as_array() {
        out.push_str("<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Notes</th></tr>");
        for p in params {
            let p = resolve(doc, p);
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(p["name"].as_str().unwrap_or("")),
                esc(p["in"].as_str().unwrap_or("")),
                type_label(&p["schema"]),
                esc(p["description"].as_str().unwrap_or(""))
            );
        }
        out.push_str("</table>");
    }
    if let Some(content) = op["requestBody"]["content"].as_object() {
        for (media, c) in content {
            let _ = write!(
                out,
                "<p>Request body (<code>{}</code>): {}</p>",
                esc(media),
                type_label(&c["schema"])
            );
        }
    }
    out.push_str("<table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>");
    for (code, r) in op["responses"].as_object().into_iter().flatten() {
        let r = resolve(doc, r);
        let body = r["content"]
            .as_object()
            .and_then(|c| c.values().next())
            .map(|c| type_label(&c["schema"]))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(code),
            esc(r["description"].as_str().unwrap_or("")),
            body
        );
    }
    out.push_str("</table></div>");
}
