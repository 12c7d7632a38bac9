// Products (list and search by SKU) and warehouses with their box catalog, which an
// operator edits here as a table and saves whole (PATCH boxes replaces the catalog).

import { get, patch } from './api.js';
import { h, fill, link, table, when, pager, field, errorBox, notice, act, loading } from './dom.js';
import { go } from './app.js';

const dims = (d) => (d ? `${d.width} x ${d.height} x ${d.length}` : '');

export async function products(el, params) {
  const form = h('form', { class: 'bar', role: 'search' },
    field('SKU (exact)', { name: 'sku', value: params.get('sku') || '' }),
    h('button', { type: 'submit', class: 'primary' }, 'Find'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go(`/console/products${form.sku.value ? `?sku=${encodeURIComponent(form.sku.value)}` : ''}`);
  });
  const out = h('div', {}, loading());
  fill(el, h('h1', {}, 'Products'), form, out);
  const row = (p) => [p.sku, p.name, typeof p.price === 'object' ? JSON.stringify(p.price) : p.price,
    p.weight ?? '', dims(p.dimensions), p.hazmat ? p.hazmat.class || 'yes' : '', p.lowStockThreshold, when(p.updatedAt)];
  const headers = ['SKU', 'Name', 'Price', 'Weight', 'W x H x L', 'Hazmat', 'Low-stock threshold', 'Updated'];
  try {
    if (params.get('sku')) {
      const p = await get(`/api/products/sku/${encodeURIComponent(params.get('sku'))}`);
      fill(out, table(headers, [row(p)], 'wide'));
      return;
    }
    const q = new URLSearchParams({ limit: '50' });
    if (params.get('offset')) q.set('offset', params.get('offset'));
    const res = await get(`/api/products?${q}`);
    fill(out, table(headers, res.products.map(row), 'wide'), pager(res.pagination, params));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

export async function warehouses(el, params) {
  const out = h('div', {}, loading());
  fill(el, h('h1', {}, 'Warehouses'), out);
  const q = new URLSearchParams({ limit: '50' });
  if (params.get('offset')) q.set('offset', params.get('offset'));
  try {
    const res = await get(`/api/warehouses?${q}`);
    fill(out, table(['Id', 'Name', 'Boxes', 'Updated'],
      res.warehouses.map((w) => [link(`/console/warehouses/${encodeURIComponent(w.id)}`, w.id), w.name,
        w.boxes.length, when(w.updatedAt)])),
    pager(res.pagination, params));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

const BOX_FIELDS = [
  ['boxId', 'Box id', 'text'], ['width', 'Width', 'number'], ['height', 'Height', 'number'],
  ['length', 'Length', 'number'], ['maxWeight', 'Max weight', 'number'], ['quantity', 'Quantity (empty: unlimited)', 'number'],
  ['cost', 'Cost', 'number'], ['tareWeight', 'Tare weight', 'number'],
];

function boxRow(box, n) {
  const cells = BOX_FIELDS.map(([k, label, type]) => h('input', {
    name: k, type, step: type === 'number' ? 'any' : null, value: box[k] ?? '',
    'aria-label': `${label}, box ${n}`, size: type === 'number' ? 7 : 10,
  }));
  const remove = h('button', { type: 'button', 'aria-label': `Remove box ${n}` }, 'Remove');
  const tr = h('tr', {}, cells.map((c) => h('td', {}, c)), h('td', {}, remove));
  remove.addEventListener('click', () => tr.remove());
  return tr;
}

function readBoxes(tbody) {
  return [...tbody.rows].map((tr) => {
    const box = {};
    for (const input of tr.querySelectorAll('input')) {
      if (input.name === 'boxId') box.boxId = input.value;
      else if (input.value === '') box[input.name] = null;
      else box[input.name] = Number(input.value);
    }
    for (const k of ['width', 'height', 'length', 'maxWeight']) if (box[k] === null) delete box[k];
    return box;
  });
}

export async function warehouse(el, params, id) {
  let w;
  try {
    w = await get(`/api/warehouses/${encodeURIComponent(id)}`);
  } catch (err) {
    fill(el, h('h1', {}, 'Warehouse'), errorBox(err), link('/console/warehouses', 'Back to warehouses'));
    return;
  }
  const tbody = h('tbody', {}, w.boxes.map((b, i) => boxRow(b, i + 1)));
  const out = h('div', { 'aria-live': 'polite' });
  const add = h('button', { type: 'button' }, 'Add a box');
  add.addEventListener('click', () => tbody.append(boxRow({}, tbody.rows.length + 1)));
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save box catalog');
  const form = h('form', { id: 'boxes-form' },
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, BOX_FIELDS.map(([, label]) => h('th', { scope: 'col' }, label)), h('th', {}, ''))),
      tbody)),
    h('div', { class: 'bar' }, add, save), out);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(save, out, async () => {
      await patch(`/api/warehouses/${encodeURIComponent(id)}`, { boxes: readBoxes(tbody) });
      await warehouse(el, params, id);
      el.append(notice('Box catalog saved.'));
    });
  });
  const a = w.address;
  fill(el, h('h1', {}, `${w.name} (${w.id})`),
    a ? h('p', {}, [a.line1, a.city, a.postalCode, a.country].filter(Boolean).join(', ')) : null,
    h('h2', {}, 'Box catalog'), form);
}
