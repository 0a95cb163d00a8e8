// `checkpoint`: K ranks write a shard each at once and read it back, checked byte for byte, on the
// embedded Azurite and on real in-memory servers that misbehave (a slow rank, a flipped byte); the
// straggler figure, cleanup and --keep, the results file that `report` reads back, and bad input.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointReport } from '../src/analysis/checkpoint.js';
import { loadCheckpointConfig, type CheckpointConfig } from '../src/config/checkpoint.js';
import { buildProgram, parseFlags } from '../src/config/load.js';
import { CHECKPOINT_OPTIONS } from '../src/config/options.js';
import { readSources } from '../src/cli/sources.js';
import { runCheckpoint } from '../src/engine/checkpoint.js';
import { setLogLevel } from '../src/log/logger.js';
import { toRunRecord } from '../src/results/record.js';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';
import { CLI_JS, startCli } from './helpers/cli.js';
import { argvOf } from './helpers/config.js';
import { close } from './helpers/http-servers.js';
import { startShardServer, type ShardServer } from './helpers/shard-server.js';

const MIB = 1024 * 1024;
let tmp: string;
const servers: ShardServer[] = [];

beforeAll(() => {
  setLogLevel('error');
  tmp = mkdtempSync(join(tmpdir(), 'checkpoint-test-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => close(s.server)));
  rmSync(tmp, { recursive: true, force: true });
});

/** A checkpoint config as its command line would say it, through the real loader. */
function config(settings: Record<string, unknown>, url?: string): CheckpointConfig {
  const all = { runs: 1, warmup: 0, logLevel: 'error', maxSockets: 4, ...settings };
  const argv = [...argvOf(CHECKPOINT_OPTIONS, all), ...(url ? [`--url=${url}/dav/`] : [])];
  const flags = parseFlags(buildProgram('checkpoint', CHECKPOINT_OPTIONS, 'test'), argv)!;
  return loadCheckpointConfig(flags, readSources(CHECKPOINT_OPTIONS, flags, {}, '/nonexistent'));
}

async function server(options: Parameters<typeof startShardServer>[0] = {}): Promise<ShardServer> {
  const s = await startShardServer(options);
  servers.push(s);
  return s;
}

const shardPaths = (s: ShardServer) => [...s.files.keys()].filter((p) => /rank-\d{4}$/.test(p));

describe('checkpoint on the embedded Azurite', () => {
  it('verifies every byte of 4 ranks x 256 MiB written as staged blocks, and reports each rank', async () => {
    const c = config({
      processes: 4,
      shardSizeBytes: 256 * MIB,
      blockSizesBytes: '8MiB',
      shardWrite: 'blocks',
    });
    const out = await runCheckpoint(c);
    expect(out.results.map((r) => r.strategy)).toEqual(['shard-blocks']);
    const [run] = out.results;
    expect(run!.verified, run!.verification).toBe(true);
    const facts = run!.checkpoint!;
    expect(facts.read?.verified).toBe(true);
    expect(facts.read?.verification).toContain(`${4 * 256 * MIB} bytes read back in 128 range(s)`);
    expect(facts.write.map((s) => s.bytes)).toEqual([256 * MIB, 256 * MIB, 256 * MIB, 256 * MIB]);
    expect(facts.read?.ranks.map((s) => s.bytes)).toEqual([256 * MIB, 256 * MIB, 256 * MIB, 256 * MIB]);
    // The consistent point is the last commit, after every rank's last block.
    expect(facts.consistentMs).toBeGreaterThanOrEqual(Math.max(...facts.write.map((s) => s.endMs)));
    const report = checkpointReport({ runs: out.results.map(toRunRecord) })!;
    expect(report.contenders[0]!.perRank).toHaveLength(4);
    expect(report.contenders[0]!.readVerified).toBe(1);
  }, 600_000);

  it('writes a shard as one Put Blob too where it fits, checked by its MD5 and the read-back', async () => {
    const c = config({ processes: 2, shardSizeBytes: 3 * MIB, blockSizesBytes: '1MiB' });
    const out = await runCheckpoint(c);
    expect(out.results.map((r) => r.strategy).sort()).toEqual(['shard-blocks', 'shard-put']);
    for (const r of out.results) {
      expect(r.verified, r.verification).toBe(true);
      expect(r.checkpoint?.read?.requests).toBe(6);
    }
    const put = out.results.find((r) => r.strategy === 'shard-put')!;
    expect(put.requests).toBe(2);
    expect(put.checkpoint?.blockSizeBytes).toBeUndefined();
  }, 120_000);
});

describe('checkpoint on a plain server', () => {
  it('catches a byte flipped on the way back: the run is not verified and names the shard', async () => {
    const s = await server({ flipOnGet: (p) => p.endsWith('rank-0001') });
    const out = await runCheckpoint(
      config({ processes: 3, shardSizeBytes: 2 * MIB, blockSizesBytes: '1MiB' }, s.url),
    );
    const [run] = out.results;
    expect(run!.strategy).toBe('shard-put');
    expect(run!.verified).toBe(false);
    expect(run!.verification).toMatch(/read-back MISMATCH in .*rank-0001 at offset 0/);
    expect(run!.checkpoint?.read?.verified).toBe(false);
    const report = checkpointReport({ runs: out.results.map(toRunRecord) });
    // A failed run gives no figures: nothing unverified is reported as a checkpoint's bandwidth.
    expect(report).toBeUndefined();
  }, 120_000);

  it('puts the slow rank last and most of the time after the median in the straggler share', async () => {
    const s = await server({ putDelayMs: (p) => (p.endsWith('rank-0002') ? 1_500 : 0) });
    const out = await runCheckpoint(
      config({ processes: 4, shardSizeBytes: MIB, blockSizesBytes: '1MiB', runs: 2 }, s.url),
    );
    expect(out.results.every((r) => r.verified)).toBe(true);
    const c = checkpointReport({ runs: out.results.map(toRunRecord) })!.contenders[0]!;
    expect(c.perRank.map((r) => r.slowestIn)).toEqual([0, 0, 2, 0]);
    expect(c.perRank[2]!.writeEndMs).toBeGreaterThanOrEqual(1_500);
    // The other ranks end well before the held one: the time after the median rank is most of it.
    expect(c.stragglerShare.median).toBeGreaterThan(0.5);
    expect(c.slowestOverMedian.median).toBeGreaterThan(2);
  }, 120_000);

  it('deletes the shards after each run, and keeps them with --keep', async () => {
    const s = await server();
    await runCheckpoint(config({ processes: 2, shardSizeBytes: MIB, runs: 2 }, s.url));
    expect(shardPaths(s)).toEqual([]);
    await runCheckpoint(config({ processes: 2, shardSizeBytes: MIB, keep: true }, s.url));
    expect(shardPaths(s)).toHaveLength(2);
  }, 120_000);
});

describe('checkpoint from the command line', () => {
  it('writes a results file whose report carries the checkpoint in every format', async () => {
    const s = await server();
    const results = join(tmp, 'ckpt.json');
    const args = ['checkpoint', '--url', `${s.url}/dav/`, '--processes', '2', '--shard-size', '1MiB'];
    const run = await startCli([...args, '--results', results, '--log-level', 'error'], {
      cwd: tmp,
      limitMs: 60_000,
    }).exited;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('checkpoint: 2 rank(s) x 1 MiB shard');
    expect(JSON.parse(readFileSync(results, 'utf8')).runs[0].checkpoint.read.verified).toBe(true);
    const report = (format: string) =>
      runCliIn(tmp, [CLI_JS, 'report', results, '--format', format], {}, 30_000);
    expect(report('console').stdout).toContain('shard-put per rank');
    expect(report('md').stdout).toContain('### Checkpoint');
    expect(report('csv').stdout.split('\n')[0]).toContain('checkpoint_rank_1_read_mibps');
    expect(report('html').stdout).toContain('<section id="checkpoint">');
    expect(JSON.parse(report('json').stdout).checkpoint.contenders[0].ranks).toBe(2);
  }, 120_000);

  it('compares several block sizes as cells of one session, each checkpoint verified', async () => {
    const results = join(tmp, 'sizes.json');
    const args = ['checkpoint', '--processes', '2', '--shard-size', '2MiB', '--block-size', '512KiB,1MiB'];
    const run = await startCli(
      [...args, '--shard-write', 'blocks', '--results', results, '--log-level', 'error'],
      {
        cwd: tmp,
        limitMs: 120_000,
      },
    ).exited;
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(results, 'utf8'));
    const cells = doc.runs.map((r: { cell: Record<string, string> }) => r.cell['--block-size']);
    expect(cells).toEqual(['512KiB', '1MiB']);
    expect(
      doc.runs.map((r: { checkpoint: { read: { requests: number } } }) => r.checkpoint.read.requests),
    ).toEqual([8, 4]);
    expect(run.stdout).toContain('shard-blocks [--block-size 512KiB] per rank');
  }, 180_000);

  it('is searched by tune over ranks and sockets, and the deploy line runs checkpoint', async () => {
    const s = await server();
    const results = join(tmp, 'tune-ckpt.json');
    const args = ['tune', 'checkpoint', '--url', `${s.url}/dav/`, '--shard-size', '256KiB', '--budget', '4s'];
    const run = await startCli([...args, '--results', results, '--log-level', 'error'], {
      cwd: tmp,
      limitMs: 120_000,
    }).exited;
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(results, 'utf8'));
    expect(doc.tune.command).toBe('checkpoint');
    expect(doc.tune.axes.map((a: { flag: string }) => a.flag)).toEqual(['--max-sockets', '--processes']);
    expect(doc.runs.every((r: { strategy: string }) => r.strategy === 'shard-put')).toBe(true);
    const json = JSON.parse(
      runCliIn(tmp, [CLI_JS, 'report', results, '--format', 'json'], {}, 30_000).stdout,
    );
    // A checkpoint runs on one machine: its deploy line is the command, not a Kubernetes Job.
    expect(json.tune.deploy.k8sManifest).toBeUndefined();
    expect(json.tune.deploy.run).toMatch(
      /^npx blob-cacher checkpoint .*--shard-size 256KiB --shard-write put/,
    );
    expect(json.checkpoint.contenders).toHaveLength(1);
  }, 180_000);

  it.each([
    [['--shard-size', '0'], /--shard-size/],
    [['--shard-size', '300MiB', '--shard-write', 'put'], /above --single-shot-size/],
    [['--url', 'http://127.0.0.1:9/dav/', '--shard-write', 'blocks'], /needs a blob service/],
    [['--duration', '5s'], /drop --duration/],
    [['--shard-write', 'sideways'], /--shard-write/],
    [['--block-size', '4MiB,x'], /--block-size/],
    [['--processes', '4', '--shard-size', '64GiB'], /more than 80% of this machine's/],
    [['--block-size', '4MiB,8MiB', '--shard-write', 'put'], /several --block-size values/],
  ])('refuses %j in one line, exit 2', (args, problem) => {
    const line = expectOneLine(runCliIn(tmp, [CLI_JS, 'checkpoint', ...args]));
    expect(line).toMatch(problem);
  });
});
