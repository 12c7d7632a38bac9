// Inventory: levels with the low ones first (available below the record's threshold),
// filtered by SKU and warehouse; one record with the adjust form (delta and reason) and
// its audit trail, newest first.

import { get, patch } from './api.js';
import { h, fill, link, table, badge, when, pager, field, errorBox, notice, act, loading, loadRecord } from './dom.js';
import { go } from './app.js';

const low = (r) => r.available < r.lowStockThreshold;

export async function inventoryList(el, params) {
  const form = h('form', { class: 'bar', role: 'search' },
    field('SKU', { name: 'sku', value: params.get('sku') || '' }),
    field('Warehouse', { name: 'warehouseId', value: params.get('warehouseId') || '' }),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    for (const k of ['sku', 'warehouseId']) if (form[k].value) p.set(k, form[k].value);
    go(`/console/inventory${p.toString() ? `?${p}` : ''}`);
  });
  const out = h('div', { 'aria-live': 'polite' }, loading());
  fill(el, h('h1', {}, 'Inventory'), form,
    h('p', { class: 'muted' }, 'Low stock (available below the threshold) first on each page.'), out);
  const q = new URLSearchParams();
  for (const k of ['sku', 'warehouseId', 'offset']) if (params.get(k)) q.set(k, params.get(k));
  q.set('limit', '200');
  try {
    const res = await get(`/api/inventory?${q}`);
    const rows = [...res.inventory].sort((a, b) => low(b) - low(a) || a.available - b.available);
    fill(out, table(['SKU', 'Warehouse', 'On hand', 'Reserved', 'Available', 'Threshold', ''],
      rows.map((r) => [link(`/console/inventory/${r.id}`, r.sku), r.warehouseId, r.onHand, r.reserved,
        r.available, r.lowStockThreshold, low(r) ? badge('low') : ''])),
    pager(res.pagination, params));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

export async function inventoryDetail(el, params, id) {
  const rec = await loadRecord(el, 'Inventory', () => get(`/api/inventory/${encodeURIComponent(id)}`), '/console/inventory', 'Back to inventory');
  if (rec === undefined) return;
  const out = h('div', { id: 'adjust-result', 'aria-live': 'polite' });
  const form = h('form', { class: 'bar', id: 'adjust-form' },
    field('Change of on hand (+/-)', { name: 'delta', type: 'number', step: 1, required: true, id: 'adjust-delta' }),
    field('Reason', { name: 'reason', required: true, maxlength: 500, size: 36, id: 'adjust-reason' }),
    h('button', { type: 'submit', class: 'primary', id: 'adjust-submit' }, 'Adjust'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(form.querySelector('button'), out, async () => {
      const delta = Number.parseInt(form.delta.value, 10);
      await patch(`/api/inventory/${id}/adjust`, { delta, reason: form.reason.value });
      await inventoryDetail(el, params, id);
      el.querySelector('#adjust-result').append(notice(`Adjusted by ${delta}.`));
    });
  });
  const trail = h('div', { id: 'audit-trail' }, loading());
  fill(el,
    h('h1', {}, `${rec.sku} at ${rec.warehouseId}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'On hand'), h('dd', { id: 'on-hand' }, rec.onHand),
      h('dt', {}, 'Reserved'), h('dd', {}, rec.reserved),
      h('dt', {}, 'Available'), h('dd', {}, rec.available, ' ', low(rec) ? badge('low') : ''),
      h('dt', {}, 'Low-stock threshold'), h('dd', {}, rec.lowStockThreshold),
      h('dt', {}, 'Updated'), h('dd', {}, when(rec.updatedAt))),
    h('h2', {}, 'Adjust'), form, out,
    h('h2', {}, 'Audit trail'), trail);
  const q = new URLSearchParams({ limit: '50' });
  if (params.get('offset')) q.set('offset', params.get('offset'));
  try {
    const res = await get(`/api/inventory/${id}/adjustments?${q}`);
    fill(trail, table(['#', 'When', 'Change', 'On hand Δ', 'Reserved Δ', 'Reason', 'By', 'Reference', 'On hand after'],
      res.adjustments.map((a) => [a.seq, when(a.createdAt), a.change, a.delta, a.reservedDelta,
        a.reason || '', a.clientId || '', a.reference || '', a.onHand])),
    pager(res.pagination, params));
  } catch (err) {
    fill(trail, errorBox(err));
  }
}
