// The interactive API reference: every operation of /api/openapi.json by tag, each
// with a "try it" form that calls the live API with this session (and its CSRF token),
// so what a person may try is what their role allows.

import { raw } from './api.js';
import { h, fill, errorBox, loading } from './dom.js';

function resolve(doc, v) {
  if (!v || !v.$ref) return v;
  return v.$ref.replace(/^#\//, '').split('/').reduce((node, k) => node[k], doc);
}

function example(doc, schema) {
  const s = resolve(doc, schema) || {};
  if (s.examples && s.examples.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  return null;
}

function tryForm(doc, path, method, op) {
  const params = (op.parameters || []).map((p) => resolve(doc, p));
  const inputs = params.map((p) => h('label', {}, `${p.name} (${p.in}${p.required ? ', required' : ''})`,
    h('input', { name: p.name, 'data-in': p.in, required: p.required || null, size: 24 })));
  const content = op.requestBody && op.requestBody.content;
  const media = content ? Object.keys(content)[0] : null;
  let body = null;
  if (media) {
    const ex = example(doc, content[media].schema);
    body = h('textarea', { name: 'body', rows: 8, 'aria-label': `Request body (${media})` },
      ex === null ? '' : JSON.stringify(ex, null, 2));
  }
  const out = h('div', { 'aria-live': 'polite' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const form = h('form', {}, h('div', { class: 'bar' }, inputs), body, h('div', { class: 'bar' }, send), out);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let url = path;
    const query = new URLSearchParams();
    for (const input of form.querySelectorAll('input[data-in]')) {
      if (input.dataset.in === 'path') url = url.replace(`{${input.name}}`, encodeURIComponent(input.value));
      else if (input.dataset.in === 'query' && input.value) query.set(input.name, input.value);
    }
    if (query.toString()) url += `?${query}`;
    send.disabled = true;
    try {
      const headers = media ? { 'Content-Type': media } : {};
      const r = await raw(method.toUpperCase(), url, body ? body.value : undefined, headers);
      const text = await r.text();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch { /* not JSON */ }
      fill(out, h('p', {}, `${method.toUpperCase()} ${url}: HTTP ${r.status}`), h('pre', {}, shown));
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

export async function reference(el) {
  fill(el, h('h1', {}, 'API reference'), loading());
  let doc;
  try {
    const r = await fetch('/api/openapi.json');
    doc = await r.json();
  } catch (err) {
    fill(el, h('h1', {}, 'API reference'), errorBox(err));
    return;
  }
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const tag = (op.tags && op.tags[0]) || 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  }
  const tags = [...byTag.keys()].sort();
  fill(el, h('h1', {}, 'API reference'),
    h('p', {}, `${doc.info.title} ${doc.info.version}. Requests are sent with your console session; `,
      'the server decides what your role may do. ', h('a', { href: '/api/openapi.json' }, 'openapi.json'), ', ',
      h('a', { href: '/api/docs' }, 'printable reference'), '.'),
    h('nav', { 'aria-label': 'Tags', class: 'bar' }, tags.map((t) => h('a', { href: `#tag-${t.replace(/\W+/g, '-')}` }, t))),
    tags.map((t) => [h('h2', { id: `tag-${t.replace(/\W+/g, '-')}` }, t),
      byTag.get(t).map(([path, method, op]) => {
        const d = h('details', { class: 'op', id: op.operationId },
          h('summary', {}, h('span', { class: 'm' }, method.toUpperCase()), h('code', {}, path), ` ${op.summary || ''}`));
        d.addEventListener('toggle', () => {
          if (d.open && d.children.length === 1) {
            d.append(h('p', {}, op.description || ''), tryForm(doc, path, method, op));
          }
        }, { once: false });
        return d;
      })]));
}
