// check.mjs — ajv as the oracle of tests/test_schema_ajv.c.
// Usage: node tests/ajv/check.mjs SCHEMA.json INSTANCES.txt
// INSTANCES.txt: one instance a line, "W TEXT" (an instance gcg generated) or
// "M I TEXT" (a mutant of line I), TEXT being the instance's bytes as a JSON
// string. Prints one word a line: valid, invalid, notjson (JSON.parse fails:
// not a JSON text at all) or skip (a mutant whose object keys, in order,
// differ from its original's: gcg accepts properties only in schema order,
// so such a mutant says nothing about the schema). Formats are asserted
// (ajv-formats, full mode); the draft follows $schema.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const schema = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const draft = String(schema.$schema || '');
const Cls = draft.includes('draft-04') ? require('ajv-draft-04')
  : draft.includes('draft-07') || draft.includes('draft-06') ? require('ajv').default
  : require('ajv/dist/2020').default;
const ajv = new Cls({ strict: false, validateFormats: true });
require('ajv-formats')(ajv, { mode: 'full' });
const validate = ajv.compile(schema);

const keys = (v) => Array.isArray(v) ? v.map(keys) : v && typeof v === 'object'
  ? Object.keys(v).map((k) => [k, keys(v[k])]) : null;
const lines = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter(Boolean);
const parsed = [], out = [];
for (const line of lines) {
  const m = /^(W|M (\d+)) (.*)$/.exec(line);
  const text = JSON.parse(m[3]);
  let data, ok = true;
  try { data = JSON.parse(text); } catch { ok = false; }
  parsed.push(ok ? { data } : null);
  if (!ok) { out.push('notjson'); continue; }
  if (m[2] !== undefined) {
    const orig = parsed[Number(m[2])];
    // duplicate keys collapse in JSON.parse: compare the text's key count too
    const dup = (text.match(/"\s*:/g) || []).length !== JSON.stringify(data).split(/"\s*:/).length - 1;
    if (!orig || dup || JSON.stringify(keys(orig.data)) !== JSON.stringify(keys(data))) { out.push('skip'); continue; }
  }
  out.push(validate(data) ? 'valid' : 'invalid');
}
process.stdout.write(out.join('\n') + '\n');
