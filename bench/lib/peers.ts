// The peers as contenders: raw Node scripts, curl, aria2c and azcopy, each run as its own process.
// Each takes its time from the tool itself where the tool reports one, else from the process wall.
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_DIR } from './ours.ts';
import { runProcess, tail, type ProcResult } from './proc.ts';
import { failedSample, type Contender, type Sample } from './sample.ts';
import type { Tool } from './tools.ts';

const PEERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'peers');

function fromJsonLine(r: ProcResult): Sample {
  if (r.code !== 0) return failedSample(`exit ${r.code ?? r.signal}: ${tail(r, 2)}`, r.processMs);
  const line = r.stdout.trim().split('\n').pop() ?? '{}';
  const j = JSON.parse(line) as {
    ms: number;
    bytes: number;
    requests?: number;
    failed?: number;
    firstError?: number;
  };
  if (j.failed)
    return failedSample(`${j.failed} request(s) failed (first: HTTP ${j.firstError})`, r.processMs);
  return {
    ok: true,
    transferMs: j.ms,
    processMs: r.processMs,
    bytes: j.bytes,
    requests: j.requests ?? 1,
    peakRssBytes: r.peakRssBytes,
    peakTreeRssBytes: r.peakTreeRssBytes,
  };
}

function skippedContender(label: string, timing: string, why: string): Contender {
  return { label, ours: false, timing, skipped: why, run: async () => failedSample(why) };
}

/** Raw Node http.get of the URL: dropped, hashed (`md5`), or piped to `outPath`. */
export function nodeGet(
  label: string,
  url: string,
  opts: { md5?: boolean; outPath?: string } = {},
): Contender {
  const args = [
    join(PEERS_DIR, 'node-get.ts'),
    url,
    ...(opts.md5 ? ['--md5'] : []),
    ...(opts.outPath ? ['--out', opts.outPath] : []),
  ];
  return {
    label,
    ours: false,
    timing: 'in-process',
    run: async () => {
      const s = fromJsonLine(await runProcess(process.execPath, args));
      if (opts.outPath) rmSync(opts.outPath, { force: true });
      return s;
    },
  };
}

/** Raw Node PUT loop: SOCKETS lanes, COUNT files of SIZE bytes under `base(run)`. */
export function nodePut(
  label: string,
  opts: {
    base: (run: number) => string;
    count: number;
    sizeBytes: number;
    sockets: number;
    account?: () => string;
    key?: () => string;
  },
): Contender {
  return {
    label,
    ours: false,
    timing: 'in-process',
    run: async (run) => {
      const args = [
        join(PEERS_DIR, 'node-put.ts'),
        '--base',
        opts.base(run),
        '--count',
        String(opts.count),
        '--size-bytes',
        String(opts.sizeBytes),
        '--sockets',
        String(opts.sockets),
      ];
      if (opts.account) args.push('--account', opts.account());
      const env = {
        ...process.env,
        BLOB_CACHER_DIST: DIST_DIR,
        ...(opts.key ? { BENCH_SHAREDKEY_KEY: opts.key() } : {}),
      };
      return fromJsonLine(await runProcess(process.execPath, args, { env }));
    },
  };
}

/** One HTTP client library in bench/peers/client-loop.ts (GETs or PUTs); `args(run)` are its flags. */
export function clientLoop(
  label: string,
  ours: boolean,
  args: (run: number) => readonly string[],
): Contender {
  return {
    label,
    ours,
    timing: 'in-process',
    run: async (run) => {
      const env = { ...process.env, BLOB_CACHER_DIST: DIST_DIR };
      return fromJsonLine(
        await runProcess(process.execPath, [join(PEERS_DIR, 'client-loop.ts'), ...args(run)], { env }),
      );
    },
  };
}

/** curl -s, one stream; time from curl's own %{time_total}. */
export function curl(label: string, tool: Tool, url: string, outPath: string, bytes: number): Contender {
  if (!tool.path) return skippedContender(label, 'curl time_total', tool.missing ?? 'not installed');
  return {
    label,
    ours: false,
    timing: 'curl time_total',
    run: async () => {
      const r = await runProcess(
        tool.path!,
        ['-s', '-f', '-o', outPath, '-w', '%{time_total} %{size_download}', url],
        { cpu: true },
      );
      if (outPath !== '/dev/null') rmSync(outPath, { force: true });
      if (r.code !== 0) return failedSample(`curl exit ${r.code}: ${tail(r, 1)}`, r.processMs);
      const [secs, size] = r.stdout.trim().split(' ').map(Number);
      if (size !== bytes) return failedSample(`curl got ${size} bytes, expected ${bytes}`, r.processMs);
      return {
        ok: true,
        transferMs: secs! * 1000,
        processMs: r.processMs,
        bytes,
        requests: 1,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
        ...(r.cpuMs !== undefined ? { cpuMs: r.cpuMs, cpuRequests: 1 } : {}),
      };
    },
  };
}

/** aria2c -xN -sN into a file (it has no discard); no own timer fine enough, so the process wall. */
export function aria2c(
  label: string,
  tool: Tool,
  url: string,
  outPath: string,
  bytes: number,
  connections: number,
): Contender {
  if (!tool.path) return skippedContender(label, 'process wall', tool.missing ?? 'not installed');
  const args = [
    `-x${connections}`,
    `-s${connections}`,
    '-k1M',
    '--file-allocation=none',
    '--allow-overwrite=true',
    '--auto-file-renaming=false',
    '--console-log-level=warn',
    '--summary-interval=0',
    '--download-result=hide',
    '--check-certificate=false',
    '--no-conf',
    '-d',
    dirname(outPath),
    '-o',
    basename(outPath),
    url,
  ];
  return {
    label,
    ours: false,
    timing: 'process wall',
    run: async () => {
      const r = await runProcess(tool.path!, args);
      rmSync(outPath, { force: true });
      rmSync(`${outPath}.aria2`, { force: true });
      if (r.code !== 0) return failedSample(`aria2c exit ${r.code}: ${tail(r, 1)}`, r.processMs);
      return {
        ok: true,
        transferMs: r.processMs,
        processMs: r.processMs,
        bytes,
        requests: connections,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
      };
    },
  };
}

/**
 * wrk PUTting files of SIZE bytes below `base(run)` over CONNECTIONS connections in THREADS threads,
 * for DURATION. Its own requests/s is the measure; the time shown is what COUNT files take at that
 * rate, so that it sits beside the count-based contenders. A non-2xx answer fails the sample.
 * Each thread formats WRK_NAMES requests (distinct names) once, in `init`, and cycles through them:
 * no Lua work per request, so wrk runs at its own ceiling. Formatting each request in `request()`
 * (a new name, the 100 KiB body concatenated anew) made wrk the bound: 5,500–9,200 req/s against
 * 20,000–24,000 with the requests made once, same nginx, same run (2 cores).
 */
/**
 * Distinct names per wrk thread, each PUT again in turn (nginx's DAV writes a new file and renames it over
 * the old).
 */
const WRK_NAMES = 64;

export function wrkPut(
  label: string,
  tool: Tool,
  opts: {
    base: (run: number) => string;
    count: number;
    sizeBytes: number;
    connections: number;
    threads: number;
    durationS: number;
    workDir: string;
  },
): Contender {
  if (!tool.path) return skippedContender(label, 'wrk Requests/sec', tool.missing ?? 'not installed');
  const bodyPath = join(opts.workDir, `wrk-body-${opts.sizeBytes}.bin`);
  const scriptPath = join(opts.workDir, 'wrk-put.lua');
  return {
    label,
    ours: false,
    timing: 'wrk Requests/sec',
    run: async (run) => {
      const url = new URL(opts.base(run).replace(/\/*$/, '/'));
      writeFileSync(bodyPath, Buffer.alloc(opts.sizeBytes, 0x5a));
      writeFileSync(
        scriptPath,
        [
          `local f = io.open(${JSON.stringify(bodyPath)}, "rb"); local body = f:read("*all"); f:close()`,
          // Each thread gets its own id (a global in its Lua state), so that names never collide.
          'local next_id = 0',
          'function setup(thread) thread:set("id", next_id); next_id = next_id + 1 end',
          'local sent = 0',
          `local requests = {}`,
          `function init(args) for i = 1, ${WRK_NAMES} do requests[i] = wrk.format("PUT", ` +
            `${JSON.stringify(url.pathname)} .. id .. "-" .. i, {["Content-Type"] = ` +
            `"application/octet-stream"}, body) end end`,
          `function request() sent = sent % ${WRK_NAMES} + 1; return requests[sent] end`,
        ].join('\n'),
      );
      const r = await runProcess(
        tool.path!,
        [
          '-t',
          String(opts.threads),
          '-c',
          String(opts.connections),
          '-d',
          `${opts.durationS}s`,
          '-s',
          scriptPath,
          url.origin,
        ],
        { cpu: true },
      );
      if (r.code !== 0) return failedSample(`wrk exit ${r.code}: ${tail(r, 1)}`, r.processMs);
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
      if (!rps) return failedSample(`wrk printed no Requests/sec: ${tail(r, 2)}`, r.processMs);
      const non2xx = /Non-2xx or 3xx responses: \d+/.exec(r.stdout);
      if (non2xx) return failedSample(`wrk: ${non2xx[0]}`, r.processMs);
      const transferMs = (opts.count / Number(rps[1])) * 1000;
      // Its CPU is over every request it made in its time, not over COUNT.
      const made = /(\d+) requests in/.exec(r.stdout);
      const cpu = r.cpuMs !== undefined && made ? { cpuMs: r.cpuMs, cpuRequests: Number(made[1]) } : {};
      return {
        ok: true,
        transferMs,
        processMs: r.processMs,
        bytes: opts.count * opts.sizeBytes,
        requests: opts.count,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
        ...cpu,
      };
    },
  };
}

export interface AzcopyJob {
  label: string;
  /** Source and destination; a blob URL carries its SAS (Azurite's public key: nothing secret). */
  from: (run: number) => string;
  to: (run: number) => string;
  fromTo: 'BlobLocal' | 'LocalBlob';
  bytes: number;
  extraArgs?: readonly string[];
  after?: (run: number) => Promise<void> | void;
}

/**
 * azcopy copy. Its job only ends on its 2-second progress tick, so its process wall (used here) is
 * rounded up to a multiple of about 2 s; its own "Elapsed Time" summary has the same granularity.
 */
export function azcopy(tool: Tool, job: AzcopyJob, workDir: string): Contender {
  if (!tool.path) return skippedContender(job.label, 'process wall', tool.missing ?? 'not installed');
  const env = {
    ...process.env,
    AZCOPY_LOG_LOCATION: join(workDir, 'azcopy-logs'),
    AZCOPY_JOB_PLAN_LOCATION: join(workDir, 'azcopy-plans'),
    AZCOPY_DISABLE_SYSLOG: 'true',
  };
  return {
    label: job.label,
    ours: false,
    timing: 'process wall (2 s ticks)',
    run: async (run) => {
      const args = [
        'copy',
        job.from(run),
        job.to(run),
        '--from-to',
        job.fromTo,
        '--output-level',
        'quiet',
        ...(job.extraArgs ?? []),
      ];
      const r = await runProcess(tool.path!, args, { env, timeoutMs: 10 * 60_000 });
      await job.after?.(run);
      if (r.code !== 0)
        return failedSample(
          `azcopy exit ${r.code}: ${tail(r, 1).replace(/sig=[^&\s]+/g, 'sig=REDACTED')}`,
          r.processMs,
        );
      return {
        ok: true,
        transferMs: r.processMs,
        processMs: r.processMs,
        bytes: job.bytes,
        requests: 1,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
      };
    },
  };
}
