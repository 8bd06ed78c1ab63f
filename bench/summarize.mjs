// summarize.mjs — merge gcg_bench JSON reports into one and print a summary.
//
// Usage: node bench/summarize.mjs OUT.json REPORT.json...
//   OUT.json gets {"workloads": [every report's workloads, in order], "machine": the first
//   report's machine, "compile_corpus": [every gcg_compile_corpus summary]}; stdout gets one
//   line per workload (latencies in microseconds, the median over repeats; for a batch-only
//   workload, the wall time of a whole batch step), the per-step minima, the compile
//   workloads, and the targets checked on the headline workload.
import fs from 'node:fs';

const TARGETS = { mask_p999: 20e3, mask_max: 50e3, commit_p999: 5e3, compile_s: 2 };
// The engine's own tail: per-step minima over repeats (host noise removed).
const MIN_TARGETS = { mask_p999: 5e3, mask_max: 20e3, commit_p999: 2e3 };

function merge(files) {
  const out = { workloads: [], machine: null, compile_corpus: [] };
  for (const f of files) {
    const r = JSON.parse(fs.readFileSync(f, 'utf8'));
    if (r.compile_corpus) out.compile_corpus.push(r.compile_corpus);
    out.workloads.push(...(r.workloads ?? []));
    out.machine ??= r.machine ?? null;
  }
  return out;
}

const us = (ns) => (ns / 1000).toFixed(2).padStart(10);

function table(ws) {
  const head = 'workload'.padEnd(40) + 'steps'.padStart(9) +
    ['mask p50', 'p99', 'p99.9', 'max'].map((h) => h.padStart(10)).join('') + 'commit p99.9'.padStart(14) +
    'bruteforce'.padStart(12) + 'fails'.padStart(7);
  console.log('\n' + head + '\n' + '-'.repeat(head.length));
  for (const w of ws) {
    const bf = w.bruteforce_ratio == null ? '-' : w.bruteforce_ratio.toFixed(0) + 'x';
    console.log(w.name.padEnd(40) + String(w.steps).padStart(9) + '  ' + us(w.mask_ns.p50) + us(w.mask_ns.p99) +
      us(w.mask_ns.p999) + us(w.mask_ns.max) + '    ' + us(w.commit_ns.p999) + bf.padStart(12) +
      String(w.failures.total).padStart(7) + (w.batch_only ? `  (batch of ${w.batch.batch}: wall time per step)` : '') +
      (w.wide_spread ? '  (noisy)' : ''));
  }
}

function minima(ws) {
  const head = 'per-step minimum over repeats'.padEnd(40) + ['mask p50', 'p99', 'p99.9', 'max'].map((h) => h.padStart(10)).join('') +
    'commit p99.9'.padStart(14) + 'max'.padStart(10);
  console.log('\n' + head + '\n' + '-'.repeat(head.length));
  for (const w of ws) {
    if (!w.mask_ns_min) continue;
    const m = w.mask_ns_min, c = w.commit_ns_min;
    console.log(w.name.padEnd(40) + '  ' + us(m.p50) + us(m.p99) + us(m.p999) + us(m.max) + '    ' + us(c.p999) + us(c.max));
  }
}

function corpora(cs) {
  for (const c of cs) {
    const o = c.outcomes;
    const fails = Object.entries(o).filter(([k, v]) => k !== 'ok' && v > 0).map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`\ncompile workload ${c.dir}: ${c.grammars} grammars, ${o.ok} compiled` + (fails ? ` (${fails})` : '') +
      `, ${c.wall_s.toFixed(0)} s in all`);
    const row = (what, x, f) => console.log('  ' + what.padEnd(24) + ['p50', 'p90', 'p99', 'max'].map((k) => f(x[k]).padStart(10)).join(''));
    console.log('  ' + ''.padEnd(24) + ['p50', 'p90', 'p99', 'max'].map((h) => h.padStart(10)).join(''));
    row('compile (s)', c.compile_s, (v) => v.toFixed(3));
    row('artifact (KiB)', c.artifact_bytes, (v) => (v / 1024).toFixed(0));
    row('peak RSS (MiB)', c.peak_rss_kib, (v) => (v / 1024).toFixed(1));
    row('peak - before (MiB)', c.peak_minus_before_kib, (v) => (v / 1024).toFixed(1));
  }
}

function targets(ws) {
  const w = ws.find((x) => x.name.endsWith('-docs') && x.grammar === 'json') || ws[0];
  if (!w) return;
  const checks = [
    ['mask p99.9', w.mask_ns.p999, TARGETS.mask_p999, 'ns'],
    ['mask max', w.mask_ns.max, TARGETS.mask_max, 'ns'],
    ['commit p99.9', w.commit_ns.p999, TARGETS.commit_p999, 'ns'],
    ['compile', w.compile_s, TARGETS.compile_s, 's'],
  ];
  if (w.mask_ns_min) {
    checks.push(['min mask p99.9', w.mask_ns_min.p999, MIN_TARGETS.mask_p999, 'ns'],
      ['min mask max', w.mask_ns_min.max, MIN_TARGETS.mask_max, 'ns'],
      ['min commit p99.9', w.commit_ns_min.p999, MIN_TARGETS.commit_p999, 'ns']);
  }
  /* the batch API: B = 64 on 2 threads, per-step minima */
  for (const x of ws) {
    const b = (x.batch_api || []).find((r) => r.mode === 'batch' && r.batch === 64 && r.threads === 2);
    if (b && b.target_p999_ns != null && b.step_ns_min)
      checks.push([`batch 64x2 p99.9 (${x.name})`, b.step_ns_min.p999, b.target_p999_ns, 'ns']);
  }
  console.log(`\ntargets on ${w.name}:`);
  for (const [what, got, want, unit] of checks) {
    if (got == null) continue;
    const show = (v) => (unit === 'ns' ? (v / 1000).toFixed(2) + ' us' : v.toFixed(2) + ' s');
    console.log(`  ${what.padEnd(16)} ${show(got).padStart(10)}  (target <= ${show(want)})  ${got <= want ? 'met' : 'MISSED'}`);
  }
}

const [outFile, ...files] = process.argv.slice(2);
if (!outFile || files.length === 0) {
  console.error('usage: node summarize.mjs OUT.json REPORT.json...');
  process.exit(2);
}
const merged = merge(files);
fs.writeFileSync(outFile, JSON.stringify(merged, null, 1) + '\n');
if (merged.workloads.length) {
  table(merged.workloads);
  minima(merged.workloads);
}
corpora(merged.compile_corpus);
targets(merged.workloads);
console.log(`\nreport: ${outFile}`);
