// The dashboard: today's orders by status, the packing backlog, low stock, failing
// webhook subscriptions, disk use and the last backup (from /health), each card from the API calls the role may make.

import { get, atLeast } from './api.js';
import { h, fill, link, table, errorBox, loading, when } from './dom.js';

const STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'];

function card(title, id) {
  const body = h('div', {}, loading());
  return [h('section', { class: 'card', id, 'aria-label': title }, h('h2', {}, title), body), body];
}

async function into(body, draw) {
  try {
    fill(body, await draw());
  } catch (err) {
    fill(body, errorBox(err));
  }
}

const total = (path) => get(path).then((r) => r.pagination.total);

function bytes(n) {
  if (n === null || n === undefined) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i += 1; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** The latest backup's time and outcome, from /health. */
function lastBackup(b) {
  if (!b) return 'unknown';
  const sched = b.scheduled ? '' : ' (no backup_dir: backups are not scheduled)';
  if (!b.lastResult) return `none since the server started${sched}`;
  const ok = b.lastSuccessAt ? `last success ${when(b.lastSuccessAt)}` : 'no success since the server started';
  if (b.lastResult === 'failed') {
    return [h('span', { class: 'badge failed' }, 'failed'), ` at ${when(b.lastFailureAt)} (the reason is in the server log); ${ok}${sched}`];
  }
  return `succeeded at ${when(b.lastSuccessAt)}${sched}`;
}

export async function dashboard(el) {
  const today = new Date().toISOString().slice(0, 10);
  const [today_, todayBody] = card(`Orders created today (${today}, UTC)`, 'orders-today');
  const [backlog, backlogBody] = card('Packing backlog', 'backlog');
  const [system, systemBody] = card('System', 'system');
  const cards = [today_, backlog, system];
  const jobs = [
    into(todayBody, async () => {
      const counts = await Promise.all(STATUSES.map((s) => total(`/api/orders?status=${s}&fromDate=${today}&limit=1`)));
      return table(['Status', 'Orders'], STATUSES.map((s, i) => [link(`/console/orders?status=${s}&fromDate=${today}`, s), counts[i]]));
    }),
    into(backlogBody, async () => {
      const n = await total('/api/orders?status=pending&limit=1');
      return h('p', {}, link('/console/orders?status=pending', `${n} pending orders`), ' wait to be packed.');
    }),
    into(systemBody, async () => {
      const r = await fetch('/health', { cache: 'no-store' });
      const health = await r.json();
      return h('dl', { class: 'facts' },
        h('dt', {}, 'Status'), h('dd', {}, health.status),
        h('dt', {}, 'Version'), h('dd', {}, health.version),
        h('dt', {}, 'Up for'), h('dd', {}, `${Math.round(health.uptimeSeconds / 60)} min`),
        h('dt', {}, 'Disk use'), h('dd', {}, bytes(health.storage && health.storage.sizeOnDiskBytes)),
        h('dt', {}, 'Free disk space'), h('dd', {}, bytes(health.storage && health.storage.freeBytes)),
        health.reason ? [h('dt', {}, 'Degraded'), h('dd', { class: 'error' }, health.reason)] : null,
        h('dt', {}, 'Last backup'), h('dd', { id: 'last-backup' }, lastBackup(health.backups)));
    }),
  ];
  if (atLeast('operator')) {
    const [lowCard, lowBody] = card('Low stock', 'low-stock');
    const [hooks, hooksBody] = card('Failing webhook subscriptions', 'failing-webhooks');
    cards.push(lowCard, hooks);
    jobs.push(
      into(lowBody, async () => {
        const res = await get('/api/inventory?limit=200');
        const low = res.inventory.filter((r) => r.available < r.lowStockThreshold);
        return low.length
          ? table(['SKU', 'Warehouse', 'Available', 'Threshold'],
            low.slice(0, 10).map((r) => [link(`/console/inventory/${r.id}`, r.sku), r.warehouseId, r.available, r.lowStockThreshold]))
          : h('p', {}, 'No item is below its threshold (newest 200 records).');
      }),
      into(hooksBody, async () => {
        const res = await get('/api/webhooks?limit=50');
        const failed = await Promise.all(res.webhooks.map((w) => total(`/api/webhooks/${w.id}/deliveries?status=failed&limit=1`)));
        const rows = res.webhooks.map((w, i) => [w, failed[i]]).filter(([, n]) => n > 0);
        return rows.length
          ? table(['Subscription', 'Failed deliveries'], rows.map(([w, n]) => [link(`/console/webhooks/${w.id}?status=failed`, w.url), n]))
          : h('p', {}, 'No subscription has failed deliveries.');
      }));
  }
  fill(el, h('h1', {}, 'Dashboard'), h('div', { class: 'cards' }, cards));
  await Promise.all(jobs);
}
