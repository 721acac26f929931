// The Tables view: every table with its keys, capacity, indexes, stream, TTL, item count
// and size (GET /console/api/tables).
import { bytes, el } from './format.js';

let ctx;

function keys(schema, attributes) {
  const type = (name) => (attributes.find((a) => a.AttributeName === name) || {}).AttributeType || '?';
  return schema.map((k) => `${k.AttributeName} (${k.KeyType === 'HASH' ? 'partition' : 'sort'}, ${type(k.AttributeName)})`).join(', ');
}

function capacity(d) {
  const billing = d.BillingModeSummary && d.BillingModeSummary.BillingMode;
  if (billing === 'PAY_PER_REQUEST') return 'on demand';
  const p = d.ProvisionedThroughput || {};
  return `provisioned ${p.ReadCapacityUnits || 0} RCU / ${p.WriteCapacityUnits || 0} WCU`;
}

function indexes(t) {
  const d = t.description.Table;
  const attrs = d.AttributeDefinitions || [];
  const figures = Object.fromEntries(t.indexes.map((i) => [i.name, i]));
  const list = [];
  for (const [kind, group] of [['GSI', d.GlobalSecondaryIndexes], ['LSI', d.LocalSecondaryIndexes]]) {
    for (const i of group || []) {
      const f = figures[i.IndexName] || { item_count: 0, size_bytes: 0 };
      list.push(el('div', {}, el('b', {}, i.IndexName), ` ${kind}${i.IndexStatus ? ' ' + i.IndexStatus : ''}: `,
        keys(i.KeySchema, attrs), `, ${i.Projection ? i.Projection.ProjectionType : ''}, `,
        `${f.item_count} items, ${bytes(f.size_bytes)}`));
    }
  }
  return list.length ? list : ['none'];
}

function render() {
  const body = document.querySelector('#tables-list tbody');
  body.replaceChildren(...ctx.tables.map((t) => {
    const d = t.description.Table;
    const stream = d.StreamSpecification && d.StreamSpecification.StreamEnabled
      ? d.StreamSpecification.StreamViewType : 'off';
    const row = el('tr', { dataset: { table: t.name } },
      el('td', {}, el('b', {}, t.name), t.namespace ? el('div', { class: 'muted' }, t.namespace) : null),
      el('td', {}, d.TableStatus),
      el('td', {}, keys(d.KeySchema, d.AttributeDefinitions || [])),
      el('td', {}, capacity(d)),
      el('td', {}, ...indexes(t)),
      el('td', {}, stream),
      el('td', {}, t.ttl_attribute || 'off'),
      el('td', { class: 'num' }, t.item_count.toLocaleString('en-US')),
      el('td', { class: 'num' }, bytes(t.size_bytes)));
    row.addEventListener('click', () => { ctx.pick(t.name); location.hash = '#items'; });
    return row;
  }));
  document.getElementById('tables-summary').textContent = `${ctx.tables.length} table(s)`;
}

async function refresh() {
  try {
    await ctx.refreshTables();
    ctx.status('');
  } catch (e) {
    ctx.status(e.message);
  }
  render();
}

export function mount(c) {
  ctx = c;
  document.getElementById('tables-refresh').addEventListener('click', refresh);
  const original = ctx.refreshTables.bind(ctx);
  ctx.refreshTables = async () => { const t = await original(); render(); return t; };
}

export function show() { if (ctx.tables.length) refresh(); }
