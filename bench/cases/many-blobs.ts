// Case 9: many blobs. Downloads of FILE_COUNT small blobs, ours (small-files) against the SDK's
// downloadToBuffer per blob on the same fresh Azurite, and against aria2c -i (a URL list, -j lanes)
// on the suite's nginx, where both read the same files; then listing the set, ours (list, one
// stream and parallel prefixes) against the SDK's listBlobsFlat().byPage.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Content from '../../dist/payload/content.js';
import type * as Fixtures from '../../dist/fixture-setup/fixtures.js';
import type * as ManyBlobs from '../../dist/strategies/many-blobs.js';
import type * as Target from '../../dist/storage/target.js';
import { alternate } from '../lib/alternate.ts';
import { section, tool, type BenchAzurite, type BenchContext } from '../lib/context.ts';
import { distImport, ours } from '../lib/ours.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { failedSample, type Contender, type Row } from '../lib/sample.ts';
import type { Tool } from '../lib/tools.ts';

export interface ManyBlobsSizes {
  /** Files downloaded, each of fileSizeBytes. */
  fileCount: number;
  fileSizeBytes: number;
  /** Files listed, in pages of pageSize. */
  listCount: number;
  pageSize: number;
}

export const MANY_BLOBS_DEFAULTS: ManyBlobsSizes = {
  fileCount: 500,
  fileSizeBytes: 16 * 1024,
  listCount: 2000,
  pageSize: 500,
};

/**
 * blob-cacher's own fixture code puts the set in the fresh Azurite before the clock: every run finds it
 * there.
 */
async function putSet(az: BenchAzurite, fileCount: number, fileSizeBytes: number): Promise<void> {
  const { setFixtures } = await distImport<typeof ManyBlobs>('strategies/many-blobs.js');
  const { ensureFixtures } = await distImport<typeof Fixtures>('fixture-setup/fixtures.js');
  const { containerClient } = await distImport<typeof Target>('storage/target.js');
  const container = await containerClient({
    kind: 'blob',
    embedded: false,
    endpoint: az.endpoint,
    container: 'blob-cacher',
    account: az.account,
    key: az.key,
  });
  await ensureFixtures(container, [setFixtures({ sizeBytes: fileSizeBytes, concurrency: 1, fileCount })]);
}

/**
 * The set as plain files below `root` (nginx's root or DAV folder), for --url and aria2c: the same names and
 * bytes.
 */
export async function writeSetFiles(
  root: string,
  fileCount: number,
  fileSizeBytes: number,
): Promise<string[]> {
  const { setFixtures } = await distImport<typeof ManyBlobs>('strategies/many-blobs.js');
  const { contentBuffer, FIXTURE_SEED } = await distImport<typeof Content>('payload/content.js');
  const specs = setFixtures({ sizeBytes: fileSizeBytes, concurrency: 1, fileCount });
  mkdirSync(join(root, specs.at(0)!.blob, '..'), { recursive: true });
  for (const f of specs)
    writeFileSync(join(root, f.blob), contentBuffer(FIXTURE_SEED, f.offsetBytes, f.lengthBytes));
  return [...specs].map((f) => f.blob);
}

/**
 * aria2c -i <list> -j N: N files at a time, one connection each, into a directory; the process wall is its
 * time.
 */
function aria2cList(
  label: string,
  aria: Tool,
  listPath: string,
  outDir: string,
  files: number,
  bytes: number,
  lanes: number,
): Contender {
  if (!aria.path)
    return {
      label,
      ours: false,
      timing: 'process wall',
      skipped: aria.missing ?? 'not installed',
      run: async () => failedSample('skipped'),
    };
  const args = [
    '-i',
    listPath,
    `-j${lanes}`,
    '-x1',
    '-s1',
    '--file-allocation=none',
    '--allow-overwrite=true',
    '--auto-file-renaming=false',
    '--console-log-level=warn',
    '--summary-interval=0',
    '--download-result=hide',
    '--no-conf',
    '-d',
    outDir,
  ];
  return {
    label,
    ours: false,
    timing: 'process wall',
    run: async () => {
      rmSync(outDir, { recursive: true, force: true });
      const r = await runProcess(aria.path!, args);
      rmSync(outDir, { recursive: true, force: true });
      if (r.code !== 0) return failedSample(`aria2c exit ${r.code}: ${tail(r, 1)}`, r.processMs);
      return {
        ok: true,
        transferMs: r.processMs,
        processMs: r.processMs,
        bytes,
        requests: files,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
      };
    },
  };
}

const blobsPerSecond = (rows: readonly Row[], count: number) =>
  rows
    .filter((r) => !r.skipped && Number.isFinite(r.medianMs))
    .map((r) => `${r.label}: ${Math.round(count / (r.medianMs / 1000))} blobs/s`)
    .join('; ');

export async function manyBlobs(ctx: BenchContext, sizes: ManyBlobsSizes = MANY_BLOBS_DEFAULTS) {
  const { fileCount, fileSizeBytes, listCount, pageSize } = sizes;
  const s = section(
    'many-blobs',
    `9. Many blobs: ${fileCount} x ${fileSizeBytes / 1024} KiB downloaded, ${listCount} listed`,
  );
  const host = ctx.azurite;
  const env = () => ({ STORAGE_CONNECTION_STRING: host.current().connectionString });
  const dl = (label: string, method: string, processes: number, sockets: number) =>
    host.fresh(
      ours(label, {
        command: 'download',
        tmpDir: ctx.tmpDir,
        env,
        args: [
          '--source-method',
          method,
          '--file-count',
          String(fileCount),
          '--file-size',
          `${fileSizeBytes}B`,
          '--processes',
          String(processes),
          '--max-sockets',
          String(sockets),
        ],
      }),
      (az) => putSet(az, fileCount, fileSizeBytes),
    );
  const downloads: (Contender & { command?: string })[] = [
    dl('ours small-files 1x16', 'small-files', 1, 16),
    dl('ours small-files 2x8', 'small-files', 2, 8),
    dl('SDK sdk-small-files 1x16', 'sdk-small-files', 1, 16),
  ];
  downloads[2]!.ours = false;
  for (const c of downloads) c.clock = { clock: host.clock, method: 'GET' };

  const toNginx: (Contender & { command?: string })[] = [];
  if (ctx.nginx) {
    const names = await writeSetFiles(ctx.nginx.rootDir, fileCount, fileSizeBytes);
    const listPath = join(ctx.tmpDir, 'aria2c-urls.txt');
    // One URL a line, each with its own out= so that names keep their folder.
    writeFileSync(listPath, names.map((n) => `${ctx.nginx!.url(n)}\n  out=${n}\n`).join(''));
    toNginx.push(
      ours('ours small-files -> nginx 1x16', {
        command: 'download',
        tmpDir: ctx.tmpDir,
        args: [
          '--url',
          ctx.nginx.url(''),
          '--source-method',
          'small-files',
          '--file-count',
          String(fileCount),
          '--file-size',
          `${fileSizeBytes}B`,
          '--max-sockets',
          '16',
        ],
      }),
      aria2cList(
        'aria2c -i list -j16 -> nginx',
        tool(ctx, 'aria2c'),
        listPath,
        join(ctx.tmpDir, 'aria2c-out'),
        fileCount,
        fileCount * fileSizeBytes,
        16,
      ),
    );
    for (const c of toNginx) if (!c.skipped) c.clock = { clock: ctx.nginx.clock, method: 'GET' };
  } else {
    toNginx.push({
      label: 'aria2c -i list -j16 -> nginx',
      ours: false,
      timing: 'process wall',
      skipped: `nginx ${ctx.nginxMissing}`,
      run: async () => failedSample('skipped'),
    });
  }

  const ls = (label: string, method: string, sockets: number) =>
    host.fresh(
      ours(label, {
        command: 'download',
        tmpDir: ctx.tmpDir,
        env,
        args: [
          '--source-method',
          method,
          '--file-count',
          String(listCount),
          '--file-size',
          '1KiB',
          '--page-size',
          String(pageSize),
          '--max-sockets',
          String(sockets),
        ],
      }),
      (az) => putSet(az, listCount, 1024),
    );
  const listings: (Contender & { command?: string })[] = [
    ls('ours list 1x1 (one stream)', 'list', 1),
    ls('ours list-hierarchy 1x1', 'list-hierarchy', 1),
    ls('ours list 1x4 (4+ prefixes)', 'list', 4),
    ls('SDK sdk-list 1x1 (one stream)', 'sdk-list', 1),
    ls('SDK sdk-list 1x4 (4+ prefixes)', 'sdk-list', 4),
  ];
  // No server clock here: Azurite's clock counts requests that move blob bytes, and a listing moves none.
  for (const c of listings.filter((x) => x.label.startsWith('SDK'))) c.ours = false;

  const { listGroups, fixtureSetPrefix } = await distImport<typeof ManyBlobs>('strategies/many-blobs.js');
  const groups = listGroups(listCount, fixtureSetPrefix(listCount, 1024), 4);
  const groupsText =
    `${groups.length} prefixes of up to ${groups[0]!.count} names ` +
    `(${groups[0]!.prefix.split('/').pop()} … ${groups.at(-1)!.prefix.split('/').pop()})`;

  ctx.log(`case 9a: ${fileCount} small-file downloads (Azurite)`);
  const a = await alternate(downloads, { runs: ctx.runs, log: ctx.log });
  ctx.log('case 9b: small-file downloads (nginx)');
  const b = await alternate(toNginx, { runs: ctx.runs, log: ctx.log });
  ctx.log(`case 9c: listing ${listCount} blobs`);
  const c = await alternate(listings, { runs: ctx.runs, log: ctx.log });

  s.notes.push(
    `Downloads: ${fileCount} GETs of ${fileSizeBytes / 1024} KiB, every file checked by MD5 after ` +
      `the clock (ours: its memory sink; the SDK: its buffers). ` +
      "Azurite is the suite's embedded Azurite, fresh for every run, the set put there by " +
      "blob-cacher's fixture code before the run (ours then finds it with one listing). " +
      '"req/s" is files per second.',
    `Against nginx both read the same files from its root ` +
      `(many/${fileCount}x${fileSizeBytes}/file-NNNNNNN): ours with \`--url\` (a HEAD per file first ` +
      `to find the set, outside its timing), ` +
      'aria2c from a URL list (`-i`, `-j16`, one connection per file) into a directory; aria2c has ' +
      'no timer of its own, so its time is its process wall.',
    `Listing: ${listCount} blobs, pages of ${pageSize}; "req/s" is pages per second. One stream is ` +
      `one page after another (each needs the last one's NextMarker); ` +
      `with 4 lanes ours and the SDK both list the disjoint prefixes the names' leading digits ` +
      `give, in parallel: ${groupsText}, so more and shorter pages. ` +
      `Blobs per second (median): ${blobsPerSecond(c, listCount)}.`,
  );
  s.tables.push(rowsTable(a, { ops: true }), rowsTable(b, { ops: true }), rowsTable(c, { ops: true }));
  s.rows.push(a, b, c);
  s.goals.push(
    evaluate(
      {
        what: 'small-files download >= 1.0x SDK (Azurite)',
        ours: ['ours small-files 1x16', 'ours small-files 2x8'],
        peer: 'SDK sdk-small-files 1x16',
        atLeast: 1.0,
      },
      a,
    ),
    evaluate(
      {
        what: 'small-files download vs aria2c -i (nginx)',
        ours: ['ours small-files -> nginx 1x16'],
        peer: 'aria2c -i list -j16 -> nginx',
      },
      b,
    ),
    evaluate(
      {
        what: 'list >= 1.0x SDK, one stream (Azurite)',
        ours: ['ours list 1x1 (one stream)'],
        peer: 'SDK sdk-list 1x1 (one stream)',
        atLeast: 1.0,
      },
      c,
    ),
    evaluate(
      {
        what: 'list >= 1.0x SDK, 4 lanes (Azurite)',
        ours: ['ours list 1x4 (4+ prefixes)'],
        peer: 'SDK sdk-list 1x4 (4+ prefixes)',
        atLeast: 1.0,
      },
      c,
    ),
  );
  for (const x of [...downloads, ...listings])
    if (x.command) s.commands.push(`STORAGE_CONNECTION_STRING="<azurite>" ${x.command}`);
  for (const x of toNginx) if (x.command) s.commands.push(x.command);
  return s;
}
