// Case 7: is a hand-written HTTP/1.1 client worth keeping? Our raw client, our node:http path and
// undici (its request() API and its bare dispatch()) in the same loop (bench/peers/client-loop.ts),
// the same connection counts, against the suite's nginx: one large GET, ranged GETs, and small PUTs.
// Ratios are paired by round (every client once per round), with an interval for their median.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { alternate } from '../lib/alternate.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { medianIntervalSignTestExact } from '../../src/analysis/stats.ts';
import { pairedRatios, ratioText } from '../lib/paired.ts';
import { clientLoop } from '../lib/peers.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { MiB, withHooks, type Contender, type Row, type Sample } from '../lib/sample.ts';
import { FILE_COUNT, FILE_SIZE_BYTES } from './uploads.ts';

const CLIENTS = [
  ['raw', 'ours raw client'],
  ['node', 'ours node:http (request.ts)'],
  ['undici', 'undici Pool.request'],
  ['undici-dispatch', 'undici Pool.dispatch'],
] as const;
const _RAW = CLIENTS[0][1];
const RANGE_BYTES = 4 * MiB;
const RANGED_CONNECTIONS = 16;
const PUT_CONNECTIONS = 64;

const serverMs = (s: Sample) => (s.ok ? s.serverSpanMs : undefined);
const ownMs = (s: Sample) => (s.ok ? s.transferMs : undefined);

export async function clients(ctx: BenchContext, pairedRuns: number) {
  const s = section('clients', '7. HTTP clients: ours against undici and node:http');
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  const nginx = ctx.nginx;
  const size = ctx.largeSizeBytes;
  const ranges = Math.max(1, Math.ceil(size / RANGE_BYTES));
  const url = nginx.url(ctx.largeName);
  const scenarios: {
    what: string;
    method: 'GET' | 'PUT';
    make: (client: string, label: string) => Contender;
  }[] = [
    {
      what: `one GET of ${size / MiB} MiB, 1 connection`,
      method: 'GET',
      make: (client, label) =>
        clientLoop(`${label}: single GET`, client === 'raw' || client === 'node', () => [
          '--client',
          client,
          '--url',
          url,
          '--size-bytes',
          String(size),
          '--connections',
          '1',
        ]),
    },
    {
      what: `${ranges} ranged GETs of ${RANGE_BYTES / MiB} MiB, ${RANGED_CONNECTIONS} connections`,
      method: 'GET',
      make: (client, label) =>
        clientLoop(`${label}: ${ranges} ranges`, client === 'raw' || client === 'node', () => [
          '--client',
          client,
          '--url',
          url,
          '--size-bytes',
          String(size),
          '--ranges',
          String(ranges),
          '--connections',
          String(RANGED_CONNECTIONS),
        ]),
    },
    {
      what: `${FILE_COUNT} PUTs of ${FILE_SIZE_BYTES / 1024} KiB (nginx DAV), ${PUT_CONNECTIONS} connections`,
      method: 'PUT',
      // Each client writes below its own folder, removed after every run (outside its timing).
      make: (client, label) =>
        withHooks(
          clientLoop(`${label}: ${FILE_COUNT} PUTs`, client === 'raw' || client === 'node', (run) => [
            '--client',
            client,
            '--url',
            nginx.url(`dav/clients-${client}-${run}/`),
            '--put',
            '--count',
            String(FILE_COUNT),
            '--size-bytes',
            String(FILE_SIZE_BYTES),
            '--connections',
            String(PUT_CONNECTIONS),
          ]),
          {
            after: async (run) =>
              rmSync(join(nginx.davDir, `clients-${client}-${run}`), { recursive: true, force: true }),
          },
        ),
    },
  ];

  const ratioRows: string[][] = [];
  for (const [i, sc] of scenarios.entries()) {
    const contenders = CLIENTS.map(([client, label]) => sc.make(client, label));
    for (const c of contenders) c.clock = { clock: nginx.clock, method: sc.method };
    ctx.log(`case 7${'abc'[i]}: clients, ${sc.what}`);
    // A first unrecorded round: JIT, page cache, nginx's workers.
    const rows = await alternate(contenders, { runs: pairedRuns, warmup: true, log: ctx.log });
    s.tables.push(`**${sc.what}**`, rowsTable(rows, { ops: sc.method === 'PUT', rss: false }));
    s.rows.push(rows);
    const raw = rows[0]!;
    for (const peer of rows.slice(1)) {
      const clientName = peer.label.split(':')[0]!;
      const paired = medianIntervalSignTestExact(pairedRatios(peer, raw, serverMs));
      ratioRows.push([
        sc.what,
        `raw / ${clientName.replace(/^ours /, '')}`,
        ratioText(paired),
        ratioText(medianIntervalSignTestExact(pairedRatios(peer, raw, ownMs))),
      ]);
      const goal = evaluate(
        {
          what: `${sc.what}: our raw client vs ${clientName.replace(/^ours /, '')}`,
          ours: [raw.label],
          peer: peer.label,
          atLeast: clientName.startsWith('undici') ? 1.0 : undefined,
        },
        rows as Row[],
      );
      // The goal's ratio is of medians; the paired interval says whether the rounds resolve it.
      if (paired.n && paired.low <= 1 && paired.high >= 1)
        goal.note = `paired ${ratioText(paired)}: not resolved`;
      s.goals.push(goal);
    }
  }
  s.notes.push(
    'Every client runs in its own process, in the same loop (bench/peers/client-loop.ts): as many ' +
      'lanes as connections, each taking the next request ' +
      "until all are done; GET bodies are counted and dropped, PUT payloads (blob-cacher's fixture " +
      'bytes) are made before the clock starts. ' +
      `Ours: \`RawPool\` + \`rawRequest\` (dist/transport/raw-client.js, ${256} KiB read buffer ` +
      `per socket) and \`createAgent\` + \`tracedRequest\` ` +
      '(dist/transport/request.js, node:http, highWaterMark 256 KiB), both with tracing off; undici ' +
      `\`Pool({ connections, pipelining: 1 })\` with \`request()\` (body read with for await) and ` +
      `with a bare \`dispatch()\` handler (no streams: its fastest API). ` +
      `Every client once per round, a first unrecorded round, then ${pairedRuns} rounds.`,
    "Ratios below are paired: in each round, the peer's time / our raw client's time (> 1: ours " +
      'faster); shown is their median over rounds with a ' +
      'distribution-free ~95% interval (order statistics of the rounds, the sign test\'s), "~" ' +
      'where the interval holds 1. "server" is nginx\'s clock ' +
      "(first data request's arrival to last response's end), \"in-process\" the loop's own timer " +
      '(pool creation excluded).',
  );
  s.tables.push(
    '**Paired ratios: peer time / raw client time (> 1: raw faster)**',
    [
      "| scenario | pair | server's clock | in-process |",
      '| --- | --- | --- | --- |',
      ...ratioRows.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n'),
  );
  return s;
}
