// The item browser: Query (partition key and sort-key condition) on the table or any of its
// indexes, Scan with a filter, paging, and an editor of one item in plain or DynamoDB JSON
// that puts or deletes it. Everything goes through the DynamoDB API.
import { ddb } from './ddb_client.js';
import { marshall, unmarshall, showValue, keyValue } from './dynamo_json.js';
import { el } from './format.js';

let ctx;
let lastKey = null;    // LastEvaluatedKey of the page shown
let request = null;    // the request of the page shown, without ExclusiveStartKey
let editing = null;    // the item in the editor (DynamoDB JSON), or null for a new one
const $ = (id) => document.getElementById(id);

function description() { const t = ctx.current(); return t ? t.description.Table : null; }

function attributeType(d, name) {
  const a = (d.AttributeDefinitions || []).find((x) => x.AttributeName === name);
  return a ? a.AttributeType : 'S';
}

// The key schema of the table or of the picked index.
function keySchema() {
  const d = description();
  if (!d) return [];
  const index = $('q-index').value;
  if (!index) return d.KeySchema;
  const all = [...(d.GlobalSecondaryIndexes || []), ...(d.LocalSecondaryIndexes || [])];
  const i = all.find((x) => x.IndexName === index);
  return i ? i.KeySchema : d.KeySchema;
}

function onTable() {
  const d = description();
  const select = $('q-index');
  const options = [new Option('the table', '')];
  if (d) {
    for (const i of [...(d.GlobalSecondaryIndexes || []), ...(d.LocalSecondaryIndexes || [])]) {
      options.push(new Option(`index ${i.IndexName}`, i.IndexName));
    }
  }
  select.replaceChildren(...options);
  onIndex();
  document.querySelector('#items-list thead').replaceChildren();
  document.querySelector('#items-list tbody').replaceChildren();
  $('q-summary').textContent = '';
  $('q-next').disabled = true;
  closeEditor();
}

function onIndex() {
  const schema = keySchema();
  const hash = schema.find((k) => k.KeyType === 'HASH');
  const range = schema.find((k) => k.KeyType === 'RANGE');
  $('q-pk-name').textContent = hash ? hash.AttributeName : 'pk';
  $('q-sk-name').textContent = range ? range.AttributeName : '(no sort key)';
  $('q-sk-op').disabled = !range;
  $('q-sk').disabled = !range;
}

function parseJson(text, what) {
  if (!text.trim()) return undefined;
  try { return JSON.parse(text); } catch (e) { throw new Error(`${what} is not JSON: ${e.message}`); }
}

function buildRequest() {
  const d = description();
  if (!d) throw new Error('pick a table first');
  const mode = document.querySelector('input[name="q-mode"]:checked').value;
  const req = { TableName: d.TableName, Limit: Number($('q-limit').value) || 25 };
  if ($('q-index').value) req.IndexName = $('q-index').value;
  const names = { ...(parseJson($('q-names').value, 'Names') || {}) };
  const values = marshall(parseJson($('q-values').value, 'Values') || {});
  if (mode === 'query') {
    const schema = keySchema();
    const hash = schema.find((k) => k.KeyType === 'HASH');
    const range = schema.find((k) => k.KeyType === 'RANGE');
    if ($('q-pk').value === '') throw new Error('Query needs the partition key value');
    names['#pk'] = hash.AttributeName;
    values[':pk'] = keyValue(attributeType(d, hash.AttributeName), $('q-pk').value);
    let condition = '#pk = :pk';
    const op = $('q-sk-op').value;
    if (range && op) {
      const type = attributeType(d, range.AttributeName);
      names['#sk'] = range.AttributeName;
      values[':sk'] = keyValue(type, $('q-sk').value);
      if (op === 'begins_with') condition += ' AND begins_with(#sk, :sk)';
      else if (op === 'between') {
        values[':sk2'] = keyValue(type, $('q-sk2').value);
        condition += ' AND #sk BETWEEN :sk AND :sk2';
      } else condition += ` AND #sk ${op} :sk`;
    }
    req.KeyConditionExpression = condition;
  }
  if ($('q-filter').value.trim()) req.FilterExpression = $('q-filter').value.trim();
  if (Object.keys(names).length) req.ExpressionAttributeNames = names;
  if (Object.keys(values).length) req.ExpressionAttributeValues = values;
  return { operation: mode === 'query' ? 'Query' : 'Scan', req };
}

function render(items) {
  const d = description();
  const keyNames = d.KeySchema.map((k) => k.AttributeName);
  const columns = [...keyNames];
  for (const item of items) for (const k of Object.keys(item)) if (!columns.includes(k)) columns.push(k);
  document.querySelector('#items-list thead').replaceChildren(el('tr', {}, ...columns.map((c) => el('th', {}, c))));
  document.querySelector('#items-list tbody').replaceChildren(...items.map((item) => {
    const row = el('tr', {}, ...columns.map((c) => el('td', {}, showValue(item[c]))));
    row.addEventListener('click', () => openEditor(item));
    return row;
  }));
}

async function run(page) {
  try {
    if (!page) {
      request = buildRequest();
      lastKey = null;
    }
    const req = { ...request.req };
    if (page && lastKey) req.ExclusiveStartKey = lastKey;
    const started = performance.now();
    const result = await ddb(request.operation, req);
    const ms = performance.now() - started;
    lastKey = result.LastEvaluatedKey || null;
    render(result.Items || []);
    $('q-next').disabled = !lastKey;
    $('q-summary').textContent = `${request.operation}: ${result.Count} item(s) (${result.ScannedCount} scanned) in ${ms.toFixed(0)} ms${lastKey ? ', more pages' : ''}`;
    ctx.status('');
  } catch (e) {
    $('q-summary').textContent = e.message;
  }
}

function format() { return document.querySelector('input[name="e-format"]:checked').value; }

function showEditorText(item) {
  $('editor-text').value = JSON.stringify(format() === 'plain' ? unmarshall(item) : item, null, 2);
}

function editorItem() {
  const parsed = JSON.parse($('editor-text').value);
  return format() === 'plain' ? marshall(parsed) : parsed;
}

function openEditor(item) {
  editing = item;
  $('editor').hidden = false;
  $('editor-title').textContent = item ? 'Item' : 'New item';
  $('e-delete').disabled = !item;
  $('e-message').textContent = '';
  showEditorText(item || {});
}

function closeEditor() { editing = null; $('editor').hidden = true; }

async function save() {
  try {
    const item = editorItem();
    await ddb('PutItem', { TableName: description().TableName, Item: item });
    editing = item;
    $('e-delete').disabled = false;
    $('e-message').textContent = 'saved';
    if (request) run(false);
  } catch (e) {
    $('e-message').textContent = e.message;
  }
}

async function remove() {
  try {
    const d = description();
    const key = {};
    for (const k of d.KeySchema) key[k.AttributeName] = editing[k.AttributeName];
    await ddb('DeleteItem', { TableName: d.TableName, Key: key });
    $('e-message').textContent = 'deleted';
    closeEditor();
    if (request) run(false);
  } catch (e) {
    $('e-message').textContent = e.message;
  }
}

export function mount(c) {
  ctx = c;
  ctx.onTableChange(onTable);
  $('q-index').addEventListener('change', onIndex);
  $('q-sk-op').addEventListener('change', () => { $('q-sk2').hidden = $('q-sk-op').value !== 'between'; });
  for (const r of document.querySelectorAll('input[name="q-mode"]')) {
    r.addEventListener('change', () => { $('q-key-row').hidden = r.value === 'scan' && r.checked; });
  }
  $('query-form').addEventListener('submit', (e) => { e.preventDefault(); run(false); });
  $('q-next').addEventListener('click', () => run(true));
  $('q-new').addEventListener('click', () => openEditor(null));
  $('e-close').addEventListener('click', closeEditor);
  $('e-save').addEventListener('click', save);
  $('e-delete').addEventListener('click', remove);
  for (const r of document.querySelectorAll('input[name="e-format"]')) {
    r.addEventListener('change', () => {
      // Re-render what is in the box in the other form (it was parsed in the previous one).
      try {
        const other = r.value === 'plain' ? 'dynamodb' : 'plain';
        const parsed = JSON.parse($('editor-text').value);
        const item = other === 'plain' ? marshall(parsed) : parsed;
        showEditorText(item);
      } catch (e) {
        $('e-message').textContent = e.message;
      }
    });
  }
}
