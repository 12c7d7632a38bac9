// Products (list, search by SKU, create, delete) and warehouses (list, create) with their
// box catalog, which an operator edits here as a table and saves whole (PATCH boxes
// replaces the catalog). Warehouses have no delete in the API: stock, allocations and
// packages refer to them.

import { get, post, patch, del, atLeast } from './api.js';
import { h, fill, link, table, when, pager, field, select, errorBox, notice, act, loading } from './dom.js';
import { go } from './app.js';

const dims = (d) => (d ? `${d.width} x ${d.height} x ${d.length}` : '');

const num = (v) => (v === '' ? undefined : Number(v));

/** The new-product form's body: only what was filled in, numbers as numbers. */
function productBody(f) {
  const body = { sku: f.sku.value.trim(), name: f.name.value.trim(), price: num(f.price.value) };
  if (f.weight.value !== '') body.weight = num(f.weight.value);
  const d = ['width', 'height', 'length'].filter((k) => f[k].value !== '');
  if (d.length) body.dimensions = Object.fromEntries(d.map((k) => [k, num(f[k].value)]));
  if (f.lowStockThreshold.value !== '') body.lowStockThreshold = num(f.lowStockThreshold.value);
  if (f.orientation.value !== 'any') body.orientation = f.orientation.value;
  return body;
}

function newProductForm() {
  const out = h('div', { 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create product');
  const n = { type: 'number', step: 'any', min: '0', size: 7 };
  const form = h('form', { id: 'new-product' },
    h('div', { class: 'bar' },
      field('SKU', { name: 'sku', required: true, size: 14 }), field('Name', { name: 'name', required: true, size: 24 }),
      field('Price', { ...n, name: 'price', required: true }), field('Weight', { ...n, name: 'weight' }),
      field('Width', { ...n, name: 'width' }), field('Height', { ...n, name: 'height' }), field('Length', { ...n, name: 'length' }),
      field('Low-stock threshold', { ...n, step: '1', name: 'lowStockThreshold' }),
      select('Orientation', { name: 'orientation' }, [['any', 'any'], ['upright', 'upright']]),
      save),
    out);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(save, out, async () => {
      const p = await post('/api/products', productBody(form));
      go(`/console/products?sku=${encodeURIComponent(p.sku)}&created=1`);
    });
  });
  return h('details', { class: 'op' }, h('summary', { id: 'new-product-toggle' }, 'New product'), form);
}

function deleteButton(p, out) {
  const b = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete product ${p.sku}`, 'data-sku': p.sku }, 'Delete');
  b.addEventListener('click', () => act(b, out, async () => {
    if (!window.confirm(`Delete product ${p.sku}? Orders can no longer name it.`)) return;
    await del(`/api/products/${encodeURIComponent(p.id)}`);
    go(`/console/products?deleted=${encodeURIComponent(p.sku)}`);
  }));
  return b;
}

export async function products(el, params) {
  const form = h('form', { class: 'bar', role: 'search' },
    field('SKU (exact)', { name: 'sku', value: params.get('sku') || '' }),
    h('button', { type: 'submit', class: 'primary' }, 'Find'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go(`/console/products${form.sku.value ? `?sku=${encodeURIComponent(form.sku.value)}` : ''}`);
  });
  const out = h('div', { id: 'products-list', 'aria-live': 'polite' }, loading());
  const manage = atLeast('operator');
  fill(el, h('h1', {}, 'Products'), manage ? newProductForm() : null, form, out);
  const row = (p) => [p.sku, p.name, typeof p.price === 'object' ? JSON.stringify(p.price) : p.price,
    p.weight ?? '', dims(p.dimensions), p.hazmat ? p.hazmat.class || 'yes' : '', p.lowStockThreshold, when(p.updatedAt),
    manage ? deleteButton(p, out) : null];
  const headers = ['SKU', 'Name', 'Price', 'Weight', 'W x H x L', 'Hazmat', 'Low-stock threshold', 'Updated', manage ? 'Actions' : null]
    .filter((x) => x !== null);
  try {
    if (params.get('sku')) {
      const p = await get(`/api/products/sku/${encodeURIComponent(params.get('sku'))}`);
      fill(out, params.get('created') ? notice(`Product ${p.sku} created.`) : null, table(headers, [row(p)], manage ? 'wide actions' : 'wide'));
      return;
    }
    const q = new URLSearchParams({ limit: '50' });
    if (params.get('offset')) q.set('offset', params.get('offset'));
    const res = await get(`/api/products?${q}`);
    const gone = params.get('deleted');
    fill(out, gone ? notice(`Product ${gone} deleted.`) : null,
      table(headers, res.products.map(row), manage ? 'wide actions' : 'wide'), pager(res.pagination, params));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

function newWarehouseForm() {
  const out = h('div', { 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create warehouse');
  const form = h('form', { id: 'new-warehouse' },
    h('div', { class: 'bar' },
      field('Id (empty: generated)', { name: 'id', size: 14, pattern: '[A-Za-z0-9-]{1,32}' }),
      field('Name', { name: 'name', required: true, size: 28 }), save),
    out);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(save, out, async () => {
      const body = { name: form.name.value.trim() };
      if (form.id.value.trim()) body.id = form.id.value.trim();
      const w = await post('/api/warehouses', body);
      go(`/console/warehouses/${encodeURIComponent(w.id)}`);
    });
  });
  return h('details', { class: 'op' }, h('summary', { id: 'new-warehouse-toggle' }, 'New warehouse'), form);
}

export async function warehouses(el, params) {
  const out = h('div', { id: 'warehouses-list' }, loading());
  fill(el, h('h1', {}, 'Warehouses'), atLeast('operator') ? newWarehouseForm() : null, out);
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
  const out = h('div', { id: 'boxes-result', 'aria-live': 'polite' });
  const add = h('button', { type: 'button', id: 'add-box' }, 'Add a box');
  add.addEventListener('click', () => tbody.append(boxRow({}, tbody.rows.length + 1)));
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save box catalog');
  const form = h('form', { id: 'boxes-form' },
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, BOX_FIELDS.map(([, label]) => h('th', { scope: 'col' }, label)), h('th', {}, ''))),
      tbody)),
    h('div', { class: 'bar' }, add, save), out);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    fill(out);
    act(save, out, async () => {
      await patch(`/api/warehouses/${encodeURIComponent(id)}`, { boxes: readBoxes(tbody) });
      await warehouse(el, params, id);
      fill(el.querySelector('#boxes-result'), notice('Box catalog saved.'));
    });
  });
  const a = w.address;
  fill(el, h('h1', {}, `${w.name} (${w.id})`),
    a ? h('p', {}, [a.line1, a.city, a.postalCode, a.country].filter(Boolean).join(', ')) : null,
    h('h2', {}, 'Box catalog'), form);
}
