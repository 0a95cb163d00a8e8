// Case 1: one large file from our local nginx. Ours (single; chunked at 4 and 16 ranges) against raw
// Node http.get, curl and aria2c -x16, into nothing (discard) and into a file (file, sparse-file).
import { join } from 'node:path';
import { alternate } from '../lib/alternate.ts';
import { cpuGoal } from '../lib/cpu.ts';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { ours } from '../lib/ours.ts';
import { aria2c, curl, nodeGet } from '../lib/peers.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { GiB, MiB, type Contender } from '../lib/sample.ts';

export async function nginxDownload(ctx: BenchContext) {
  const size = ctx.largeSizeBytes;
  const s = section('nginx-download', `1. ${size / MiB} MiB from local nginx`);
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  const url = ctx.nginx.url(ctx.largeName);
  const out = (name: string) => join(ctx.tmpDir, name);
  const oursDl = (
    label: string,
    method: string,
    concurrency: number,
    sink: string,
    processes = 1,
    extra: readonly string[] = [],
  ) =>
    ours(label, {
      command: 'download',
      tmpDir: ctx.tmpDir,
      args: [
        '--url',
        url,
        '--source-method',
        method,
        '--concurrency',
        String(concurrency),
        '--max-sockets',
        String(Math.ceil(concurrency / processes)),
        '--sink',
        sink,
        ...(processes > 1 ? ['--processes', String(processes)] : []),
        ...extra,
      ],
    });
  const nodeClient = ['--http-client', 'node'];

  const discard: (Contender & { command?: string })[] = [
    oursDl('ours single (discard)', 'single', 1, 'discard'),
    oursDl('ours chunked 4 (discard)', 'chunked', 4, 'discard'),
    oursDl('ours chunked 16 (discard)', 'chunked', 16, 'discard'),
    oursDl('ours chunked 16 x 2 processes (discard)', 'chunked', 16, 'discard', 2),
    oursDl('ours single, node:http client (discard)', 'single', 1, 'discard', 1, nodeClient),
    oursDl('ours chunked 16, node:http client (discard)', 'chunked', 16, 'discard', 1, nodeClient),
    nodeGet('raw Node http.get (discard)', url),
    curl('curl -o /dev/null', tool(ctx, 'curl'), url, '/dev/null', size),
  ];
  const toFile: (Contender & { command?: string })[] = [
    oursDl('ours single (file)', 'single', 1, 'file'),
    oursDl('ours chunked 4 (file)', 'chunked', 4, 'file'),
    oursDl('ours chunked 16 (file)', 'chunked', 16, 'file'),
    oursDl('ours chunked 4 (sparse-file)', 'chunked', 4, 'sparse-file'),
    oursDl('ours chunked 16 (sparse-file)', 'chunked', 16, 'sparse-file'),
    oursDl('ours chunked 16 x 2 processes (sparse-file)', 'chunked', 16, 'sparse-file', 2),
    nodeGet('raw Node http.get > file', url, { outPath: out('node-get.out') }),
    curl('curl -o file', tool(ctx, 'curl'), url, out('curl.out'), size),
    aria2c('aria2c -x16 -s16 > file', tool(ctx, 'aria2c'), url, out('aria2c.out'), size, 16),
  ];

  for (const c of [...discard, ...toFile]) c.clock = { clock: ctx.nginx.clock, method: 'GET' };

  ctx.log(`case 1a: ${size / MiB} MiB, discard`);
  const a = await alternate(discard, { runs: ctx.runs, log: ctx.log });
  ctx.log(`case 1b: ${size / MiB} MiB, to a file`);
  // Each run removes its own output (ours: blob-cacher's temp file); writes stay in the page cache.
  const b = await alternate(toFile, { runs: ctx.runs, log: ctx.log });

  s.notes.push(
    `Source: a ${size / MiB} MiB file of pseudo-random bytes on /tmp, served by nginx (sendfile ` +
      `on, worker_processes auto) on 127.0.0.1; ` +
      `it is in the page cache. Runs alternate (every contender once, then again), ${ctx.runs} ` +
      `measured runs each, medians shown.`,
    "Timing: ours = blob-cacher's own wallMs (first worker start to last worker end: no process " +
      'start, no verification); ' +
      'curl = its %{time_total}; raw Node = inside the script; aria2c = process wall (it has no ' +
      'finer timer). ' +
      '"server s" is nginx\'s own view of the same run, read from its access log: the first GET\'s ' +
      "arrival to the last response's end, " +
      'the same clock for every contender (a tool that ends with a file still to write or check is ' +
      'not charged for it here, but is in its own timer). Goals compare on it. ' +
      'Ours uses its own GET client (`--http-client raw`, the default: one fixed read buffer per ' +
      'socket); the "node:http client" rows are ' +
      'the same runs through node:http, which is what the raw Node peers use. With a plain URL and ' +
      'sink `discard` no bytes are hashed ' +
      '(there is no source MD5 to compare with); the file sinks hash the output after the timed ' +
      'section. blob-cacher reports these runs ' +
      '"not verified" (a plain URL vouches for no content), and the suite counts them as measured: ' +
      'only a failed request or a non-zero exit fails one.',
  );
  s.tables.push(
    `**Discard** (${size / MiB} MiB)`,
    rowsTable(a),
    `**To a file** (${size / MiB} MiB, output on /tmp)`,
    rowsTable(b),
  );
  s.rows.push(a, b);
  const all = [...a, ...b];
  s.goals.push(
    evaluate(
      {
        what: 'chunked >= 0.9x curl single-stream (discard)',
        ours: [
          'ours chunked 4 (discard)',
          'ours chunked 16 (discard)',
          'ours chunked 16 x 2 processes (discard)',
        ],
        peer: 'curl -o /dev/null',
        atLeast: 0.9,
      },
      all,
    ),
    evaluate(
      {
        what: 'chunked >= 0.9x curl single-stream (to a file)',
        ours: [
          'ours chunked 4 (file)',
          'ours chunked 16 (file)',
          'ours chunked 4 (sparse-file)',
          'ours chunked 16 (sparse-file)',
          'ours chunked 16 x 2 processes (sparse-file)',
        ],
        peer: 'curl -o file',
        atLeast: 0.9,
      },
      all,
    ),
    evaluate(
      {
        what: 'single >= 0.95x raw Node (discard)',
        ours: ['ours single (discard)'],
        peer: 'raw Node http.get (discard)',
        atLeast: 0.95,
      },
      all,
    ),
    evaluate(
      {
        what: "single through node:http vs raw Node (same client: the harness's own cost)",
        ours: ['ours single, node:http client (discard)'],
        peer: 'raw Node http.get (discard)',
        atLeast: 0.95,
      },
      all,
    ),
    evaluate(
      {
        what: 'chunked 16: our client vs node:http',
        ours: ['ours chunked 16 (discard)'],
        peer: 'ours chunked 16, node:http client (discard)',
      },
      all,
    ),
    evaluate(
      {
        what: 'single vs raw Node (to a file)',
        ours: ['ours single (file)'],
        peer: 'raw Node http.get > file',
      },
      all,
    ),
    evaluate(
      {
        what: 'chunked (sparse-file) vs aria2c -x16',
        ours: [
          'ours chunked 4 (sparse-file)',
          'ours chunked 16 (sparse-file)',
          'ours chunked 16 x 2 processes (sparse-file)',
        ],
        peer: 'aria2c -x16 -s16 > file',
      },
      all,
    ),
    // One stream each, into nothing: our worker's own counters against curl's process.
    cpuGoal(
      'GET CPU per MiB <= curl (single, discard)',
      'MiB',
      a.find((r) => r.label === 'ours single (discard)'),
      a.find((r) => r.label === 'curl -o /dev/null'),
    ),
  );
  for (const c of [...discard, ...toFile]) if (c.command) s.commands.push(c.command);
  if (size < GiB)
    s.notes.push(
      `The file is ${size / MiB} MiB, not 1 GiB: with 1 GiB the whole suite runs well past 10 ` +
        `minutes on this 2-core machine (\`--large-size 1GiB\` runs it at 1 GiB).`,
    );
  return s;
}
