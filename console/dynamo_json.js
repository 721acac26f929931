// DynamoDB JSON ({"S": "x"}, {"N": "1"}, ...) to plain JSON and back, as the SDKs'
// marshall/unmarshall do. Plain JSON cannot tell sets from lists or binary from strings:
// sets become lists, binary its base64 text.

export function unmarshallValue(v) {
  const [type, x] = Object.entries(v)[0];
  switch (type) {
    case 'S': return x;
    case 'N': {
      const n = Number(x);
      return String(n) === x ? n : x;  // keeps digits a double would lose, as text
    }
    case 'B': return x;
    case 'BOOL': return x;
    case 'NULL': return null;
    case 'L': return x.map(unmarshallValue);
    case 'M': return unmarshall(x);
    case 'SS': return [...x];
    case 'NS': return x.map(Number);
    case 'BS': return [...x];
    default: return x;
  }
}

export function unmarshall(item) {
  const out = {};
  for (const [k, v] of Object.entries(item || {})) out[k] = unmarshallValue(v);
  return out;
}

export function marshallValue(x) {
  if (x === null || x === undefined) return { NULL: true };
  if (typeof x === 'string') return { S: x };
  if (typeof x === 'number') return { N: String(x) };
  if (typeof x === 'boolean') return { BOOL: x };
  if (Array.isArray(x)) return { L: x.map(marshallValue) };
  if (typeof x === 'object') return { M: marshall(x) };
  throw new Error(`cannot store ${typeof x}`);
}

export function marshall(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj || {})) out[k] = marshallValue(v);
  return out;
}

// A key attribute's value typed as the schema says ("S", "N" or "B").
export function keyValue(type, text) {
  return { [type]: String(text) };
}

// One attribute value, short, for a results cell.
export function showValue(v) {
  if (v === undefined) return '';
  const [type, x] = Object.entries(v)[0];
  if (type === 'S' || type === 'N' || type === 'B') return x;
  if (type === 'BOOL') return String(x);
  if (type === 'NULL') return 'null';
  return JSON.stringify(unmarshallValue(v));
}
