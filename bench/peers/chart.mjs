// Prints the figures of one peer comparison run as a table and as bar charts, each server against the first one
// (the baseline): CPU per call, throughput, p99 latency, peak RSS and start-up from the bench's JSON results where
// there are some, start-up and idle RSS from the check otherwise.
//
//   node chart.mjs RESULTS_DIR          (reads RESULTS_DIR/summary.tsv and RESULTS_DIR/NAME.json)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node chart.mjs RESULTS_DIR');
  process.exit(2);
}

const BAR_WIDTH = 36;
const rows = readFileSync(join(dir, 'summary.tsv'), 'utf8').trim().split('\n').slice(1).map((line) => {
  const [peer, era, status, startupMs, idleRssMib, responseBytes, check] = line.split('\t');
  const number = (text) => (/^[0-9.]+$/.test(text ?? '') ? Number(text) : undefined);
  const row = { peer, era, status, check, startupMs: number(startupMs), idleRssMib: number(idleRssMib),
    responseBytes: number(responseBytes) };
  const file = join(dir, `${peer}.json`);
  if (status === 'benched' && existsSync(file)) {
    const result = JSON.parse(readFileSync(file, 'utf8'));
    const run = result.runs?.[0] ?? {};
    row.throughput = run.throughput;
    row.p99Ms = run.latency?.p99Ms;
    row.cpuPerCallMicros = run.process?.cpuPerCallMicros;
    row.rssMib = run.process?.rssMaxBytes !== undefined ? run.process.rssMaxBytes / 1048576 : undefined;
    row.errors = run.requests !== undefined && run.ok !== undefined ? run.requests - run.ok : undefined;
    if (result.coldStart?.startToFirstCallMs !== undefined) {
      row.startupMs = result.coldStart.startToFirstCallMs;
    }
  }
  return row;
});

const metrics = [
  { key: 'cpuPerCallMicros', column: 'CPU/call µs', title: 'CPU per call', unit: 'µs', lowerIsBetter: true, digits: 0 },
  { key: 'throughput', column: 'calls/s', title: 'Throughput', unit: 'calls/s', lowerIsBetter: false, digits: 0 },
  { key: 'p99Ms', column: 'p99 ms', title: 'p99 latency', unit: 'ms', lowerIsBetter: true, digits: 1 },
  { key: 'rssMib', column: 'peak RSS MiB', title: 'Peak RSS under load', unit: 'MiB', lowerIsBetter: true, digits: 0 },
  { key: 'startupMs', column: 'start-up ms', title: 'Start-up to the first answer', unit: 'ms', lowerIsBetter: true, digits: 0 },
  { key: 'idleRssMib', column: 'idle RSS MiB', title: 'RSS after the check (idle)', unit: 'MiB', lowerIsBetter: true, digits: 0 },
];

const baseline = rows.find((row) => row.status !== 'skipped' && row.status !== 'failed') ?? rows[0];
const format = (value, digits) => (value === undefined ? '-'
  : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const ratio = (row, key) => (row[key] !== undefined && baseline?.[key] ? row[key] / baseline[key] : undefined);
const width = Math.max(...rows.map((row) => row.peer.length), 4);

const shown = metrics.filter((metric) => rows.some((row) => row[metric.key] !== undefined));
const header = ['peer'.padEnd(width), 'status  ', ...shown.map((m) => m.column.padStart(16))];
console.log(`Against ${baseline?.peer ?? '-'} (×: this server's figure divided by ${baseline?.peer ?? '-'}'s)`);
console.log(header.join('  '));
for (const row of rows) {
  const cells = shown.map((metric) => {
    const r = ratio(row, metric.key);
    const text = `${format(row[metric.key], metric.digits)}${r === undefined ? '' : ` ${r.toFixed(2)}×`}`;
    return text.padStart(16);
  });
  console.log([row.peer.padEnd(width), row.status.padEnd(8), ...cells].join('  '));
}

for (const metric of shown) {
  const values = rows.map((row) => row[metric.key]).filter((value) => value !== undefined);
  const max = Math.max(...values);
  console.log(`\n${metric.title}, ${metric.unit} (${metric.lowerIsBetter ? 'lower' : 'higher'} is better)`);
  for (const row of rows) {
    const value = row[metric.key];
    if (value === undefined) {
      console.log(`  ${row.peer.padEnd(width)}  ${row.status === 'benched' || row.status === 'checked' ? '-' : row.status}`);
      continue;
    }
    const bar = '█'.repeat(Math.max(1, Math.round((value / max) * BAR_WIDTH)));
    const r = ratio(row, metric.key);
    console.log(`  ${row.peer.padEnd(width)}  ${bar.padEnd(BAR_WIDTH)} ${format(value, metric.digits)}${r === undefined ? '' : ` (${r.toFixed(2)}×)`}`);
  }
}

const notes = rows.filter((row) => row.check && row.check !== '-').map((row) => `  ${row.peer.padEnd(width)}  ${row.check}`);
if (notes.length > 0) {
  console.log('\nChecks');
  console.log(notes.join('\n'));
}
