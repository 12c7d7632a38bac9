// Webhooks: the subscriptions, and one subscription's delivery log (filtered by status)
// with retry of a failed delivery, recover since a time and a test event.

import { get, post } from './api.js';
import { h, fill, link, table, badge, when, pager, select, field, errorBox, notice, act, loading, loadRecord } from './dom.js';
import { go } from './app.js';

export async function webhookList(el, params) {
  const out = h('div', {}, loading());
  fill(el, h('h1', {}, 'Webhooks'), out);
  const q = new URLSearchParams({ limit: '50' });
  if (params.get('offset')) q.set('offset', params.get('offset'));
  try {
    const res = await get(`/api/webhooks?${q}`);
    fill(out, table(['URL', 'Events', 'Active', 'Created'],
      res.webhooks.map((w) => [link(`/console/webhooks/${w.id}`, w.url), w.events.join(', '),
        w.isActive ? badge('ok') : badge('inactive'), when(w.createdAt)])),
    pager(res.pagination, params));
  } catch (err) {
    fill(out, errorBox(err));
  }
}

function lastAttempt(d) {
  const a = d.attempts[d.attempts.length - 1];
  if (!a) return '';
  return `${a.statusCode ?? '-'}${a.error ? ` ${a.error}` : ''} (${when(a.at)})`;
}

export async function webhookDetail(el, params, id) {
  const hook = await loadRecord(el, 'Webhook', () => get(`/api/webhooks/${encodeURIComponent(id)}`), '/console/webhooks', 'Back to webhooks');
  if (hook === undefined) return;
  const out = h('div', { id: 'webhook-result', 'aria-live': 'polite' });
  const reload = async (message) => {
    await webhookDetail(el, new URLSearchParams(location.search), id);
    el.querySelector('#webhook-result').append(notice(message));
  };
  const test = h('button', { type: 'button', id: 'send-test' }, 'Send test event');
  test.addEventListener('click', () => act(test, out, async () => {
    await post(`/api/webhooks/${id}/test`);
    await reload('Test event queued.');
  }));
  const recover = h('form', { class: 'bar', id: 'recover-form' },
    field('Re-send failed deliveries since (date or RFC 3339 time)', { name: 'since', required: true, placeholder: '2026-11-01', size: 26 }),
    h('button', { type: 'submit' }, 'Recover'));
  recover.addEventListener('submit', (e) => {
    e.preventDefault();
    act(recover.querySelector('button'), out, async () => {
      const r = await post(`/api/webhooks/${id}/recover`, { since: recover.since.value });
      await reload(`${r.requeued} deliveries queued again.`);
    });
  });
  const filter = h('form', { class: 'bar', id: 'delivery-filter' },
    select('Status', { name: 'status' }, [['', 'any'], ['pending', 'pending'], ['delivered', 'delivered'], ['failed', 'failed']]),
    h('button', { type: 'submit' }, 'Show'));
  filter.status.value = params.get('status') || '';
  filter.addEventListener('submit', (e) => {
    e.preventDefault();
    go(`/console/webhooks/${id}${filter.status.value ? `?status=${filter.status.value}` : ''}`);
  });
  const log = h('div', { id: 'deliveries' }, loading());
  fill(el,
    h('h1', {}, `Webhook ${hook.url}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Events'), h('dd', {}, hook.events.join(', ')),
      h('dt', {}, 'Active'), h('dd', {}, hook.isActive ? 'yes' : 'no'),
      h('dt', {}, 'Id'), h('dd', {}, h('code', {}, hook.id))),
    h('div', { class: 'bar' }, test), recover, out,
    h('h2', {}, 'Deliveries'), filter, log);
  const q = new URLSearchParams({ limit: '50' });
  for (const k of ['status', 'offset']) if (params.get(k)) q.set(k, params.get(k));
  try {
    const res = await get(`/api/webhooks/${id}/deliveries?${q}`);
    const rows = res.deliveries.map((d) => {
      let retry = '';
      if (d.status === 'failed') {
        retry = h('button', { type: 'button', class: 'retry', 'data-delivery': d.id }, 'Retry');
        retry.addEventListener('click', () => act(retry, out, async () => {
          await post(`/api/webhooks/${id}/deliveries/${d.id}/retry`);
          await reload('Delivery queued again.');
        }));
      }
      return [h('code', {}, d.id), d.eventType + (d.test ? ' (test)' : ''), badge(d.status),
        d.attempts.length, lastAttempt(d), d.failureReason || '', when(d.createdAt), retry];
    });
    fill(log, table(['Delivery', 'Event', 'Status', 'Attempts', 'Last attempt', 'Failure', 'Created', ''], rows),
      pager(res.pagination, params));
  } catch (err) {
    fill(log, errorBox(err));
  }
}
