// Orders: the searchable, filtered, paged list (GET /api/orders with q, status, fromDate,
// limit, offset from the page's own URL) and one order with its lines, allocations,
// packages and timeline (GET /api/orders/{id}/events), plus cancel and "pack now".

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
  // The three reads go out together; the page waits for the order first.
  const packagesP = get(`/api/packages?orderId=${encodeURIComponent(id)}&limit=200`)
    .then((r) => r.packages).catch((err) => err);
  const eventsP = get(`/api/orders/${encodeURIComponent(id)}/events`).catch((err) => err);
  const order = await loadRecord(el, 'Order', () => get(`/api/orders/${encodeURIComponent(id)}`), '/console/orders', 'Back to orders');
  if (order === undefined) return;
  const packages = await packagesP;
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
  const list = await eventsP;
  fill(el.querySelector('#order-events'), list instanceof Error ? errorBox(list) : [
    list.recorded ? null : h('p', { class: 'muted' }, 'This order was created before order histories were kept: its creation and latest change come from the order record.'),
    table(['When', 'What', 'Status', 'By'], list.events.map((e) => [when(e.at), describe(e), badge(e.status), e.actor || 'fulfilld'])),
  ]);
}

const LABELS = {
  'order.created': 'Order created', 'order.updated': 'Order changed', 'order.cancelled': 'Order cancelled',
  'order.packed': 'Order packed', 'order.not_packed': 'Order could not be packed', 'order.shipped': 'Order shipped',
  'order.delivered': 'Order delivered', 'package.shipped': 'Package shipped', 'package.delivered': 'Package delivered',
  'package.callback': 'Callback',
};

/** One timeline entry as a sentence: what happened, then its details. */
function describe(e) {
  const what = LABELS[e.kind] || e.kind;
  const pkg = e.packageId ? ` about package ${e.packageId}` : '';
  return e.note ? `${what}${pkg}: ${e.note}` : `${what}${pkg}`;
}
