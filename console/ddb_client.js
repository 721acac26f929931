// Calls to the server: the DynamoDB API (POST /, as any SDK sends it) and the console's own
// JSON endpoints (GET /console/api/...). Same origin only.

// Under --auth off the server reads region and access key leniently from the header; it
// must be present (as for any SDK). Under --auth verify such requests are refused.
const AUTHORIZATION =
  'AWS4-HMAC-SHA256 Credential=console/20260101/us-east-1/dynamodb/aws4_request, ' +
  'SignedHeaders=host, Signature=0';

export class DynamoError extends Error {
  constructor(type, message) {
    super(`${type}: ${message}`);
    this.type = type;
  }
}

async function post(prefix, operation, body) {
  const response = await fetch('/', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `${prefix}.${operation}`,
      Authorization: AUTHORIZATION,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try { json = JSON.parse(text); } catch { json = { message: text }; }
  if (!response.ok) {
    const type = String(json.__type || `HTTP ${response.status}`).split('#').pop();
    throw new DynamoError(type, json.message || json.Message || '');
  }
  return json;
}

// One DynamoDB operation, e.g. ddb('Query', {...}); throws DynamoError.
export function ddb(operation, body) {
  return post('DynamoDB_20120810', operation, body);
}

// One DynamoDB Streams operation (DescribeStream, GetShardIterator, GetRecords).
export function streams(operation, body) {
  return post('DynamoDBStreams_20120810', operation, body);
}

// GET /console/api/<path> as JSON.
export async function consoleApi(path) {
  const response = await fetch(`/console/api/${path}`, { cache: 'no-store' });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error || `HTTP ${response.status}`);
  return json;
}
