// Sums up rounds of `tern bench compare` (JSON results, one file per round) as Markdown: per target the median of
// the rounds' throughput, p99 and server CPU per call, with the median of each round's ratio to the baseline target
// (ratios are taken within a round, where the targets shared the machine's state, then their median is reported).
//
//   node bench/figures.mjs compare --baseline REST round1.json round2.json ...
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const kind = args.shift();
let baseline = 'REST';
const files = [];
while (args.length) {
  const a = args.shift();
  if (a === '--baseline') baseline = args.shift();
  else files.push(a);
}
if (kind !== 'compare' || files.length === 0) {
  console.error('usage: node bench/figures.mjs compare [--baseline LABEL] RESULT.json...');
  process.exit(2);
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const figures = (run) => ({
  throughput: run.throughput,
  p99: run.latency?.p99Ms,
  p999: run.latency?.p999Ms,
  cpu: run.process?.cpuPerCallMicros,
  errors: Object.values(run.errors ?? {}).reduce((a, b) => a + b, 0),
});

const rounds = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
const names = rounds[0].runs.map((r) => r.name);
const rows = names.map((name) => {
  const per = rounds.map((round) => {
    const run = round.runs.find((r) => r.name === name);
    const base = round.runs.find((r) => r.name === baseline);
    if (!run || !base) return null;
    const f = figures(run);
    const b = figures(base);
    return { ...f, cpuRatio: f.cpu / b.cpu, throughputRatio: f.throughput / b.throughput, p99Ratio: f.p99 / b.p99,
      p999Ratio: f.p999 / b.p999 };
  }).filter(Boolean);
  const m = (key) => median(per.map((p) => p[key]));
  return { name, rounds: per.length, throughput: m('throughput'), p99: m('p99'), p999: m('p999'), cpu: m('cpu'),
    cpuRatio: m('cpuRatio'), throughputRatio: m('throughputRatio'), p99Ratio: m('p99Ratio'), p999Ratio: m('p999Ratio'),
    errors: per.reduce((a, p) => a + p.errors, 0) };
});

const fmt = (x, digits = 0) => (Number.isFinite(x)
  ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');
const first = rounds[0].runs[0];
const load = first.mode === 'closed' ? `closed loop, ${first.connections} connections` : `open loop, ${fmt(first.rate)} calls/s`;
console.log(`${load}; median of ${rounds.length} round(s), ratios to ${baseline} taken within each round`);
console.log();
console.log('| target | calls/s | × | p99 ms | × | p99.9 ms | × | CPU/call µs | × | errors |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.name} | ${fmt(r.throughput)} | ${fmt(r.throughputRatio, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.p99Ratio, 2)} | `
    + `${fmt(r.p999, 2)} | ${fmt(r.p999Ratio, 2)} | ${fmt(r.cpu)} | ${fmt(r.cpuRatio, 2)} | ${r.errors} |`);
}
