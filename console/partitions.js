// The live partition view: per partition of the table and of each GSI, the read and write
// units consumed per second against its limits over the last minutes (a heat map:
// partitions x time), throttles and their reasons, burst credit, splits as they happen, hot
// keys, and the GSI applier's lag and backlog.
// The server sends cumulative figures (GET /console/api/partitions, the figures /metrics
// shows) and keeps no history: rates and the history live here, from successive snapshots
// polled once a second while this view is on screen.
import { consoleApi } from './ddb_client.js';
import { bytes, clock, el, units } from './format.js';

const POLL_MS = 1000;
const KEEP_SECONDS = 300;
let ctx;
let timer = null;
let visible = false;
let history = new Map();  // resource name -> [{t, parts: [...]}], oldest first
let previous = new Map(); // resource name -> last raw snapshot (for deltas)
const events = [];

// Scans are charged to no key ("").
function keyText(key) { return key === '' ? '(scans)' : key; }

function resourceName(r) { return r.index ? `${r.table} / ${r.index}` : r.table; }

// Rates between two snapshots of one resource, per partition of the newer one. A partition
// that a split created starts from zero, so its first rate is what it consumed since.
function sample(prev, cur, dt) {
  const before = new Map((prev ? prev.partitions : []).map((p) => [p.start, p]));
  return cur.partitions.map((p) => {
    const b = before.get(p.start);
    const d = (field) => Math.max(0, p[field] - (b && b[field] <= p[field] ? b[field] : 0));
    const rr = d('consumed_read_units') / dt;
    const wr = d('consumed_write_units') / dt;
    const rl = p.read_limit || 3000;
    const wl = p.write_limit || 1000;
    return {
      start: p.start, end: p.end, rr, wr, rl, wl,
      rt: d('read_throttles'), wt: d('write_throttles'),
      util: Math.max(rr / rl, wr / wl),
    };
  });
}

function color(util) {
  const stops = [[0, [238, 241, 245]], [0.5, [245, 179, 66]], [1, [215, 48, 31]]];
  const u = Math.min(1, Math.max(0, util));
  let i = 0;
  while (i < stops.length - 2 && u > stops[i + 1][0]) i++;
  const [u0, c0] = stops[i];
  const [u1, c1] = stops[i + 1];
  const f = (u - u0) / (u1 - u0);
  const c = c0.map((x, k) => Math.round(x + (c1[k] - x) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function drawHeatmap(canvas, samples, current, seconds) {
  const w = canvas.clientWidth || 800;
  const h = canvas.clientHeight || 160;
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fafafa';
  g.fillRect(0, 0, w, h);
  const rows = current.length;
  if (!rows) return;
  const cellW = w / seconds;
  const cellH = h / rows;
  const now = samples.length ? samples[samples.length - 1].t : 0;
  for (const [k, s] of samples.entries()) {
    // A sample covers the time since the one before it, so that jitter in the polls leaves
    // no gaps.
    const since = k > 0 ? samples[k - 1].t : s.t - POLL_MS;
    const age = (now - s.t) / 1000;
    if (age >= seconds) continue;
    const x = w - ((now - since) / 1000) * cellW;
    const width = Math.ceil(((s.t - since) / 1000) * cellW) + 1;
    for (let i = 0; i < rows; i++) {
      // The partition of that moment holding this row's first token (ranges only split).
      const start = current[i].start;
      const p = s.parts.find((q) => q.start <= start && start <= q.end);
      if (!p) continue;
      const h = Math.max(1, cellH - (rows < 40 ? 1 : 0));
      g.fillStyle = color(p.util);
      g.fillRect(x, i * cellH, width, h);
      if (p.rt + p.wt > 0) {  // throttled: a black band across the cell's middle
        g.fillStyle = '#000';
        g.fillRect(x, i * cellH + h * 0.35, width, Math.max(1, h * 0.3));
      }
    }
  }
  if (cellH >= 11) {  // row labels: the partition's number in the table below
    g.font = '10px system-ui, sans-serif';
    g.fillStyle = '#556';
    g.textBaseline = 'middle';
    for (let i = 0; i < rows; i++) g.fillText(`#${i}`, 3, i * cellH + cellH / 2);
  }
}

function event(text) {
  events.unshift({ t: Date.now(), text });
  if (events.length > 200) events.length = 200;
  document.getElementById('p-events').replaceChildren(...events.map((e) => el('li', {}, `${clock(e.t)} ${e.text}`)));
}

function burst(tokens, limit, simulated) {
  if (!simulated) return '-';
  return `${units(tokens)} (${limit ? (tokens / limit).toFixed(0) : 0} s)`;
}

function renderResource(r, samples, seconds) {
  const name = resourceName(r);
  const last = samples.length ? samples[samples.length - 1] : null;
  const parts = last ? last.parts : [];
  const rr = parts.reduce((a, p) => a + p.rr, 0);
  const wr = parts.reduce((a, p) => a + p.wr, 0);
  const thr = parts.reduce((a, p) => a + p.rt + p.wt, 0);
  const hotRates = new Map();
  const prevHot = r._prevHot || [];
  for (const k of r.hot_keys) {
    const before = prevHot.find((x) => x.key === k.key);
    hotRates.set(k.key, before ? Math.max(0, k.units - before.units) : 0);
  }
  let box = document.querySelector(`.resource[data-resource="${CSS.escape(name)}"]`);
  if (!box) {
    box = el('div', { class: 'resource', dataset: { resource: name } },
      el('h3', {}, name), el('div', { class: 'figures' }),
      el('canvas', { class: 'heatmap', 'aria-label': `heat map of ${name}` }),
      el('div', { class: 'muted axis' }, 'rows: partitions in token order, as in the table below; ' +
        'columns: seconds, now at the right; colour: units per second against the partition\'s limit'),
      el('div', { class: 'hotkeys' }), el('table', { class: 'grid parts' }));
    document.getElementById('p-resources').append(box);
  }
  box.querySelector('.figures').replaceChildren(
    el('span', {}, r.on_demand ? 'on demand' : 'provisioned', r.simulated ? ', simulated capacity' : ', capacity not simulated (no throttles)'),
    el('span', {}, 'read ', el('b', {}, units(rr)), ` / ${units(r.read_limit)} RCU/s`),
    el('span', {}, 'write ', el('b', {}, units(wr)), ` / ${units(r.write_limit)} WCU/s`),
    el('span', {}, 'partitions ', el('b', {}, r.partitions.length), `, splits ${r.splits}`),
    el('span', { class: thr ? 'warn' : '' }, `throttles ${r.read_throttles} read, ${r.write_throttles} write (${thr}/s now)`));
  drawHeatmap(box.querySelector('canvas'), samples, r.partitions, seconds);
  const hot = r.hot_keys.slice(0, 5);
  box.querySelector('.hotkeys').replaceChildren(el('b', {}, 'Hot keys: '),
    hot.length ? el('ol', { class: 'hot-keys' }, ...hot.map((k) =>
      el('li', { dataset: { key: k.key } }, `${keyText(k.key)}: ${units(hotRates.get(k.key) || 0)} units/s, ${units(k.units)} total`)))
      : el('span', { class: 'muted' }, 'none yet'));
  const rows = r.partitions.map((p, i) => {
    const s = parts.find((q) => q.start === p.start) || { rr: 0, wr: 0 };
    const keyRange = p.read_key_range_throttles + p.write_key_range_throttles;
    const capacity = p.read_throttles + p.write_throttles - keyRange;
    return el('tr', {},
      el('td', { class: 'num' }, i),
      el('td', {}, `${p.start.substring(0, 4)}..${p.end.substring(0, 4)}`),
      el('td', { class: 'num' }, p.items.toLocaleString('en-US')),
      el('td', { class: 'num' }, bytes(p.bytes)),
      el('td', { class: `num ${s.rr > p.read_limit ? 'warn' : ''}` }, `${units(s.rr)} / ${units(p.read_limit)}`),
      el('td', { class: `num ${s.wr > p.write_limit ? 'warn' : ''}` }, `${units(s.wr)} / ${units(p.write_limit)}`),
      el('td', { class: `num ${keyRange + capacity ? 'warn' : ''}` }, `${p.read_throttles} / ${p.write_throttles}`),
      el('td', {}, keyRange + capacity ? `key range ${keyRange}, capacity ${capacity}` : ''),
      el('td', { class: 'num' }, burst(p.read_tokens, p.read_limit, r.simulated)),
      el('td', { class: 'num' }, burst(p.write_tokens, p.write_limit, r.simulated)),
      el('td', {}, p.hot_keys.map((k) => `${keyText(k.key)} (${units(k.units)})`).join(', ')));
  });
  box.querySelector('.parts').replaceChildren(
    el('thead', {}, el('tr', {}, ...['#', 'tokens', 'items', 'size', 'RCU/s / limit', 'WCU/s / limit',
      'throttles r / w', 'reasons', 'read credit', 'write credit', 'hot keys'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows));
}

async function poll() {
  timer = null;
  const started = performance.now();
  const table = ctx.table;
  if (!visible) return;
  if (!table) {
    document.getElementById('p-summary').textContent = 'pick a table';
  } else {
    try {
      const snap = await consoleApi(`partitions?table=${encodeURIComponent(table)}`);
      if (table !== ctx.table) return schedule(started);
      const seconds = Number(document.getElementById('p-window').value);
      const names = new Set();
      for (const r of snap.resources) {
        const name = resourceName(r);
        names.add(name);
        const prev = previous.get(name);
        const dt = prev ? Math.max(0.001, (snap.time_ms - prev.time_ms) / 1000) : 1;
        const samples = history.get(name) || [];
        if (prev) {
          samples.push({ t: snap.time_ms, parts: sample(prev, r, dt) });
          if (r.partitions.length > prev.partitions.length || r.splits > prev.splits) {
            const old = new Set(prev.partitions.map((p) => p.start));
            const fresh = r.partitions.filter((p) => !old.has(p.start)).map((p) => p.start.substring(0, 4));
            event(`${name}: split, now ${r.partitions.length} partitions (new range at ${fresh.join(', ')})`);
          }
          const dr = r.read_throttles - prev.read_throttles;
          const dw = r.write_throttles - prev.write_throttles;
          if (dr > 0 || dw > 0) event(`${name}: throttled ${dr} read, ${dw} write`);
          r._prevHot = prev.hot_keys;
        }
        while (samples.length && snap.time_ms - samples[0].t > KEEP_SECONDS * 1000) samples.shift();
        history.set(name, samples);
        r.time_ms = snap.time_ms;
        previous.set(name, r);
        renderResource(r, samples, seconds);
      }
      for (const box of document.querySelectorAll('#p-resources .resource')) {
        if (!names.has(box.dataset.resource)) box.remove();
      }
      document.getElementById('p-summary').textContent =
        `${table}: ${snap.resources.length} resource(s), updated ${clock(snap.time_ms)}; ` +
        `GSI backlog ${snap.gsi_pending_changes} change(s), lag ${snap.gsi_lag_ms} ms`;
    } catch (e) {
      document.getElementById('p-summary').textContent = e.message;
    }
  }
  schedule(started);
}

// The next poll POLL_MS after this one began: a steady 1 Hz, however long a poll takes.
function schedule(started) {
  if (!visible || timer) return;
  timer = setTimeout(poll, Math.max(0, POLL_MS - (performance.now() - started)));
}

function reset() {
  history = new Map();
  previous = new Map();
  document.getElementById('p-resources').replaceChildren();
}

export function mount(c) {
  ctx = c;
  ctx.onTableChange(() => { reset(); if (visible) { clearTimeout(timer); timer = null; poll(); } });
}

export function show() {
  visible = true;
  if (!timer) poll();
}

export function hide() {
  visible = false;
  clearTimeout(timer);
  timer = null;
}
