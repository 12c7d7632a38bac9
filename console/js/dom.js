// DOM helpers: element building without innerHTML (text is always text), plain error
// boxes, dates and small form pieces shared by the pages.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A link inside the console (the router handles the click). */
export function link(href, ...children) {
  return h('a', { href }, ...children);
}

/** The API's error, shown as the API said it. */
export function errorBox(err) {
  const field = err && err.field ? ` (field: ${err.field})` : '';
  const msg = err && err.message ? err.message : String(err);
  const status = err && err.status ? `${err.status} ${err.code || ''}: ` : '';
  return h('div', { class: 'error', role: 'alert' }, status + msg + field);
}

/** The muted line a section shows until its data arrives. */
export function loading() {
  return h('p', { class: 'muted' }, 'Loading…');
}

/**
 * A detail page's record: `title` and the loading line while `load()` runs; on failure the
 * API's error and a link back to `back`, and `undefined` to the caller.
 */
export async function loadRecord(el, title, load, back, backText) {
  fill(el, h('h1', {}, title), loading());
  try {
    return await load();
  } catch (err) {
    fill(el, h('h1', {}, title), errorBox(err), link(back, backText));
    return undefined;
  }
}

export function notice(text) {
  return h('div', { class: 'notice', role: 'status' }, text);
}

/** "2026-11-26 01:02:03 UTC" from an RFC 3339 time; empty for null. */
export function when(t) {
  if (!t) return '';
  return t.replace('T', ' ').replace(/\.\d+/, '').replace('Z', ' UTC');
}

export function badge(text) {
  return h('span', { class: `badge ${text}` }, text);
}

/** A table from a header list and rows (arrays of cells). */
export function table(headers, rows, cls) {
  return h('div', { class: 'scroll' },
    h('table', { class: cls },
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows.length ? rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))
        : h('tr', {}, h('td', { colspan: headers.length, class: 'muted' }, 'Nothing to show.')))));
}

/** A labelled input. */
export function field(label, attrs) {
  return h('label', {}, label, h('input', attrs));
}

export function select(label, attrs, options) {
  return h('label', {}, label, h('select', attrs,
    options.map(([value, text]) => h('option', { value }, text))));
}

/** "Showing 1-50 of 1234" and previous/next links that keep the other query parameters. */
export function pager(pagination, params) {
  const { limit, offset, total } = pagination;
  const at = (o) => {
    const p = new URLSearchParams(params);
    if (o > 0) p.set('offset', o); else p.delete('offset');
    const s = p.toString();
    return location.pathname + (s ? `?${s}` : '');
  };
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    offset > 0 ? link(at(Math.max(0, offset - limit)), '← Previous') : null,
    h('span', {}, `${first}-${last} of ${total}`),
    offset + limit < total ? link(at(offset + limit), 'Next →') : null);
}

/** Runs `action` from a button, disabling it meanwhile and showing a failure in `out`. */
export async function act(button, out, action) {
  button.disabled = true;
  try {
    await action();
  } catch (err) {
    fill(out, errorBox(err));
  } finally {
    button.disabled = false;
  }
}
