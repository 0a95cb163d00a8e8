// Case 2: 2400 x 100 KiB uploads. Against nginx (DAV): our small-files (--url, 1 x 64 and 2 x 32)
// beside a raw Node PUT loop (node:http: what a plain Node client reaches) and wrk (the machine's
// ceiling). Against the suite's embedded Azurite: the same loop signing SharedKey is the comparable
// peer for our small-files and the SDK baseline beside it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { alternate } from '../lib/alternate.ts';
import { cpuGoal } from '../lib/cpu.ts';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { ours } from '../lib/ours.ts';
import { nodePut, wrkPut } from '../lib/peers.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { failedSample, withHooks, type Contender } from '../lib/sample.ts';

export const FILE_COUNT = 2400;
export const FILE_SIZE_BYTES = 100 * 1024;

export function smallFiles(
  ctx: BenchContext,
  label: string,
  method: string,
  processes: number,
  sockets: number,
  extra: readonly string[] = [],
) {
  return ours(label, {
    command: 'upload',
    tmpDir: ctx.tmpDir,
    env: () => ({ STORAGE_CONNECTION_STRING: ctx.azurite.current().connectionString }),
    args: [
      '--upload-method',
      method,
      '--file-count',
      String(FILE_COUNT),
      '--file-size',
      '100KiB',
      '--processes',
      String(processes),
      '--max-sockets',
      String(sockets),
      ...extra,
    ],
  });
}

/** Our small-files to a plain server: --url, no credentials; --keep, as the suite removes the files. */
function smallFilesToUrl(
  ctx: BenchContext,
  label: string,
  url: string,
  processes: number,
  sockets: number,
  extra: readonly string[] = [],
  warmup = 0,
) {
  return ours(label, {
    command: 'upload',
    tmpDir: ctx.tmpDir,
    warmup,
    args: [
      '--url',
      url,
      '--upload-method',
      'small-files',
      '--file-count',
      String(FILE_COUNT),
      '--file-size',
      '100KiB',
      '--processes',
      String(processes),
      '--max-sockets',
      String(sockets),
      '--keep',
      ...extra,
    ],
  });
}

const NGINX_RAW = 'raw Node PUT loop -> nginx DAV (1x64)';
/** Ours for as long as wrk runs, its rate over the active window: the like-for-like comparison with wrk. */
const NGINX_OURS_STEADY = 'ours small-files -> nginx DAV (1x64, --duration 5s)';
/** wrk with the same 64 connections, in 2 threads (one a core here): the HTTP load tool as the bar. */
const NGINX_WRK = 'wrk PUT -> nginx DAV (64 conns, 2 threads)';
/**
 * wrk in one thread, as our one worker process is one: the bar for CPU per request. Two
 * threads on two cores are the bar for the rate, and spend more CPU per request to reach it.
 */
const NGINX_WRK_1T = 'wrk PUT -> nginx DAV (64 conns, 1 thread)';
const NGINX_OURS = ['ours small-files -> nginx DAV (1x64)', 'ours small-files -> nginx DAV (2x32)'];
/** The same run through node:http, which is what the raw loop uses: what our own client is worth. */
const NGINX_OURS_NODE = 'ours small-files -> nginx DAV (1x64, node:http client)';

export async function uploads(ctx: BenchContext) {
  const s = section('uploads', `2. Uploads: ${FILE_COUNT} x ${FILE_SIZE_BYTES / 1024} KiB`);
  const host = ctx.azurite;
  const RAW_CONTAINER = 'bench-raw-put';
  const contenders: (Contender & { command?: string })[] = [];
  /** Contenders that talk to nginx: their commands carry no Azurite connection string. */
  const toNginx = new Set<Contender>();
  if (ctx.nginx) {
    const nginx = ctx.nginx;
    // Each contender writes below its own folder, removed after every run (outside its timing); nginx
    // may still be finishing PUTs that wrk left in flight when its time was up, hence the retries.
    const cleaned = <C extends Contender>(c: C, folder: (run: number) => string): C =>
      withHooks(c, {
        after: async (run) =>
          rmSync(join(nginx.davDir, folder(run)), {
            recursive: true,
            force: true,
            maxRetries: 10,
            retryDelay: 100,
          }),
      });
    contenders.push(
      cleaned(
        nodePut(NGINX_RAW, {
          base: (run) => nginx.url(`dav/raw-${run}`),
          count: FILE_COUNT,
          sizeBytes: FILE_SIZE_BYTES,
          sockets: 64,
        }),
        (run) => `raw-${run}`,
      ),
      cleaned(smallFilesToUrl(ctx, NGINX_OURS[0]!, nginx.url('dav/ours-1x64/'), 1, 64), () => 'ours-1x64'),
      cleaned(smallFilesToUrl(ctx, NGINX_OURS[1]!, nginx.url('dav/ours-2x32/'), 2, 32), () => 'ours-2x32'),
      cleaned(
        smallFilesToUrl(ctx, NGINX_OURS_NODE, nginx.url('dav/ours-node/'), 1, 64, ['--http-client', 'node']),
        () => 'ours-node',
      ),
      // A warm-up run first, in the same worker: its CPU per request is the goal's measure, and wrk has no
      // JIT to warm.
      cleaned(
        smallFilesToUrl(
          ctx,
          NGINX_OURS_STEADY,
          nginx.url('dav/ours-steady/'),
          1,
          64,
          ['--duration', '5s'],
          1,
        ),
        () => 'ours-steady',
      ),
      cleaned(
        wrkPut(NGINX_WRK, tool(ctx, 'wrk'), {
          base: (run) => nginx.url(`dav/wrk-${run}/`),
          count: FILE_COUNT,
          sizeBytes: FILE_SIZE_BYTES,
          connections: 64,
          threads: 2,
          durationS: 5,
          workDir: ctx.tmpDir,
        }),
        (run) => `wrk-${run}`,
      ),
      cleaned(
        wrkPut(NGINX_WRK_1T, tool(ctx, 'wrk'), {
          base: (run) => nginx.url(`dav/wrk1-${run}/`),
          count: FILE_COUNT,
          sizeBytes: FILE_SIZE_BYTES,
          connections: 64,
          threads: 1,
          durationS: 5,
          workDir: ctx.tmpDir,
        }),
        (run) => `wrk1-${run}`,
      ),
    );
    for (const c of contenders) toNginx.add(c);
  } else {
    for (const [label, isOurs] of [
      [NGINX_RAW, false],
      [NGINX_OURS[0]!, true],
      [NGINX_OURS[1]!, true],
      [NGINX_OURS_NODE, true],
      [NGINX_OURS_STEADY, true],
      [NGINX_WRK, false],
      [NGINX_WRK_1T, false],
    ] as const) {
      contenders.push({
        label,
        ours: isOurs,
        timing: isOurs ? 'in-tool wallMs' : 'in-process',
        skipped: `nginx ${ctx.nginxMissing}`,
        run: async () => failedSample('skipped'),
      });
    }
  }
  contenders.push(
    host.fresh(
      nodePut('raw Node PUT loop -> Azurite (1x64, SharedKey)', {
        base: () => `${host.current().endpoint}/${RAW_CONTAINER}`,
        count: FILE_COUNT,
        sizeBytes: FILE_SIZE_BYTES,
        sockets: 64,
        account: () => host.current().account,
        key: () => host.current().key,
      }),
      async (az) => {
        const service = new BlobServiceClient(
          az.endpoint,
          new StorageSharedKeyCredential(az.account, az.key),
        );
        await service.getContainerClient(RAW_CONTAINER).create();
      },
    ),
    host.fresh(smallFiles(ctx, 'ours small-files 1x64', 'small-files', 1, 64)),
    host.fresh(smallFiles(ctx, 'ours small-files 2x32', 'small-files', 2, 32)),
    host.fresh(smallFiles(ctx, 'SDK sdk-small-files 1x64', 'sdk-small-files', 1, 64)),
  );
  // The SDK baseline runs through blob-cacher but is the peer here.
  contenders[contenders.length - 1]!.ours = false;
  // wrk and a steady run go for a time, not a count: their rate is their measure, with no server span to
  // compare.
  for (const c of contenders)
    if (!c.skipped && c.label !== NGINX_WRK && c.label !== NGINX_WRK_1T && c.label !== NGINX_OURS_STEADY)
      c.clock = { clock: toNginx.has(c) ? ctx.nginx!.clock : host.clock, method: 'PUT' };

  ctx.log('case 2: small-file uploads');
  const rows = await alternate(contenders, { runs: ctx.runs, log: ctx.log });
  s.notes.push(
    `Every contender sends ${FILE_COUNT} Put Blob/PUT requests of ${FILE_SIZE_BYTES / 1024} KiB; ` +
      `payloads are made before the clock starts. ` +
      "Azurite is blob-cacher's embedded Azurite (dist/storage/azurite.js, in memory), hosted by " +
      'the suite in its own process and started fresh for every run of every contender; ' +
      'blob-cacher reaches it with a connection string in its environment (its own per-run ' +
      'embedded Azurite would sit in its coordinator, which is otherwise idle: the same).',
    `Against nginx (DAV, \`dav_methods PUT DELETE\`; its files on ` +
      `${ctx.nginx?.davStorage ?? 'disk'}) blob-cacher runs with \`--url\`: plain PUTs of the same ` +
      `names, verified afterwards by reading every file back ` +
      "(outside its timing), `--keep` so that every contender's files are removed the same way: by " +
      'the suite, after every run. ' +
      'The raw Node loop to nginx (node:http) is what a plain Node client reaches, and wrk is the ' +
      "machine's ceiling; against Azurite the comparable peer is the same raw loop, signing every " +
      'request ' +
      "with blob-cacher's SharedKey signer.",
    '"server s" is the server\'s own view of each run (nginx: its access log; Azurite: its http ' +
      "server, watched from the suite's process): " +
      "the first PUT's arrival to the last answer's end, the same clock for every contender. Goals " +
      'compare on it.',
    "wrk PUTs 100 KiB with 64 connections in 2 threads for 5 s (the rate's bar), and in 1 thread " +
      '(the bar for CPU per request, as ours is one process). Each thread formats 64 requests ' +
      '(distinct names) once and cycles through them, ' +
      'so wrk does no Lua work per request: its own ceiling. Formatting every request in Lua had ' +
      'made wrk the bound (5,500–9,200 req/s against ' +
      '20,000–24,000, same nginx, same run), and a bar that low flattered us.',
    'Ours for 5 s (`--duration 5s`) makes a 5 s warm-up run first in the same worker (`--warmup ' +
      '1`, as a default session does): its rate and its CPU per ' +
      "request are the measured run's, with its hot path compiled, as wrk's is from its start. The " +
      'CPU goal decides on the rounds: the median of each ' +
      "round's ours/wrk and its interval (bench/lib/cpu.ts).",
  );
  s.tables.push(rowsTable(rows, { ops: true }));
  s.rows.push(rows);
  s.goals.push(
    evaluate(
      {
        what: 'small-files >= 1.0x raw Node loop (same Azurite)',
        ours: ['ours small-files 1x64', 'ours small-files 2x32'],
        peer: 'raw Node PUT loop -> Azurite (1x64, SharedKey)',
        atLeast: 1.0,
      },
      rows,
    ),
    evaluate(
      {
        what: 'small-files >= 1.0x SDK (Azurite)',
        ours: ['ours small-files 1x64', 'ours small-files 2x32'],
        peer: 'SDK sdk-small-files 1x64',
        atLeast: 1.0,
      },
      rows,
    ),
    evaluate(
      { what: 'small-files >= 1.0x raw Node loop (nginx)', ours: NGINX_OURS, peer: NGINX_RAW, atLeast: 1.0 },
      rows,
    ),
    evaluate(
      {
        what: 'small-files: our client vs node:http (nginx, 1x64)',
        ours: [NGINX_OURS[0]!],
        peer: NGINX_OURS_NODE,
      },
      rows,
    ),
    // Rates, on the tools' own timers: ours from its timed span, wrk from its Requests/sec.
    evaluate(
      {
        what: 'small-files >= 1.05x wrk (nginx, 64 connections, both for 5 s)',
        ours: [NGINX_OURS_STEADY],
        peer: NGINX_WRK,
        atLeast: 1.05,
        clock: 'tool',
      },
      rows,
    ),
    evaluate(
      {
        what: "small-files, 2400 files once, vs wrk's 5 s rate",
        ours: NGINX_OURS,
        peer: NGINX_WRK,
        clock: 'tool',
      },
      rows,
    ),
    // Our worker's CPU per PUT (its own counters over the timed section) against the process
    // CPU of wrk in one thread over the requests it made, the same 5 s on the same nginx.
    cpuGoal(
      'CPU per 100 KiB PUT <= wrk (nginx, 64 connections, 1 thread)',
      'request',
      rows.find((r) => r.label === NGINX_OURS_STEADY),
      rows.find((r) => r.label === NGINX_WRK_1T),
    ),
  );
  for (const c of contenders)
    if (c.command)
      s.commands.push(toNginx.has(c) ? c.command : `STORAGE_CONNECTION_STRING="<azurite>" ${c.command}`);
  return s;
}
