// The console's entry: tabs (#tables, #items, #partitions, #stream, #triggers), the table
// picker, and the shared state each view reads. Each view module exports mount(ctx) and, for
// views that poll, show()/hide() so that nothing is fetched while a view is not on screen.
import { consoleApi } from './ddb_client.js';
import * as tablesView from './tables.js';
import * as itemsView from './items.js';
import * as partitionsView from './partitions.js';
import * as streamView from './stream.js';
import * as triggersView from './triggers.js';

const views = {
  tables: tablesView, items: itemsView, partitions: partitionsView, stream: streamView,
  triggers: triggersView,
};

const ctx = {
  tables: [],        // /console/api/tables' entries
  table: '',         // the picked table's name
  listeners: [],
  find(name) { return this.tables.find((t) => t.name === name); },
  current() { return this.find(this.table); },
  onTableChange(fn) { this.listeners.push(fn); },
  pick(name) {
    if (name === this.table) return;
    this.table = name;
    document.getElementById('table-select').value = name;
    const url = new URL(location.href);
    url.searchParams.set('table', name);
    history.replaceState(null, '', url);
    for (const fn of this.listeners) fn(name);
  },
  status(message) { document.getElementById('status').textContent = message || ''; },
  async refreshTables() {
    const { tables } = await consoleApi('tables');
    this.tables = tables;
    const select = document.getElementById('table-select');
    const keep = this.table || new URL(location.href).searchParams.get('table') || '';
    select.replaceChildren(new Option('(none)', ''), ...tables.map((t) => new Option(t.name, t.name)));
    const name = this.find(keep) ? keep : (tables[0] ? tables[0].name : '');
    select.value = name;
    this.pick(name);
    return tables;
  },
};

let active = null;

function route() {
  const tab = (location.hash || '#tables').substring(1);
  const name = views[tab] ? tab : 'tables';
  if (active === name) return;
  if (active && views[active].hide) views[active].hide();
  for (const t of Object.keys(views)) {
    document.getElementById(`tab-${t}`).hidden = t !== name;
    document.querySelector(`nav a[data-tab="${t}"]`).classList.toggle('active', t === name);
  }
  active = name;
  if (views[name].show) views[name].show();
}

document.getElementById('table-select').addEventListener('change', (e) => ctx.pick(e.target.value));
window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => {
  if (!active || !views[active].show) return;
  if (document.hidden) views[active].hide?.();
  else views[active].show();
});

for (const view of Object.values(views)) view.mount(ctx);
route();
ctx.refreshTables().catch((e) => ctx.status(e.message));
