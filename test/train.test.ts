// blob-cacher train on the emulated target: with each connection paced, reading a batch takes a known
// share of the compute time, so a prefetch depth of 0 leaves the accelerator waiting for every batch
// and a depth of one or two hides the reads behind compute; the report says where utilisation levels
// off. Also: each epoch's order is fixed by the seed, and bad input is one line and exit 2.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatedTarget, type EmulatedTarget } from '../src/emulate/server.js';
import { epochOrder } from '../src/plan/shuffle.js';
import { PLATEAU_POINTS, trainReport } from '../src/analysis/train.js';
import { encodeHistogram, newHistogram } from '../src/metrics/histograms.js';
import type { RunRecord } from '../src/results/schema.js';
import type { Report } from '../src/analysis/report-model.js';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';
import { CLI_JS, runCli } from './helpers/cli.js';
import { freshDirs, freshDirsSync } from './helpers/temp-dirs.js';

const KiB = 1024;
const tempDir = freshDirs('blob-cacher-train-');
const tempDirSync = freshDirsSync('blob-cacher-train-bad-');

describe('train on a target paced per connection', () => {
  // 4 sockets at 2 MiB/s each: a batch of 8 samples of 32 KiB is two rounds of ~16 ms, about 32 ms,
  // against 60 ms of compute: read when asked, utilisation is about 60 / 92; read ahead, near 100%.
  let target: EmulatedTarget;
  beforeAll(async () => {
    target = await startEmulatedTarget({ perConnectionBytesPerSecond: 2 * 1024 * KiB });
  });
  afterAll(() => target.close());

  it('shows utilisation rising with prefetch depth to a plateau, named by the verdict, in every format', {
    timeout: 120_000,
  }, async () => {
    const dir = await tempDir();
    const results = join(dir, 'train.json');
    const args = [
      'train',
      ...['--url', `${target.url}/data/`, '--file-count', '64', '--file-size', '32KiB'],
      ...['--epochs', '2', '--batch-size', '8', '--compute', '60ms', '--prefetch', '0,1,2,4'],
      ...['--processes', '1', '--max-sockets', '4', '--runs', '3', '--warmup', '0'],
      ...['--format', 'json', '--results', results],
    ];
    const run = await runCli(args, { cwd: dir, limitMs: 110_000 });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const train = report.train!;
    expect(train.contenders).toHaveLength(4);
    const [plateau] = train.plateaus;
    const depths = plateau!.depths;
    expect(depths.map((d) => d.prefetch)).toEqual([0, 1, 2, 4]);
    // Rises: the accelerator waits for every batch at depth 0, hardly at all once reads go ahead.
    expect(depths[0]!.utilisation).toBeLessThan(plateau!.levelsAt.utilisation - 0.1);
    expect(plateau!.levelsAt.prefetch).toBeGreaterThan(0);
    // A plateau, not a peak: every depth from where it levels off keeps above reading when asked
    // (a shared machine's noise moves a median by a few points either way, never back to depth 0's).
    for (const d of depths.filter((x) => x.prefetch >= plateau!.levelsAt.prefetch))
      expect(d.utilisation).toBeGreaterThan(depths[0]!.utilisation + 0.05);
    expect(train.verdict.join(' ')).toContain(`levels off at prefetch ${plateau!.levelsAt.prefetch} (`);
    // Every figure per contender: per epoch, throughput, the wait per batch.
    for (const c of train.contenders) {
      expect(c.perEpoch).toHaveLength(2);
      expect(c.samplesPerSecond).toBeGreaterThan(0);
      expect(c.waitP99Ms).toBeGreaterThanOrEqual(c.waitP50Ms);
    }
    const waitAt = (p: number) => train.contenders.find((c) => c.prefetch === p)!.waitP50Ms;
    expect(waitAt(0)).toBeGreaterThan(waitAt(plateau!.levelsAt.prefetch));
    // Every read of every epoch is counted: 64 samples x 2 epochs a run.
    const doc = JSON.parse(await readFile(results, 'utf8')) as { runs: { requests: number }[] };
    expect(doc.runs.every((r) => r.requests === 128)).toBe(true);
    // `report` reads the same figures back, and every format shows them.
    const again = await runCli(['report', results, '--format', 'json'], { cwd: dir });
    expect((JSON.parse(again.stdout) as Report).train).toEqual(train);
    const shown: Record<string, string> = {};
    for (const format of ['console', 'md', 'csv', 'html'])
      shown[format] = (await runCli(['report', results, '--format', format], { cwd: dir })).stdout;
    expect(shown.console).toContain(`levels off at prefetch ${plateau!.levelsAt.prefetch}`);
    expect(shown.md).toContain('### Accelerator utilisation');
    expect(shown.csv!.split('\n')[0]).toContain('train_utilisation,train_epoch_1_utilisation');
    expect(shown.html).toContain('data-chart="train-utilisation"');
  });

  it('reads samples larger than --range-size as ranged GETs, each sample checked whole', {
    timeout: 60_000,
  }, async () => {
    const dir = await tempDir();
    const results = join(dir, 'ranged.json');
    const args = [
      ...['train', '--url', `${target.url}/ranged/`, '--file-count', '8', '--file-size', '1MiB'],
      ...['--range-size', '256KiB', '--epochs', '2', '--batch-size', '2', '--compute', '20ms'],
      ...['--processes', '1', '--max-sockets', '8', '--runs', '2', '--warmup', '0', '--results', results],
    ];
    const run = await runCli(args, { cwd: dir, limitMs: 50_000 });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(await readFile(results, 'utf8')) as { runs: RunRecord[] };
    const parts = Math.ceil(1024 / 256);
    for (const r of doc.runs) {
      expect(r.verified).toBe(true);
      // Every part a request; every sample counted once per epoch, its bytes whole.
      expect(r.requests).toBe(8 * parts * 2);
      expect(r.train!.epochs.map((e) => e.samples)).toEqual([8, 8]);
      expect(r.train!.epochs.every((e) => e.bytes === 8 * 1024 * KiB)).toBe(true);
    }
  });

  it('is searched by tune over prefetch depth, which finds a depth above 0', {
    timeout: 120_000,
  }, async () => {
    const dir = await tempDir();
    const results = join(dir, 'tune.json');
    const args = [
      ...['tune', 'train', '--url', `${target.url}/data/`, '--file-count', '64', '--file-size', '32KiB'],
      ...[
        '--epochs',
        '2',
        '--batch-size',
        '8',
        '--compute',
        '60ms',
        '--processes',
        '1',
        '--max-sockets',
        '4',
      ],
      ...['--runs', '4', '--warmup', '0', '--budget', '40s', '--format', 'json', '--results', results],
    ];
    const run = await runCli(args, { cwd: dir, limitMs: 110_000 });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(await readFile(results, 'utf8')) as {
      tune: { axes: { flag: string }[]; best?: Record<string, string> };
    };
    expect(doc.tune.axes.map((a) => a.flag)).toEqual(['--prefetch']);
    // Reading nothing ahead leaves the accelerator waiting for every batch: never the answer here.
    expect(Number(doc.tune.best?.['--prefetch'])).toBeGreaterThan(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.train?.plateaus[0]?.depths.length).toBeGreaterThan(1);
    // The answer is a training run's own command line, which `train` takes as printed.
    expect(report.tune?.deploy?.run).toMatch(/^npx blob-cacher train .*--prefetch \d+/);
    expect(report.tune?.deploy?.k8sManifest).toBeUndefined();
  });
});

describe('the plateau rule', () => {
  /** Runs of one depth whose utilisation is `u` each (compute over wall of one epoch). */
  const runsAt = (prefetch: number, us: readonly number[]): RunRecord[] =>
    us.map(
      (u) =>
        ({
          strategy: 'reader',
          cell: { '--prefetch': String(prefetch) },
          warmup: false,
          verified: true,
          wallMs: 1000,
          requests: 100,
          bytes: 1_000_000,
          train: {
            epochs: [{ computeMs: u * 1000, wallMs: 1000, samples: 100, bytes: 1_000_000, batches: 10 }],
            batchSize: 10,
            computeMs: u * 100,
            prefetch,
            accelerators: 1,
            waitUs: encodeHistogram(newHistogram()),
            passMark: 0.9,
          },
        }) as unknown as RunRecord,
    );

  it('levels off at the smallest depth within 2 points of the best median, not at the best', () => {
    const medians = [0.6, 0.85, 0.955, 0.97];
    const runs = [0, 1, 2, 4].flatMap((p, i) =>
      runsAt(p, [medians[i]! - 0.005, medians[i]!, medians[i]! + 0.005]),
    );
    const t = trainReport(runs)!;
    const [p] = t.plateaus;
    expect(p!.best.prefetch).toBe(4);
    const within = [0, 1, 2, 4].filter((_, i) => medians[i]! >= medians[3]! - PLATEAU_POINTS);
    expect(p!.levelsAt.prefetch).toBe(within[0]);
    expect(t.verdict[0]).toContain(`levels off at prefetch ${within[0]} (`);
    // The pass mark: the shallowest depth that keeps it is named.
    expect(t.verdict.join(' ')).toContain(
      `reader from prefetch ${[0, 1, 2, 4].find((_, i) => medians[i]! >= 0.9)}`,
    );
  });
});

describe('the order of an epoch', () => {
  it('is a permutation fixed by the seed, another for another epoch, reader or seed', () => {
    const a = epochOrder(1000, 7, 0, 0);
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect([...epochOrder(1000, 7, 0, 0)]).toEqual([...a]);
    for (const other of [epochOrder(1000, 7, 1, 0), epochOrder(1000, 7, 0, 1), epochOrder(1000, 8, 0, 0)])
      expect([...other]).not.toEqual([...a]);
    // Shuffled, not the identity or nearly: most samples move.
    expect([...a].filter((v, i) => v === i).length).toBeLessThan(20);
  });
});

describe('bad input to train', () => {
  const bad: [string, string[], RegExp][] = [
    ['a preset it does not know', ['--preset', 'bert'], /--preset.*resnet50, cosmoflow, unet3d/],
    ['a negative prefetch', ['--prefetch', '-1'], /--prefetch/],
    ['no compute time', ['--compute', '0ms'], /--compute.*duration/],
    ['a one-object strategy', ['--source-method', 'chunked'], /train reads its samples one file each/],
    ['a steady run', ['--duration', '10s'], /drop --duration and --rate/],
    [
      'ranges into a sink that hashes each request',
      ['--range-size', '1MiB', '--sink', 'discard'],
      /--sink discard/,
    ],
  ];
  it.each(bad)('refuses %s in one line, exit 2', (_, args, re) => {
    const dir = tempDirSync();
    const line = expectOneLine(runCliIn(dir, [CLI_JS, 'train', '--url', 'http://127.0.0.1:9/d/', ...args]));
    expect(line).toMatch(re);
  });
});
