// The packing station (/console/station): a scan field that keeps the focus (a barcode
// scanner types the id and Enter), the box to take, then one loading step at a time with its
// diagram (Enter or the right arrow for next, the left arrow for back), "Packed" (the same
// move as the WMS callback), the slip, and the next package waiting at the bench's warehouse.

import { get, post } from './api.js';
import { h, fill, errorBox, notice, badge, when } from './dom.js';

const WAREHOUSE_KEY = 'fulfilld.station.warehouse';
const PAPER_KEY = 'fulfilld.station.paper';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const enc = encodeURIComponent;

function stylesheet() {
  if (document.getElementById('station-css')) return;
  document.head.append(h('link', { id: 'station-css', rel: 'stylesheet', href: '/console/assets/station.css' }));
}

function remembered(key, fallback) {
  try { return localStorage.getItem(key) || fallback; } catch { return fallback; }
}

function remember(key, value) {
  try { localStorage.setItem(key, value); } catch { /* private mode: not remembered */ }
}

const num = (v) => String(Math.round(v * 100) / 100);
const size = (d, unit) => `${num(d.width)} × ${num(d.height)} × ${num(d.length)} ${unit}`;

export async function station(el) {
  stylesheet();
  const state = { warehouse: remembered(WAREHOUSE_KEY, ''), paper: remembered(PAPER_KEY, 'a4'), view: null };
  const scan = h('input', {
    id: 'scan', name: 'scan', autocomplete: 'off', spellcheck: 'false', autofocus: true,
    placeholder: 'pkg_… or order id', 'aria-describedby': 'station-keys',
  });
  const form = h('form', { id: 'station-scan', class: 'station-scan', role: 'search' },
    h('label', {}, 'Scan or type a package or order id', scan),
    h('button', { type: 'submit', class: 'primary' }, 'Open'));
  const warehouse = h('select', { id: 'station-warehouse', name: 'warehouse' }, h('option', { value: '' }, 'Loading…'));
  const paper = h('select', { id: 'station-paper', name: 'paper' },
    h('option', { value: 'a4' }, 'A4'), h('option', { value: 'letter' }, 'US letter'));
  paper.value = state.paper === 'letter' ? 'letter' : 'a4';
  const message = h('div', { id: 'station-message', 'aria-live': 'polite' });
  const work = h('section', { id: 'station-work', 'aria-label': 'Package' });
  const next = h('section', { id: 'station-next', 'aria-label': 'Next package' });
  fill(el, h('h1', {}, 'Packing station'),
    h('div', { class: 'station-bar' }, form,
      h('label', {}, 'Warehouse', warehouse), h('label', {}, 'Slip paper', paper)),
    next, message, work);
  const refocus = () => { if (el.isConnected) scan.focus(); };
  const say = (node) => fill(message, node);

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = scan.value.trim();
    scan.value = '';
    if (id) openScanned(id);
  });
  warehouse.addEventListener('change', () => {
    state.warehouse = warehouse.value;
    remember(WAREHOUSE_KEY, state.warehouse);
    offerNext();
    refocus();
  });
  paper.addEventListener('change', () => {
    state.paper = paper.value;
    remember(PAPER_KEY, state.paper);
    if (state.view) drawStep();
    refocus();
  });

  function onKey(e) {
    if (!el.isConnected) {
      document.removeEventListener('keydown', onKey);
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    const control = t.closest && t.closest('button, a, select, input, textarea');
    // A scanner's characters land in the scan field wherever the focus was left.
    if (e.key.length === 1 && !control) {
      scan.focus();
      return;
    }
    // A typed or scanned id is the form's (Enter submits it); other controls keep their keys.
    if (t === scan ? scan.value !== '' : control) return;
    if (!state.view) return;
    if (e.key === 'Enter' || e.key === 'ArrowRight') {
      e.preventDefault();
      move(1);
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      move(-1);
    }
  }
  document.addEventListener('keydown', onKey);

  async function openScanned(id) {
    say(h('p', { class: 'muted' }, `Looking up ${id}…`));
    try {
      if (id.startsWith('pkg_')) return await openPackage(id);
      let orderId = UUID.test(id) ? id : null;
      if (!orderId) {
        const found = await get(`/api/orders?q=${enc(id)}&limit=20`);
        const o = found.orders.find((x) => x.externalId === id);
        if (!o) throw new Error(`No package or order is called ${id}.`);
        orderId = o.id;
      }
      const { packages } = await get(`/api/packages?orderId=${enc(orderId)}&limit=200`);
      const open = packages.filter((p) => ['created', 'picking'].includes(p.status));
      const here = open.filter((p) => !state.warehouse || p.warehouseId === state.warehouse);
      const choice = here.length ? here : open;
      if (choice.length === 1) return await openPackage(choice[0].id);
      if (!choice.length) {
        throw new Error(packages.length ? `Order ${id} has no package waiting to be packed.` : `Order ${id} has no packages.`);
      }
      say(h('div', { class: 'notice', role: 'status' }, `Order ${id} has ${choice.length} packages to pack; choose one:`,
        h('ul', {}, choice.map((p) => h('li', {}, h('button', {
          type: 'button', class: 'station-choose', onclick: () => openPackage(p.id),
        }, `${p.id} (${p.boxId}, ${p.warehouseId})`))))));
      return undefined;
    } catch (err) {
      say(errorBox(err));
      return undefined;
    } finally {
      refocus();
    }
  }

  async function openPackage(id) {
    try {
      const [pkg, plan] = await Promise.all([
        get(`/api/packages/${enc(id)}`), get(`/api/packages/${enc(id)}/instructions`)]);
      state.view = { pkg, plan, at: 0 };
      const elsewhere = state.warehouse && pkg.warehouseId !== state.warehouse
        ? ` It belongs to warehouse ${pkg.warehouseId}, not ${state.warehouse}.` : '';
      const done = ['created', 'picking'].includes(pkg.status) ? '' : ` It is already ${pkg.status}.`;
      say(elsewhere || done ? h('div', { class: 'error', role: 'alert' }, `Package ${pkg.id} opened.${elsewhere}${done}`) : null);
      drawPackage();
      offerNext();
    } catch (err) {
      say(errorBox(err));
    } finally {
      refocus();
    }
  }

  function move(d) {
    const v = state.view;
    const at = Math.max(0, Math.min(v.plan.steps.length + 1, v.at + d));
    if (at === v.at) return;
    v.at = at;
    drawStep();
  }

  function drawPackage() {
    const { pkg, plan } = state.view;
    const back = h('button', { type: 'button', id: 'station-back', onclick: () => { move(-1); refocus(); } }, '← Back');
    const forward = h('button', { type: 'button', id: 'station-forward', onclick: () => { move(1); refocus(); } }, 'Next →');
    const packed = h('button', { type: 'button', id: 'station-packed', class: 'primary' }, 'Packed');
    packed.addEventListener('click', () => markPacked(packed));
    const slip = h('a', { id: 'station-slip', class: 'button', target: '_blank', rel: 'noopener' }, 'Print slip');
    fill(work,
      h('div', { class: 'station-head' },
        h('h2', {}, 'Package ', h('code', { id: 'station-package' }, pkg.id)),
        h('span', { id: 'station-status' }, badge(pkg.status)),
        h('span', { class: 'muted' }, `Box ${plan.boxId} · ${plan.steps.length} units · warehouse ${plan.warehouseId}`)),
      h('div', { class: 'station-grid' },
        h('figure', { class: 'station-figure' }, h('img', { id: 'station-diagram', alt: '' })),
        h('div', { class: 'station-text' },
          h('p', { id: 'station-step', class: 'station-step' }),
          h('div', { id: 'station-what', class: 'station-what' }),
          h('div', { class: 'bar' }, back, forward),
          h('div', { class: 'bar' }, packed, slip),
          h('p', { id: 'station-keys', class: 'muted' }, 'Enter or → next step, ← back. Scan another id at any time.'),
          // The offer of the next package moves beside the steps, leaving the height to the picture.
          next)));
    drawStep();
  }

  function drawStep() {
    const { pkg, plan, at } = state.view;
    const n = plan.steps.length;
    const unit = plan.lengthUnit;
    const img = work.querySelector('#station-diagram');
    const step = work.querySelector('#station-step');
    const what = work.querySelector('#station-what');
    const base = `/api/packages/${enc(pkg.id)}`;
    fitDiagram();
    work.querySelector('#station-slip').href = `${base}/slip?paper=${state.paper}`;
    work.querySelector('#station-back').disabled = at === 0;
    work.querySelector('#station-forward').disabled = at === n + 1;
    if (at === 0) {
      img.src = `${base}/diagram.svg?step=0`;
      img.alt = `The empty box ${plan.boxId}`;
      fill(step, `Take box ${plan.boxId}`);
      fill(what, h('p', {}, `Inside ${size(plan.boxDimensions, unit)} (width × height × length).`),
        h('p', {}, `${n} unit${n === 1 ? '' : 's'} go in, one step at a time.`));
    } else if (at <= n) {
      const s = plan.steps[at - 1];
      img.src = `${base}/diagram.svg?step=${at}`;
      img.alt = `Step ${at}: ${s.name} in its place`;
      fill(step, `Step ${at} of ${n}`);
      const flags = [
        s.orientation !== 'any' ? badge('this side up') : null,
        s.rotated ? badge('turned') : null,
        s.fragile ? badge('fragile') : null,
        s.hazmatClass ? badge(`hazmat class ${s.hazmatClass}`) : null,
      ];
      const on = s.restsOn.length ? `on step${s.restsOn.length > 1 ? 's' : ''} ${s.restsOn.join(', ')}` : 'on the floor of the box';
      fill(what,
        h('p', { class: 'station-unit' }, h('b', {}, s.name), ' ', h('code', {}, s.sku)),
        h('p', {}, `Put it ${on}: ${num(s.position.x)} ${unit} from the left, ${num(s.position.z)} ${unit} from the front, ${num(s.position.y)} ${unit} up.`),
        h('p', { class: 'muted' }, `It takes ${size(s.dimensions, unit)}.`),
        h('p', { class: 'station-flags' }, flags));
    } else {
      img.src = base + '/diagram.svg';
      img.alt = 'The packed box';
      fill(step, 'All units are in');
      fill(what, h('p', {}, 'Check the box against the picture, close it, then press Packed and print the slip.'));
    }
  }

  /** The diagram as tall as the window leaves below its top (at least 12em, in CSS). */
  function fitDiagram() {
    const img = work.querySelector('#station-diagram');
    if (!img) return;
    const top = img.getBoundingClientRect().top + window.scrollY;
    img.style.maxHeight = `${Math.max(200, window.innerHeight - top - 28)}px`;
  }

  function onResize() {
    if (el.isConnected) fitDiagram();
    else window.removeEventListener('resize', onResize);
  }
  window.addEventListener('resize', onResize);

  async function markPacked(button) {
    const { pkg } = state.view;
    button.disabled = true;
    try {
      const r = await post(`/api/fulfillment/packages/${enc(pkg.id)}/packed`);
      state.view.pkg = r.package;
      fill(work.querySelector('#station-status'), badge(r.package.status));
      if (r.event.outcome === 'applied') say(notice(`Package ${pkg.id} is packed.`));
      else say(h('div', { class: 'error', role: 'alert' }, `Package ${pkg.id} was not moved: ${r.event.note || r.event.outcome}.`));
      await offerNext();
    } catch (err) {
      say(errorBox(err));
    } finally {
      button.disabled = false;
      refocus();
    }
  }

  async function offerNext() {
    if (!state.warehouse) {
      fill(next, h('p', { class: 'muted' }, 'Choose the warehouse of this bench to be offered the next package.'));
      return;
    }
    try {
      const q = `warehouseId=${enc(state.warehouse)}&status=created&sort=oldest&limit=2`;
      const { packages, pagination } = await get(`/api/packages?${q}`);
      const current = state.view && state.view.pkg.id;
      const p = packages.find((x) => x.id !== current);
      if (!p) {
        fill(next, h('p', { id: 'station-next-none', class: 'muted' }, `Nothing else is waiting at ${state.warehouse}.`));
        return;
      }
      const open = h('button', { type: 'button', id: 'station-open-next' }, 'Open next');
      open.addEventListener('click', () => openPackage(p.id));
      fill(next, h('p', { class: 'station-next' }, h('b', {}, `Next at ${state.warehouse}: `),
        h('code', { id: 'station-next-id' }, p.id), ` box ${p.boxId}, waiting since ${when(p.createdAt)}`,
        ` (${pagination.total} created at ${state.warehouse} in all) `, open));
    } catch (err) {
      fill(next, errorBox(err));
    }
  }

  try {
    const { warehouses } = await get('/api/warehouses?limit=200');
    const ids = warehouses.map((w) => [w.id, `${w.id} — ${w.name}`]);
    if (state.warehouse && !ids.some(([id]) => id === state.warehouse)) ids.push([state.warehouse, state.warehouse]);
    fill(warehouse, h('option', { value: '' }, 'choose…'), ids.map(([v, t]) => h('option', { value: v }, t)));
    warehouse.value = state.warehouse;
  } catch (err) {
    fill(warehouse, h('option', { value: state.warehouse }, state.warehouse || 'none'));
    say(errorBox(err));
  }
  await offerNext();
  refocus();
  // The console focuses its main element after a navigation; the scan field wins.
  setTimeout(refocus, 0);
}
