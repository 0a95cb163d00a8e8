// Case 3: the suite's embedded Azurite. Downloads of the 80 MiB fixture: ours (chunked, assemble)
// against the SDK's downloadToBuffer and azcopy; uploads of one large blob: ours (blocks) against the
// SDK's uploadData and azcopy. azcopy gets a container SAS (Azurite speaks http; azcopy accepts it).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  SASProtocol,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import type * as Fixtures from '../../dist/fixture-setup/fixtures.js';
import type * as Assemble from '../../dist/strategies/download/assemble.js';
import { alternate } from '../lib/alternate.ts';
import { section, type BenchAzurite, type BenchContext } from '../lib/context.ts';
import { distImport, ours, writeFixtureFile } from '../lib/ours.ts';
import { azcopy } from '../lib/peers.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { MiB, type Contender } from '../lib/sample.ts';

const DOWNLOAD_BYTES = 80 * MiB;
const CONTAINER = 'blob-cacher';
const LARGE_BLOB = 'large.file';
const ASSEMBLE_PARTS = 8;

function containerOf(az: BenchAzurite) {
  return new BlobServiceClient(
    az.endpoint,
    new StorageSharedKeyCredential(az.account, az.key),
  ).getContainerClient(CONTAINER);
}

/** The download fixtures, made by blob-cacher's own fixture code so that its runs find them ready. */
async function downloadFixtures(az: BenchAzurite): Promise<void> {
  const { ensureFixtures } = await distImport<typeof Fixtures>('fixture-setup/fixtures.js');
  const { assemble } = await distImport<typeof Assemble>('strategies/download/assemble.js');
  const input = { sizeBytes: DOWNLOAD_BYTES, concurrency: ASSEMBLE_PARTS, urlTarget: false };
  await ensureFixtures(containerOf(az), [
    [{ blob: LARGE_BLOB, offsetBytes: 0, lengthBytes: DOWNLOAD_BYTES }],
    assemble.fixtures!(input),
  ]);
}

export async function azuriteCase(ctx: BenchContext, uploadBytes: number) {
  const s = section('azurite', '3. Embedded Azurite: ours vs the SDK and azcopy');
  const host = ctx.azurite;
  const blobUrl = (name: string) => {
    const az = host.current();
    // A container SAS over http (Azurite has no TLS here); Azurite's key is public, nothing secret.
    const sas = generateBlobSASQueryParameters(
      {
        containerName: CONTAINER,
        permissions: ContainerSASPermissions.parse('racwdl'),
        protocol: SASProtocol.HttpsAndHttp,
        startsOn: new Date(Date.now() - 60_000),
        expiresOn: new Date(Date.now() + 3600_000),
      },
      new StorageSharedKeyCredential(az.account, az.key),
    ).toString();
    return `${az.endpoint}/${CONTAINER}/${name}?${sas}`;
  };
  const env = () => ({ STORAGE_CONNECTION_STRING: host.current().connectionString });
  const dl = (label: string, method: string, concurrency: number, sink: string) =>
    ours(label, {
      command: 'download',
      tmpDir: ctx.tmpDir,
      env,
      args: [
        '--source-method',
        method,
        '--concurrency',
        String(concurrency),
        '--max-sockets',
        String(Math.max(concurrency, 4)),
        '--file-size',
        `${DOWNLOAD_BYTES / MiB}MiB`,
        '--sink',
        sink,
      ],
    });
  const azcopyOut = join(ctx.tmpDir, 'azcopy-download.bin');
  const downloads: (Contender & { command?: string })[] = [
    dl('ours chunked 4 (memory)', 'chunked', 4, 'memory'),
    dl('ours chunked 16 (memory)', 'chunked', 16, 'memory'),
    // One assemble concurrency only: its part fixtures (part.0 …) are sized by it.
    dl(`ours assemble ${ASSEMBLE_PARTS} (memory)`, 'assemble', ASSEMBLE_PARTS, 'memory'),
    dl('ours single (memory)', 'single', 1, 'memory'),
    dl('ours chunked 16 (sparse-file)', 'chunked', 16, 'sparse-file'),
    dl('SDK downloadToBuffer 4', 'sdk', 4, 'memory'),
    dl('SDK downloadToBuffer 16', 'sdk', 16, 'memory'),
    azcopy(
      ctx.azcopy,
      {
        label: 'azcopy copy BlobLocal',
        from: () => blobUrl(LARGE_BLOB),
        to: () => azcopyOut,
        fromTo: 'BlobLocal',
        bytes: DOWNLOAD_BYTES,
        after: () => rmSync(azcopyOut, { force: true }),
      },
      ctx.tmpDir,
    ),
  ];
  downloads[5]!.ours = false;
  downloads[6]!.ours = false;
  // A fresh Azurite for every run, its fixtures uploaded before the clock (PUTs: never in a GET span).
  const freshDownloads = downloads.map((c) => {
    const f = host.fresh(c, downloadFixtures);
    f.clock = { clock: host.clock, method: 'GET' };
    return f;
  });

  ctx.log('case 3a: Azurite downloads (a fresh Azurite and fixtures for every run)');
  const a = await alternate(freshDownloads, { runs: ctx.runs, log: ctx.log });

  const up = (label: string, method: string) =>
    ours(label, {
      command: 'upload',
      tmpDir: ctx.tmpDir,
      env,
      args: [
        '--upload-method',
        method,
        '--blob-size',
        `${uploadBytes / MiB}MiB`,
        '--block-size',
        '8MiB',
        '--concurrency',
        '8',
        '--max-sockets',
        '8',
      ],
    });
  const uploadSource = join(ctx.tmpDir, 'azcopy-upload.bin');
  await writeFixtureFile(uploadSource, uploadBytes);
  const azName = (run: number) => `bench-azcopy-upload-${run}.bin`;
  // Uploads pile data up in an in-memory Azurite: a fresh one for every run.
  const createContainer = async (fresh: BenchAzurite) => void (await containerOf(fresh).create());
  const uploadsList: (Contender & { command?: string })[] = [
    host.fresh(up('ours blocks 8 MiB x 8', 'blocks')),
    host.fresh(up('SDK uploadData 8 MiB x 8', 'sdk-upload')),
    host.fresh(
      azcopy(
        ctx.azcopy,
        {
          label: 'azcopy copy LocalBlob',
          from: () => uploadSource,
          to: (run) => blobUrl(azName(run)),
          fromTo: 'LocalBlob',
          bytes: uploadBytes,
          extraArgs: ['--block-size-mb', '8'],
        },
        ctx.tmpDir,
      ),
      createContainer,
    ),
  ];
  uploadsList[1]!.ours = false;
  for (const c of uploadsList) c.clock = { clock: host.clock, method: 'PUT' };
  ctx.log(`case 3b: Azurite upload of one ${uploadBytes / MiB} MiB blob`);
  const b = await alternate(uploadsList, { runs: ctx.runs, log: ctx.log });
  rmSync(uploadSource, { force: true });

  s.notes.push(
    `blob-cacher's embedded Azurite (in memory), hosted in the suite's process, started fresh for ` +
      `every run of every contender; for downloads, ` +
      `blob-cacher's fixtures (the ${DOWNLOAD_BYTES / MiB} MiB \`${LARGE_BLOB}\`, and its ` +
      `${ASSEMBLE_PARTS} parts for assemble) are uploaded to it before the clock starts. ` +
      `Upload: one ${uploadBytes / MiB} MiB blob in 8 MiB blocks, 8 in flight (azcopy: its own ` +
      `concurrency, 32 connections on 2 cores, 8 MiB blocks).`,
    'azcopy has no timer of its own finer than its 2-second progress tick, and its job ends on ' +
      'such a tick, so its "median s" is its process wall. ' +
      'Every contender is therefore also timed by Azurite itself ("server s": its http server, ' +
      "watched from the suite's process; the first data request's " +
      "arrival to the last data response's end — blob GETs for downloads; Put Block, Put Block " +
      'List and Put Blob for uploads), ' +
      'the same clock for all, and the goals compare on it. "process s" is spawn to exit: for ours ' +
      'it adds Node start, the fixture check, ' +
      'worker start and MD5 verification (for uploads, a read-back of the whole blob). The SDK ' +
      'baselines run inside blob-cacher and are timed like ours.',
  );
  s.tables.push(
    `**Download ${DOWNLOAD_BYTES / MiB} MiB**`,
    rowsTable(a),
    `**Upload ${uploadBytes / MiB} MiB**`,
    rowsTable(b),
  );
  s.rows.push(a, b);
  const oursMem = [
    'ours chunked 4 (memory)',
    'ours chunked 16 (memory)',
    `ours assemble ${ASSEMBLE_PARTS} (memory)`,
  ];
  s.goals.push(
    evaluate(
      {
        what: 'download >= 1.0x SDK (best of 4, 16)',
        ours: oursMem,
        peer: ['SDK downloadToBuffer 4', 'SDK downloadToBuffer 16'],
        atLeast: 1.0,
      },
      a,
    ),
    evaluate(
      {
        what: 'download >= 1.0x azcopy',
        ours: [...oursMem, 'ours chunked 16 (sparse-file)'],
        peer: 'azcopy copy BlobLocal',
        atLeast: 1.0,
      },
      a,
    ),
    evaluate(
      {
        what: 'download to a file vs azcopy (also to a file)',
        ours: ['ours chunked 16 (sparse-file)'],
        peer: 'azcopy copy BlobLocal',
      },
      a,
    ),
    evaluate(
      {
        what: 'upload >= 1.0x SDK',
        ours: ['ours blocks 8 MiB x 8'],
        peer: 'SDK uploadData 8 MiB x 8',
        atLeast: 1.0,
      },
      b,
    ),
    evaluate(
      {
        what: 'upload >= 1.0x azcopy',
        ours: ['ours blocks 8 MiB x 8'],
        peer: 'azcopy copy LocalBlob',
        atLeast: 1.0,
      },
      b,
    ),
  );
  for (const c of [...downloads, ...uploadsList])
    if (c.command) s.commands.push(`STORAGE_CONNECTION_STRING="<azurite>" ${c.command}`);
  s.commands.push(
    'azcopy copy "<endpoint>/blob-cacher/large.file?<SAS>" /tmp/…/azcopy-download.bin --from-to ' +
      'BlobLocal --output-level quiet',
    `azcopy copy /tmp/…/azcopy-upload.bin "<endpoint>/blob-cacher/bench-azcopy-upload-N.bin?<SAS>" ` +
      `--from-to LocalBlob --output-level quiet --block-size-mb 8`,
  );
  return s;
}
