// maskbench_tok.mjs — tokenizes the valid instances of maskbench_prep.py's
// lines with the Llama 3 JS tokenizer and writes the job file gcg_maskbench reads:
//   F NAME             a MaskBench file
//   E MESSAGE          the file could not be read (no S/V/I lines follow)
//   S HEX              the schema text
//   V HEX IDS...       a valid instance: its bytes, then its token ids
//   O HEX              after a V line: the instance with keys in schema order
//   I HEX              an invalid instance: its bytes
// A valid instance whose ids do not turn back into exactly its bytes is
// written with no ids (checked at byte level only) and counted.
// Usage: node bench/maskbench_tok.mjs TOKENIZER_DIR < jobs.jsonl > jobs.txt
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const cache = process.argv[2];
const main = path.join(cache, 'tokenizers', 'node_modules', '@lenml', 'tokenizer-llama3', 'dist', 'main.mjs');
if (!fs.existsSync(main)) {
  console.error(`maskbench_tok: no Llama 3 tokenizer under ${cache} (run bench/fetch_tokenizers.sh llama3)`);
  process.exit(1);
}
const tok = (await import(pathToFileURL(main).href)).fromPreTrained();
const hex = (s) => Buffer.from(s, 'utf8').toString('hex');
let untokenized = 0;
const out = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line) continue;
  const row = JSON.parse(line);
  out.push(`F ${row.file}`);
  if (row.error) { out.push(`E ${row.error.replace(/\s+/g, ' ')}`); continue; }
  out.push(`S ${hex(row.schema)}`);
  for (const t of row.tests) {
    if (!t.valid) { out.push(`I ${hex(t.text)}`); continue; }
    const ids = tok.encode(t.text, { add_special_tokens: false });
    const back = tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    if (back !== t.text) { untokenized++; out.push(`V ${hex(t.text)}`); } else out.push(`V ${hex(t.text)} ${ids.join(' ')}`);
    if (t.ordered) out.push(`O ${hex(t.ordered)}`);
  }
}
process.stdout.write(out.join('\n') + '\n');
if (untokenized) console.error(`maskbench_tok: ${untokenized} valid instances without an exact token round trip`);
