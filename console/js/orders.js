// Orders: the searchable, filtered, paged list (GET /api/orders with q, status, fromDate,
// limit, offset from the page's own URL) and one order with its lines, allocations,
// packages and timeline, plus cancel and "pack now".

import { get, post, atLeast } from './api.js';
import { h, fill, link, table, badge, when, pager, select, field, errorBox, notice, act, loading, loadRecord } from './dom.js';
import { go } from './app.js';

const STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'];

export async function orderList(el, params) {
  const form = h('form', { class: 'bar', role: 'search', id: 'order-search' },
    field('Search (external id, e-mail, customer, id)', { name: 'q', type: 'search', value: params.get('q') || '', size: 32 }),
    select('Status', { name: 'status' }, [['', 'any'], ...STATUSES.map((s) => [s, s])]),
    field('Created on or after', { name: 'fromDate', type: 'date', value: params.get('fromDate') || '' }),
    h('button', { type: 'submit', class: 'primary' }, 'Search'));
  form.status.value = params.get('status') || '';
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    for (const k of ['q', 'status', 'fromDate']) if (form[k].value) p.set(k, form[k].value);
    go(`/console/orders${p.toString() ? `?${p}` : ''}`);
  });
  const out = h('div', { 'aria-live': 'polite' }, loading());
  fill(el, h('h1', {}, 'Orders'), form, out);
  const query = new URLSearchParams();
  for (const k of ['q', 'status', 'fromDate', 'offset']) if (params.get(k)) query.set(k, params.get(k));
  query.set('limit', '50');
  try {
    const res = await get(`/api/orders?${query}`);
    const rows = res.orders.map((o) => [
      link(`/console/orders/${o.id}`, o.externalId),
      o.customerEmail, badge(o.status), o.itemCount, o.total ?? '', when(o.createdAt),
    ]);
    const shown = new URLSearchParams(params);
    fill(out, table(['External id', 'Customer', 'Status', 'Items', 'Total', 'Created'], rows, 'wide'),
      pager(res.pagination, shown));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

export async function orderDetail(el, _params, id) {
  const order = await loadRecord(el, 'Order', () => get(`/api/orders/${encodeURIComponent(id)}`), '/console/orders', 'Back to orders');
  if (order === undefined) return;
  const packages = await get(`/api/packages?orderId=${encodeURIComponent(id)}&limit=200`)
    .then((r) => r.packages).catch((err) => err);
  const out = h('div', { id: 'order-actions-result', 'aria-live': 'polite' });
  const actions = h('div', { class: 'bar' });
  const open = !['cancelled', 'shipped', 'delivered'].includes(order.status);
  if (atLeast('operator') && open) {
    const reason = h('input', { id: 'cancel-reason', name: 'reason', placeholder: 'reason (optional)', size: 28 });
    const cancel = h('button', { type: 'button', class: 'danger', id: 'cancel-order' }, 'Cancel order');
    cancel.addEventListener('click', () => act(cancel, out, async () => {
      if (!window.confirm(`Cancel order ${order.externalId}? Its stock is released.`)) return;
      const body = reason.value ? { reason: reason.value } : {};
      await post(`/api/orders/${id}/cancel`, body);
      await orderDetail(el, _params, id);
      el.querySelector('#order-actions-result').append(notice('Order cancelled.'));
    }));
    actions.append(h('label', {}, 'Cancel reason', reason), cancel);
    if (order.status === 'pending') {
      const pack = h('button', { type: 'button', id: 'pack-order' }, 'Pack now');
      pack.addEventListener('click', () => act(pack, out, async () => {
        await post(`/api/orders/${id}/pack`);
        await orderDetail(el, _params, id);
        el.querySelector('#order-actions-result').append(notice('Order packed.'));
      }));
      actions.append(pack);
    }
  }
  const lines = order.items.map((l) => [
    l.sku, l.name, l.quantity, l.unitPrice, l.lineTotal,
    l.allocations.map((a) => `${a.warehouseId}: ${a.quantity}`).join(', '),
  ]);
  fill(el,
    h('h1', {}, `Order ${order.externalId}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Status'), h('dd', { id: 'order-status' }, badge(order.status)),
      h('dt', {}, 'Id'), h('dd', {}, h('code', {}, order.id)),
      h('dt', {}, 'Customer'), h('dd', {}, `${order.customerEmail}${order.customerId ? ` (${order.customerId})` : ''}`),
      h('dt', {}, 'Total'), h('dd', {}, order.total ?? ''),
      order.pendingReason ? [h('dt', {}, 'Not packed because'), h('dd', {}, order.pendingReason)] : null,
      order.cancelReason ? [h('dt', {}, 'Cancel reason'), h('dd', {}, order.cancelReason)] : null),
    actions, out,
    h('h2', {}, 'Lines and allocations'),
    table(['SKU', 'Name', 'Qty', 'Unit price', 'Line total', 'Allocated (warehouse: units)'], lines),
    h('h2', {}, 'Packages'),
    packages instanceof Error ? errorBox(packages) : table(['Package', 'Warehouse', 'Box', 'Status', 'Items', 'Carrier', 'Tracking'],
      packages.map((p) => [h('code', {}, p.id), p.warehouseId, p.boxId, badge(p.status),
        p.items.map((i) => `${i.sku} x${i.quantity}`).join(', '), p.carrier || '', p.trackingNumber || ''])),
    h('h2', {}, 'Events'),
    h('div', { id: 'order-events' }, loading()));
  const events = await timeline(order, packages instanceof Error ? [] : packages);
  fill(el.querySelector('#order-events'),
    table(['When', 'What'], events.map((e) => [when(e.at), e.what])));
}

/** Every event known for the order, oldest first: its creation, its packages, their
 * inbound WMS and carrier events, and its last change. */
async function timeline(order, packages) {
  const events = [{ at: order.createdAt, what: `Order created (${order.itemCount} items)` }];
  const perPackage = await Promise.all(packages.map((p) =>
    get(`/api/packages/${encodeURIComponent(p.id)}/events`).then((r) => r.events).catch(() => [])));
  packages.forEach((p, i) => {
    events.push({ at: p.createdAt, what: `Package ${p.id} packed into box ${p.boxId} at ${p.warehouseId}` });
    if (p.shippedAt) events.push({ at: p.shippedAt, what: `Package ${p.id} shipped${p.carrier ? ` with ${p.carrier}` : ''}` });
    if (p.deliveredAt) events.push({ at: p.deliveredAt, what: `Package ${p.id} delivered` });
    for (const e of perPackage[i]) {
      events.push({ at: e.receivedAt, what: `${e.source}: package ${p.id} ${e.status}${e.location ? ` at ${e.location}` : ''} (${e.outcome})` });
    }
  });
  if (order.updatedAt !== order.createdAt) {
    const what = order.status === 'cancelled' ? `Order cancelled${order.cancelReason ? `: ${order.cancelReason}` : ''}`
      : `Order is ${order.status} (last change)`;
    events.push({ at: order.updatedAt, what });
  }
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
