// The stream tail: the last records of the picked table's stream, with their images, read
// with DynamoDB Streams' own API (DescribeStream, GetShardIterator, GetRecords) every two
// seconds while this view is on screen.
import { streams } from './ddb_client.js';
import { unmarshall } from './dynamo_json.js';
import { el } from './format.js';

const POLL_MS = 2000;
const KEEP = 100;
let ctx;
let timer = null;
let visible = false;
let arn = null;
let iterators = new Map();  // shard id -> next iterator
let records = [];

function json(image) {
  return image ? el('pre', { class: 'json' }, JSON.stringify(unmarshall(image), null, 1)) : '';
}

function render() {
  document.querySelector('#stream-list tbody').replaceChildren(...records.map((r) => el('tr', {},
    el('td', {}, r.dynamodb.ApproximateCreationDateTime
      ? new Date(r.dynamodb.ApproximateCreationDateTime * 1000).toISOString().substring(11, 19) : ''),
    el('td', {}, r.eventName),
    el('td', {}, JSON.stringify(unmarshall(r.dynamodb.Keys))),
    el('td', {}, json(r.dynamodb.NewImage)),
    el('td', {}, json(r.dynamodb.OldImage)))));
}

async function readShards() {
  const { StreamDescription: d } = await streams('DescribeStream', { StreamArn: arn });
  for (const shard of d.Shards || []) {
    if (!iterators.has(shard.ShardId)) {
      const it = await streams('GetShardIterator', {
        StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON',
      });
      iterators.set(shard.ShardId, it.ShardIterator);
    }
  }
  let added = 0;
  for (const [shard, iterator] of iterators) {
    if (!iterator) continue;
    let next = iterator;
    // Drain what is there now (a closed shard ends with no NextShardIterator).
    for (let round = 0; next && round < 20; round++) {
      const page = await streams('GetRecords', { ShardIterator: next, Limit: 1000 });
      for (const r of page.Records || []) { records.unshift(r); added++; }
      next = page.NextShardIterator;
      if (!page.Records || page.Records.length === 0) break;
    }
    iterators.set(shard, next || null);
  }
  if (records.length > KEEP) records.length = KEEP;
  return added;
}

async function poll() {
  timer = null;
  if (!visible) return;
  const t = ctx.current();
  const d = t ? t.description.Table : null;
  const summary = document.getElementById('s-summary');
  if (!d || !d.LatestStreamArn || !(d.StreamSpecification && d.StreamSpecification.StreamEnabled)) {
    summary.textContent = t ? `${t.name} has no stream enabled` : 'pick a table';
  } else {
    try {
      if (arn !== d.LatestStreamArn) { arn = d.LatestStreamArn; iterators = new Map(); records = []; }
      await readShards();
      render();
      summary.textContent = `${d.TableName}: ${d.StreamSpecification.StreamViewType}, last ${records.length} record(s)`;
    } catch (e) {
      summary.textContent = e.message;
    }
  }
  if (visible) timer = setTimeout(poll, POLL_MS);
}

export function mount(c) {
  ctx = c;
  ctx.onTableChange(() => { arn = null; records = []; render(); });
  document.getElementById('s-clear').addEventListener('click', () => { records = []; render(); });
}

export function show() { visible = true; if (!timer) poll(); }
export function hide() { visible = false; clearTimeout(timer); timer = null; }
