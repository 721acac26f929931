// The event source mappings (docs/triggers.md): each mapping's state, settings, last result
// and its poller's figures (invocations, errors, retries, iterator age), from
// /console/api/triggers every two seconds while this view is on screen.
import { consoleApi } from './ddb_client.js';
import { el } from './format.js';

const POLL_MS = 2000;
let timer = null;
let visible = false;

// "arn:aws:dynamodb:<region>:<account>:table/<table>/stream/<label>" -> "<table>".
function tableOf(arn) {
  const m = /:table\/([^/]+)\/stream\//.exec(arn);
  return m ? m[1] : arn;
}

function render(mappings) {
  document.getElementById('t-summary').textContent =
    mappings.length ? `${mappings.length} mapping(s)` : 'no event source mappings';
  document.querySelector('#trigger-list tbody').replaceChildren(...mappings.map((m) => el('tr', {},
    el('td', {}, m.function),
    el('td', {}, tableOf(m.eventSourceArn)),
    el('td', {}, m.state),
    el('td', {}, `${m.batchSize}` + (m.parallelizationFactor > 1 ? ` x${m.parallelizationFactor}` : '') +
      (m.tumblingWindowInSeconds > 0 ? `, window ${m.tumblingWindowInSeconds} s` : '')),
    el('td', { class: 'num' }, String(m.invocations)),
    el('td', { class: 'num' }, String(m.errors)),
    el('td', { class: 'num' }, String(m.retries)),
    el('td', { class: 'num' }, `${m.iteratorAgeMs} ms`),
    el('td', {}, m.lastProcessingResult),
    el('td', {}, m.uuid))));
}

async function poll() {
  timer = null;
  if (!visible) return;
  try {
    const { mappings } = await consoleApi('triggers');
    render(mappings);
  } catch (e) {
    document.getElementById('t-summary').textContent = e.message;
  }
  if (visible) timer = setTimeout(poll, POLL_MS);
}

export function mount() {}
export function show() { visible = true; if (!timer) poll(); }
export function hide() { visible = false; clearTimeout(timer); timer = null; }
