// The console's entry: reads the session (or goes to the login form), draws the
// navigation for the role, and routes every /console/ path to its page from the URL,
// so a link, the back button and a reload all show the same page.

import { loadSession, session, atLeast, toLogin, raw } from './api.js';
import { h, fill, errorBox } from './dom.js';

// Path pattern, nav label (null: not in the nav), lowest role, page module and function.
const ROUTES = [
  [/^\/console\/?$/, 'Dashboard', 'packer', './dashboard.js', 'dashboard'],
  [/^\/console\/orders\/?$/, 'Orders', 'packer', './orders.js', 'orderList'],
  [/^\/console\/orders\/([^/]+)$/, null, 'packer', './orders.js', 'orderDetail'],
  [/^\/console\/station\/?$/, 'Station', 'packer', './station.js', 'station'],
  [/^\/console\/inventory\/?$/, 'Inventory', 'operator', './inventory.js', 'inventoryList'],
  [/^\/console\/inventory\/([^/]+)$/, null, 'operator', './inventory.js', 'inventoryDetail'],
  [/^\/console\/products\/?$/, 'Products', 'operator', './catalog.js', 'products'],
  [/^\/console\/warehouses\/?$/, 'Warehouses', 'operator', './catalog.js', 'warehouses'],
  [/^\/console\/warehouses\/([^/]+)$/, null, 'operator', './catalog.js', 'warehouse'],
  [/^\/console\/webhooks\/?$/, 'Webhooks', 'operator', './webhooks.js', 'webhookList'],
  [/^\/console\/webhooks\/([^/]+)$/, null, 'operator', './webhooks.js', 'webhookDetail'],
  [/^\/console\/clients\/?$/, 'Clients', 'admin', './admin.js', 'clients'],
  [/^\/console\/users\/?$/, 'Users', 'admin', './admin.js', 'users'],
  [/^\/console\/reference\/?$/, 'API reference', 'packer', './reference.js', 'reference'],
];

const NAV_HREF = {
  Dashboard: '/console/', Orders: '/console/orders', Station: '/console/station', Inventory: '/console/inventory',
  Products: '/console/products', Warehouses: '/console/warehouses', Webhooks: '/console/webhooks',
  Clients: '/console/clients', Users: '/console/users', 'API reference': '/console/reference',
};

const main = () => document.getElementById('main');

function drawNav(current) {
  const items = ROUTES.filter((r) => r[1] && atLeast(r[2])).map((r) => {
    const href = NAV_HREF[r[1]];
    return h('a', { href, 'aria-current': href === current ? 'page' : null }, r[1]);
  });
  fill(document.getElementById('nav'), items);
}

function drawWho() {
  const out = h('button', { type: 'button', id: 'logout', onclick: logout }, 'Log out');
  fill(document.getElementById('who'),
    h('span', { id: 'whoami' }, `${session.username} (${session.role})`), out);
}

async function logout() {
  const r = await raw('POST', '/console/logout');
  if (r.ok || r.status === 401) {
    location.assign('/console/login');
  } else {
    main().prepend(errorBox({ status: r.status, message: 'Logging out failed; try again.' }));
  }
}

let rendering = 0;

async function render() {
  const path = location.pathname;
  const route = ROUTES.find((r) => r[0].test(path));
  const turn = ++rendering;
  // The nav entry a page belongs to: its own, or the list whose path it extends.
  const navHref = path === '/console/' ? '/console/'
    : Object.values(NAV_HREF).find((href) => href !== '/console/' && (path === href || path.startsWith(`${href}/`)));
  drawNav(navHref);
  const el = main();
  if (!route) {
    fill(el, h('h1', {}, 'Not found'), h('p', {}, 'There is no console page at this address.'));
    return;
  }
  const args = path.match(route[0]).slice(1).map(decodeURIComponent);
  const params = new URLSearchParams(location.search);
  try {
    const mod = await import(route[3]);
    if (turn !== rendering) return;
    const page = h('div', { class: 'page' });
    fill(el, page);
    // A page draws into its own element; a later navigation replaces it.
    await mod[route[4]](page, params, ...args);
    document.title = `${(page.querySelector('h1') || {}).textContent || 'Console'} - fulfilld`;
    // When the page became usable, for Navigation Timing measurements.
    performance.mark('console-rendered');
  } catch (err) {
    if (turn === rendering) fill(el, errorBox(err));
  }
}

/** Moves to another console page without reloading. */
export function go(href, replace) {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  render().then(() => main().focus());
}

document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/console/')
    || url.pathname.startsWith('/console/assets/') || url.pathname === '/console/login' || a.target) return;
  if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
  e.preventDefault();
  if (url.pathname + url.search !== location.pathname + location.search) go(url.pathname + url.search);
});

window.addEventListener('popstate', render);

async function start() {
  try {
    if (!(await loadSession())) {
      toLogin();
      return;
    }
  } catch (err) {
    fill(main(), errorBox(err));
    return;
  }
  drawWho();
  await render();
  document.body.dataset.ready = 'true';
}

start();
