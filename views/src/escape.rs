//! Escaping text for HTML and SVG (XML) content and attribute values.

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, safe inside
/// element content and quoted attribute values of HTML and XML. Control characters other than
/// tab, newline and carriage return (not allowed in XML 1.0) are dropped.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// Appends `text` escaped as [`escape_html`] does.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_neutralised() {
        assert_eq!(
            escape_html(r#"<script>alert("x&y")</script>'"#),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39;"
        );
        assert_eq!(escape_html("Café 10\" box\u{0}"), "Café 10&quot; box");
        assert_eq!(escape_html("a\nb"), "a\nb");
    }
}
