// API clients (admin only; the API refuses everyone else with 403, shown as it says):
// the list, create (the secret and API key are shown once) and delete.

import { get, post, api } from './api.js';
import { h, fill, table, when, field, select, errorBox, notice, act, loading } from './dom.js';

export async function clients(el) {
  const out = h('div', { id: 'clients-result', 'aria-live': 'polite' });
  const list = h('div', { id: 'clients-list' }, loading());
  const form = h('form', { class: 'bar', id: 'client-form' },
    field('Name', { name: 'name', required: true, maxlength: 200 }),
    select('Tier', { name: 'tier' }, [['starter', 'starter'], ['growth', 'growth'], ['pro', 'pro'], ['enterprise', 'enterprise'], ['unlimited', 'unlimited']]),
    h('button', { type: 'submit', class: 'primary' }, 'Create client'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(form.querySelector('button'), out, async () => {
      const c = await post('/console/api/clients', { name: form.name.value, tier: form.tier.value });
      form.reset();
      await draw();
      fill(out, h('div', { class: 'notice', role: 'status' },
        h('p', {}, `Client ${c.clientId} created. Copy its secret and API key now: they are not shown again.`),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Client id'), h('dd', {}, h('code', {}, c.clientId)),
          h('dt', {}, 'Client secret'), h('dd', {}, h('code', {}, c.clientSecret)),
          h('dt', {}, 'API key'), h('dd', {}, h('code', {}, c.apiKey)))));
    });
  });
  fill(el, h('h1', {}, 'API clients'), h('h2', {}, 'New client'), form, out, h('h2', {}, 'Clients'), list);
  async function draw() {
    try {
      const res = await get('/console/api/clients');
      fill(list, table(['Client id', 'Name', 'Tier', 'Created', ''], res.clients.map((c) => {
        const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete client ${c.name}` }, 'Delete');
        del.addEventListener('click', () => act(del, out, async () => {
          if (!window.confirm(`Delete client ${c.name}? Its tokens and API key stop working at once.`)) return;
          await api('DELETE', `/console/api/clients/${encodeURIComponent(c.clientId)}`);
          await draw();
          fill(out, notice(`Client ${c.name} deleted.`));
        }));
        return [h('code', {}, c.clientId), c.name, c.tier, when(c.createdAt), del];
      })));
    } catch (err) {
      fill(list, errorBox(err));
    }
  }
  await draw();
}

/** Console users (admin only): list, create (a generated password is shown once), delete. */
export async function users(el) {
  const out = h('div', { id: 'users-result', 'aria-live': 'polite' });
  const list = h('div', { id: 'users-list' }, loading());
  const form = h('form', { class: 'bar', id: 'user-form' },
    field('User name', { name: 'username', required: true, autocomplete: 'off' }),
    select('Role', { name: 'role' }, [['packer', 'packer'], ['operator', 'operator'], ['admin', 'admin']]),
    field('Password (empty: generate one)', { name: 'password', type: 'password', autocomplete: 'new-password' }),
    h('button', { type: 'submit', class: 'primary' }, 'Create user'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(form.querySelector('button'), out, async () => {
      const body = { username: form.username.value, role: form.role.value };
      if (form.password.value) body.password = form.password.value;
      const u = await post('/console/api/users', body);
      form.reset();
      await draw();
      fill(out, h('div', { class: 'notice', role: 'status' },
        `User ${body.username} created.`,
        u && u.password ? [' Password (shown once): ', h('code', {}, u.password)] : ''));
    });
  });
  fill(el, h('h1', {}, 'Users'), h('h2', {}, 'New user'), form, out, h('h2', {}, 'Users'), list);
  async function draw() {
    try {
      const res = await get('/console/api/users');
      fill(list, table(['User', 'Role', 'Created', ''], res.users.map((u) => {
        const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete user ${u.username}` }, 'Delete');
        del.addEventListener('click', () => act(del, out, async () => {
          if (!window.confirm(`Delete user ${u.username}? Their sessions end.`)) return;
          await api('DELETE', `/console/api/users/${encodeURIComponent(u.username)}`);
          await draw();
          fill(out, notice(`User ${u.username} deleted.`));
        }));
        return [u.username, u.role, when(u.createdAt), del];
      })));
    } catch (err) {
      fill(list, errorBox(err));
    }
  }
  await draw();
}
