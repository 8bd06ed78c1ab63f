// summarize.mjs — merge gcg_bench JSON reports into one and print a summary.
//
// Usage: node bench/summarize.mjs OUT.json REPORT.json...
//   OUT.json gets {"workloads": [every report's workloads, in order], "machine": the first
//   report's machine}; stdout gets one line per workload (latencies in microseconds, the
//   median over repeats; for a batch-only workload, the wall time of a whole batch step) and the architecture's targets checked on the headline workload.
import fs from 'node:fs';

const TARGETS = { mask_p999: 20e3, mask_max: 50e3, commit_p999: 5e3, compile_s: 2 };

function merge(files) {
  const out = { workloads: [], machine: null };
  for (const f of files) {
    const r = JSON.parse(fs.readFileSync(f, 'utf8'));
    out.workloads.push(...r.workloads);
    out.machine ??= r.machine;
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

function targets(ws) {
  const w = ws.find((x) => x.name.endsWith('-docs') && x.grammar === 'json') || ws[0];
  const checks = [
    ['mask p99.9', w.mask_ns.p999, TARGETS.mask_p999, 'ns'],
    ['mask max', w.mask_ns.max, TARGETS.mask_max, 'ns'],
    ['commit p99.9', w.commit_ns.p999, TARGETS.commit_p999, 'ns'],
    ['compile', w.compile_s, TARGETS.compile_s, 's'],
  ];
  console.log(`\ntargets on ${w.name}:`);
  for (const [what, got, want, unit] of checks) {
    if (got == null) continue;
    const show = (v) => (unit === 'ns' ? (v / 1000).toFixed(2) + ' us' : v.toFixed(2) + ' s');
    console.log(`  ${what.padEnd(13)} ${show(got).padStart(10)}  (target <= ${show(want)})  ${got <= want ? 'met' : 'MISSED'}`);
  }
}

const [outFile, ...files] = process.argv.slice(2);
if (!outFile || files.length === 0) {
  console.error('usage: node summarize.mjs OUT.json REPORT.json...');
  process.exit(2);
}
const merged = merge(files);
fs.writeFileSync(outFile, JSON.stringify(merged, null, 1) + '\n');
table(merged.workloads);
targets(merged.workloads);
console.log(`\nreport: ${outFile}`);
