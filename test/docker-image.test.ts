// The image as its users run it: built from the project's Dockerfile, unchanged, then each `docker run`
// the README prints, with the results on a mounted directory, and three containers as an Indexed
// Job's pods (the environment `k8s-manifest` gives them) meeting at one Azurite, merged by `collect`.
// Where no Docker engine answers, or node:24-slim is absent (no image registry here), it skips and
// says why: .ci/run starts an engine (scripts/docker-engine.sh) and builds a stand-in for the base
// (scripts/node-base-image.sh). The engine of these machines has no bridge: every container runs with
// --network host (or none), as the README says for such engines.
import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';

const IMAGE = 'blob-cacher-node-perf';
const root = resolve(import.meta.dirname, '..');
const CLI = join(root, 'dist', 'cli.js');
/** The image's USER (Dockerfile). */
const IMAGE_UID = 1000;
const MIN = 60_000;

function whyNot(): string | undefined {
  if (process.env.BLOB_CACHER_DOCKER_SKIP) return process.env.BLOB_CACHER_DOCKER_SKIP;
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (info.error || info.status !== 0) {
    const said = info.error?.message ?? info.stderr.trim().split('\n').pop() ?? `exit ${info.status}`;
    return `docker info fails (${said}): no Docker engine answers; scripts/docker-engine.sh starts one`;
  }
  const base = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', 'node:24-slim'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (base.status !== 0)
    return (
      'node:24-slim is absent (no image registry is reachable here): scripts/node-base-image.sh ' +
      'builds a stand-in'
    );
  return undefined;
}

const skip = whyNot();
const title = (name: string) => (skip ? `${name} (skipped: ${skip})` : name);
if (skip) process.stdout.write(`↓ ${title('the Docker image')}\n`);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

const made: string[] = [];
const dirs: string[] = [];
let seq = 0;
const containerName = () => `bc-test-${process.pid}-${++seq}`;

/**
 * `docker run --name N ARGS…`, bounded: past `timeoutMs` the container is killed (exit 137 then).
 * `onStderr` sees the error stream as it comes (to act mid-run); each run's exit and wall time are
 * logged for the record.
 */
function dockerRun(
  args: string[],
  o: { timeoutMs: number; name?: string; keep?: boolean; onStderr?: (all: string) => void },
): Promise<Ran> {
  const name = o.name ?? containerName();
  made.push(name);
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn('docker', ['run', ...(o.keep ? [] : ['--rm']), '--name', name, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      o.onStderr?.(stderr);
    });
    const timer = setTimeout(() => spawnSync('docker', ['kill', name], { timeout: 30_000 }), o.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      // Variables by name only: a connection string's key stays out of the log.
      const shown = args.filter((a) => a !== IMAGE).map((a) => a.replace(/^(STORAGE_[A-Z_]+)=.*$/, '$1=…'));
      console.log(`docker run ${shown.join(' ')}: exit ${code} in ${(wallMs / 1000).toFixed(1)} s`);
      done({ code, stdout, stderr, wallMs });
    });
  });
}

/**
 * A fresh host directory for /app/results, owned by the image's uid (the fix its refusal names);
 * with `asMade`, left as mkdtemp made it (this test's user's).
 */
async function resultsDir(asMade = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bc-docker-'));
  dirs.push(dir);
  if (!asMade) {
    // Not root: chown is refused; a directory anyone can write serves the same.
    await chown(dir, IMAGE_UID, 0).catch(() => chmod(dir, 0o777));
  }
  return dir;
}

const mount = (dir: string) => ['-v', `${dir}:/app/results`];
/** What the README prints for an engine without a bridge, before the image's own flags. */
const hostNet = ['--network', 'host'];

/** The one results file a run left in `dir`, parsed. */
async function resultsIn(dir: string): Promise<{
  name: string;
  doc: Record<string, unknown> & { runs: unknown[]; config: Record<string, unknown> };
}> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  expect(names, `results files in ${dir}`).toHaveLength(1);
  return { name: names[0]!, doc: JSON.parse(await readFile(join(dir, names[0]!), 'utf8')) };
}

/** `blob-cacher report FILE` on the host: a results file the tool wrote reads back. */
function reportOf(path: string) {
  return spawnSync(process.execPath, [CLI, 'report', path], {
    encoding: 'utf8',
    timeout: MIN,
    env: { PATH: process.env.PATH ?? '' },
  });
}

const noStack = (r: Ran) => expect(r.stderr).not.toMatch(/\n\s+at /);
const blobCacherLines = (r: Ran) =>
  r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('blob-cacher:'));

/** A small upload, for the runs whose point is not the card's or the seed's numbers. */
const SMALL = [
  '-e',
  'PROCESSES=2',
  '-e',
  'MAX_SOCKETS=4',
  '-e',
  'FILE_SIZE=10',
  '-e',
  'FILE_COUNT=200',
  '-e',
  'BLOB_CACHER_RUNS=2',
];

beforeAll(async () => {
  if (skip) return;
  const started = performance.now();
  // --network host: npm ci in the build reaches the registry through the host's network.
  const build = await new Promise<Ran>((done) => {
    const child = spawn('docker', ['build', '--network', 'host', '-t', IMAGE, root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr, wallMs: performance.now() - started }));
  });
  if (build.code !== 0)
    throw new Error(
      `docker build failed (exit ${build.code}): ` +
        `${`${build.stdout}${build.stderr}`.trim().split('\n').slice(-8).join(' | ')}`,
    );
  const size = spawnSync('docker', ['image', 'inspect', '--format', '{{.Size}}', IMAGE], {
    encoding: 'utf8',
  }).stdout.trim();
  console.log(
    `docker build: ${(build.wallMs / 1000).toFixed(1)} s; image ${(Number(size) / 1e6).toFixed(0)} MB`,
  );
}, 25 * MIN);

afterAll(async () => {
  for (const name of made) spawnSync('docker', ['rm', '-f', name], { stdio: 'ignore', timeout: 30_000 });
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)(title('the image, run as the README prints'), () => {
  it(
    "the card's command: PROCESSES=16 MAX_SOCKETS=8, the answer printed and the results on the " +
      'mounted directory',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(
        [...hostNet, ...mount(dir), '-e', 'PROCESSES=16', '-e', 'MAX_SOCKETS=8', IMAGE],
        { timeoutMs: 10 * MIN },
      );
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/small-files/);
      const { doc } = await resultsIn(dir);
      expect(doc.complete).toBe(true);
      expect(doc.config).toMatchObject({ processes: 16, maxSockets: 8 });
      expect(doc.runs.length).toBeGreaterThanOrEqual(5);
    },
    11 * MIN,
  );

  it(
    "the seed's command: FILE_SIZE=102 FILE_COUNT=2400 MAX_SOCKETS=8 PROCESSES=16",
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(
        [
          ...hostNet,
          ...mount(dir),
          '-e',
          'FILE_SIZE=102',
          '-e',
          'FILE_COUNT=2400',
          '-e',
          'MAX_SOCKETS=8',
          '-e',
          'PROCESSES=16',
          IMAGE,
        ],
        { timeoutMs: 10 * MIN },
      );
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      const { name, doc } = await resultsIn(dir);
      expect(doc.complete).toBe(true);
      expect(doc.config).toMatchObject({
        processes: 16,
        maxSockets: 8,
        fileCount: 2400,
        fileSizeBytes: 102_000,
      });
      expect(reportOf(join(dir, name)).status).toBe(0);
    },
    11 * MIN,
  );

  it(
    'download --source-method assemble',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(
        [...hostNet, ...mount(dir), IMAGE, 'download', '--source-method', 'assemble'],
        { timeoutMs: 6 * MIN },
      );
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/assemble/);
      const { doc } = await resultsIn(dir);
      expect(doc.command).toBe('download');
      expect(doc.complete).toBe(true);
    },
    7 * MIN,
  );

  it(
    '--network none: the embedded Azurite needs no network',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(['--network', 'none', ...mount(dir), ...SMALL, IMAGE], {
        timeoutMs: 6 * MIN,
      });
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      expect((await resultsIn(dir)).doc.complete).toBe(true);
    },
    7 * MIN,
  );

  it(
    "--user 12345 (an arbitrary uid in group 0, as OpenShift runs images) writes the image's " +
      '/app/results and its compile cache',
    async () => {
      const name = containerName();
      const r = await dockerRun([...hostNet, '--user', '12345', ...SMALL, IMAGE], {
        timeoutMs: 6 * MIN,
        name,
        keep: true,
      });
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      // No mount: the results stay in the container's own /app/results, taken out with docker cp.
      const dir = await resultsDir(true);
      const cp = spawnSync('docker', ['cp', `${name}:/app/results/.`, dir], {
        encoding: 'utf8',
        timeout: MIN,
      });
      expect(cp.status, cp.stderr).toBe(0);
      expect((await resultsIn(dir)).doc.complete).toBe(true);
      // Node's compile cache, made by this uid in /tmp: the image holds none of root's in the way.
      const cache = await resultsDir(true);
      const cpCache = spawnSync('docker', ['cp', `${name}:/tmp/node-compile-cache`, cache], {
        encoding: 'utf8',
        timeout: MIN,
      });
      expect(cpCache.status, cpCache.stderr).toBe(0);
      expect((await readdir(join(cache, 'node-compile-cache'))).length).toBeGreaterThan(0);
    },
    7 * MIN,
  );

  it(
    '--read-only --tmpfs /tmp: results on the mount, the compile cache in the tmpfs',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(
        [...hostNet, '--read-only', '--tmpfs', '/tmp', ...mount(dir), ...SMALL, IMAGE],
        { timeoutMs: 6 * MIN },
      );
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      expect((await resultsIn(dir)).doc.complete).toBe(true);
    },
    7 * MIN,
  );

  it(
    'a mounted directory uid 1000 cannot write: one line naming uid 1000 and the fix, exit 2',
    async () => {
      const dir = await resultsDir(true);
      await chmod(dir, 0o755);
      // Root's (as this test runs in CI); where it is not, the directory is someone else's all the same.
      const r = await dockerRun([...hostNet, ...mount(dir), ...SMALL, IMAGE], { timeoutMs: 6 * MIN });
      noStack(r);
      expect(r.code).toBe(2);
      const lines = blobCacherLines(r);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\/app\/results is not writable by uid 1000/);
      expect(lines[0]).toContain('chown 1000');
      expect(lines[0]).toContain('--user');
      expect(await readdir(dir)).toEqual([]);
    },
    7 * MIN,
  );

  it(
    "docker stop mid-run: exit 143 within docker's 10 s grace and a valid partial results file",
    async () => {
      const dir = await resultsDir();
      const name = containerName();
      let stopped: Promise<{ ms: number }> | undefined;
      // Stopped once the third run is under way: the first two (a warm-up and a measured run) are done.
      // A progress line every 200 ms, so that the third run is seen however fast the runs are.
      const r = await dockerRun(
        [
          ...hostNet,
          ...mount(dir),
          '-e',
          'PROCESSES=2',
          '-e',
          'MAX_SOCKETS=8',
          '-e',
          'FILE_SIZE=10',
          '-e',
          'FILE_COUNT=2400',
          '-e',
          'BLOB_CACHER_PROGRESS_INTERVAL=200ms',
          IMAGE,
        ],
        {
          name,
          timeoutMs: 6 * MIN,
          onStderr: (all) => {
            if (stopped || !/progress: small-files run 3\//.test(all)) return;
            stopped = new Promise((done) => {
              const at = performance.now();
              const stop = spawn('docker', ['stop', name], { stdio: 'ignore' });
              stop.on('close', () => done({ ms: performance.now() - at }));
            });
          },
        },
      );
      expect(stopped, r.stderr).toBeDefined();
      const { ms } = await stopped!;
      console.log(`docker stop took ${(ms / 1000).toFixed(1)} s`);
      expect(r.code, r.stderr).toBe(143);
      expect(ms).toBeLessThan(10_000);
      const { name: file, doc } = await resultsIn(dir);
      expect(doc.complete).toBe(false);
      expect(doc.interrupted).toMatch(/SIGTERM/);
      expect(doc.runs.length).toBeGreaterThanOrEqual(1);
      expect(reportOf(join(dir, file)).status).toBe(0);
    },
    7 * MIN,
  );

  it(
    '--memory 512m with PROCESSES=16: refused or fitted with a line saying so, never killed silently',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun(
        [...hostNet, '--memory', '512m', ...mount(dir), ...SMALL, '-e', 'PROCESSES=16', IMAGE],
        { timeoutMs: 6 * MIN },
      );
      noStack(r);
      expect(r.code, r.stderr).not.toBe(137);
      expect([0, 2]).toContain(r.code);
      // Either way a line names the memory the container has.
      expect(r.stderr).toMatch(/\b(5\d\d|4\d\d) MiB\b/);
      if (r.code === 2)
        expect(blobCacherLines(r)).toEqual([
          expect.stringMatching(/--processes 16 .*MiB.*give --processes \d+ or fewer/),
        ]);
    },
    7 * MIN,
  );

  it(
    '--cpus 1: the processes are weighed against 1 core',
    async () => {
      const dir = await resultsDir();
      const r = await dockerRun([...hostNet, '--cpus', '1', ...mount(dir), ...SMALL, IMAGE], {
        timeoutMs: 6 * MIN,
      });
      noStack(r);
      expect(r.code, r.stderr).toBe(0);
      // The container's CPU quota, not the host's cores, is what the workers share.
      expect(r.stderr).toMatch(/--processes 2 is more than [^\n]*\b1 core\(s\)/);
    },
    7 * MIN,
  );
});

describe.skipIf(skip !== undefined)(title("the image as an Indexed Job's pods"), () => {
  let azurite: EmbeddedAzurite;
  let cs = '';
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
    cs =
      `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
      `BlobEndpoint=${azurite.endpoint}`;
  }, MIN);
  afterAll(async () => {
    await azurite?.stop();
  });

  const ARGS = [
    'upload',
    '--file-count',
    '300',
    '--file-size',
    '1',
    '--processes',
    '1',
    '--max-sockets',
    '4',
  ];

  /**
   * The pod the manifest describes: its args and env (the run id the downward API would give), its
   * securityContext's flags.
   */
  function podOf(
    job: {
      spec: {
        template: { spec: { containers: { args: string[]; env: { name: string; value?: string }[] }[] } };
      };
    },
    runId: string,
  ) {
    const c = job.spec.template.spec.containers[0]!;
    const env = c.env.map((e) => `${e.name}=${e.value ?? runId}`);
    return { args: c.args, env };
  }

  /** The Job `k8s-manifest` prints (the build's own CLI: the image runs the same dist/). */
  function manifestFor(k: number) {
    const r = spawnSync(process.execPath, [CLI, 'k8s-manifest', '--parallelism', String(k), '--', ...ARGS], {
      encoding: 'utf8',
      timeout: MIN,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  }

  /**
   * One pod: uid 1000, read-only root, an emptyDir at /app/results (a fresh directory any uid can
   * write, as an emptyDir is; docker's --tmpfs over an image directory takes that directory's mode
   * but root as its owner) and one at /tmp, JOB_COMPLETION_INDEX as the Job sets it.
   */
  async function pod(
    job: Parameters<typeof podOf>[0],
    runId: string,
    index: number,
    extraEnv: string[] = [],
  ) {
    const { args, env } = podOf(job, runId);
    const emptyDir = await resultsDir(true);
    await chmod(emptyDir, 0o777);
    return dockerRun(
      [
        ...hostNet,
        '--user',
        '1000',
        '--read-only',
        '--tmpfs',
        '/tmp',
        ...mount(emptyDir),
        '--security-opt',
        'no-new-privileges',
        '--cap-drop',
        'ALL',
        ...[
          ...env,
          `JOB_COMPLETION_INDEX=${index}`,
          `STORAGE_CONNECTION_STRING=${cs}`,
          'BLOB_CACHER_START_LEAD=3s',
          ...extraEnv,
        ].flatMap((e) => ['-e', e]),
        IMAGE,
        ...args,
      ],
      { timeoutMs: 6 * MIN },
    );
  }

  it(
    'three pods pass the barrier together, and collect merges their shards',
    async () => {
      const job = manifestFor(3);
      const runId = `docker-${process.pid}-3`;
      const pods = await Promise.all([0, 1, 2].map((i) => pod(job, runId, i)));
      for (const p of pods) {
        noStack(p);
        expect(p.code, p.stderr).toBe(0);
      }
      const collected = await dockerRun(
        [
          ...hostNet,
          '-e',
          `STORAGE_CONNECTION_STRING=${cs}`,
          IMAGE,
          'collect',
          '--run-id',
          runId,
          '--format',
          'json',
        ],
        { timeoutMs: 6 * MIN },
      );
      expect(collected.code, collected.stderr).toBe(0);
      const merged = JSON.parse(collected.stdout);
      console.log(`3 pods: start spread ${merged.startSpreadMs.toFixed(1)} ms`);
      expect(merged.missing).toEqual([]);
      expect(merged.failed).toEqual([]);
      expect(merged.ready).toEqual([0, 1, 2]);
      expect(merged.totals.requests).toBe(300);
    },
    14 * MIN,
  );

  it(
    'one pod missing: the others give up at the barrier with exit 3',
    async () => {
      const job = manifestFor(3);
      const runId = `docker-${process.pid}-missing`;
      const pods = await Promise.all(
        [0, 1].map((i) => pod(job, runId, i, ['BLOB_CACHER_BARRIER_TIMEOUT=8s'])),
      );
      for (const p of pods) {
        noStack(p);
        expect(p.code, p.stderr).toBe(3);
        expect(blobCacherLines(p)).toHaveLength(1);
      }
    },
    8 * MIN,
  );
});
