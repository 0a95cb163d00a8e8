import { nodeHttp } from '../startup/lazy.js';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { CloudFacts, EndpointFacts, Environment, TcpSettings } from '../results/schema.js';
import { packageDirs, packageVersion } from './node-check.js';
import { onThisMachine } from '../transport/this-machine.js';

export const IMDS_URL = 'http://169.254.169.254/metadata/instance/compute?api-version=2021-02-01';

export interface CaptureOptions {
  /** The target's URL; absent for the embedded Azurite (on this machine, nothing to resolve). */
  endpoint?: string;
  /** Where /proc is (tests point it at a directory of their own). */
  procRoot?: string;
  /** The metadata service; undefined skips it. */
  imdsUrl?: string;
  imdsTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/**
 * The SDK's package.json, found where Node would look for the package from here, and read: a
 * require() of it would resolve the package's exports through the CommonJS loader first, most of a
 * cold start's cost of this check.
 */
function sdkVersion(): string | undefined {
  for (const dir of packageDirs('@azure/storage-blob', dirname(fileURLToPath(import.meta.url)))) {
    const version = packageVersion(dir);
    if (version !== undefined) return version;
  }
  return undefined;
}

/** Read at once: a file under /proc is never waited on, and a thread-pool round trip each costs more. */
const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};
/** `min default max` in tcp_rmem and tcp_wmem: the maximum bounds one socket's buffer. */
const maxOf = (t: string | undefined) => {
  const n = Number(t?.split(/\s+/)[2]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

export async function tcpSettings(procRoot = '/proc'): Promise<TcpSettings | undefined> {
  const dir = `${procRoot}/sys/net/ipv4`;
  const [cc, rmem, wmem] = ['tcp_congestion_control', 'tcp_rmem', 'tcp_wmem'].map((f) =>
    readText(`${dir}/${f}`),
  );
  const out: TcpSettings = {
    ...(cc ? { congestionControl: cc } : {}),
    ...(maxOf(rmem) ? { rmemMaxBytes: maxOf(rmem)! } : {}),
    ...(maxOf(wmem) ? { wmemMaxBytes: maxOf(wmem)! } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

/** One TCP connect to the first address, timed; undefined when it does not connect in time. */
function connectMs(address: string, port: number, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: address, port });
    const done = (ms: number | undefined) => {
      socket.destroy();
      resolve(ms);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once('connect', () => done(performance.now() - started));
    socket.once('error', () => done(undefined));
  });
}

export async function endpointFacts(endpoint: string, timeoutMs = 2_000): Promise<EndpointFacts | undefined> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = await Promise.race([
    lookup(host, { all: true }).then(
      (a) => a.map((x) => x.address),
      () => undefined,
    ),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), timeoutMs).unref()),
  ]);
  if (!found?.length) return undefined;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const ms = await connectMs(found[0]!, port, timeoutMs);
  return { host, addresses: found, ...(ms !== undefined ? { connectMs: ms } : {}) };
}

/** The VM size and region, when the metadata service answers within the bound. */
export function azureVm(url: string, timeoutMs = 300): Promise<CloudFacts | undefined> {
  return new Promise((resolve) => {
    const req = nodeHttp().get(url, { headers: { Metadata: 'true' }, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        if (body.length > 65_536) req.destroy();
      });
      res.on('end', () => {
        try {
          const doc = JSON.parse(body) as { vmSize?: unknown; location?: unknown };
          const vmSize = typeof doc.vmSize === 'string' ? doc.vmSize.slice(0, 100) : undefined;
          const location = typeof doc.location === 'string' ? doc.location.slice(0, 100) : undefined;
          resolve(
            res.statusCode === 200 && (vmSize || location)
              ? { provider: 'azure', ...(vmSize ? { vmSize } : {}), ...(location ? { location } : {}) }
              : undefined,
          );
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** A target reached at an address of another machine: not loopback, 0.0.0.0 or ::, in any spelling. */
export const isRemote = (endpoint: EndpointFacts | undefined): boolean =>
  endpoint !== undefined && !endpoint.addresses.every(onThisMachine);

/** The facts of schema 3, each only where it could be read. */
export async function captureEnvironment(
  opts: CaptureOptions,
): Promise<Pick<Environment, 'sdkVersion' | 'tcp' | 'endpoint' | 'cloud'>> {
  const [tcp, endpoint] = await Promise.all([
    tcpSettings(opts.procRoot),
    opts.endpoint ? endpointFacts(opts.endpoint, opts.connectTimeoutMs) : undefined,
  ]);
  // The metadata service is asked only where the target is remote (a run against this machine's
  // own server says nothing of a cloud VM), or where a caller names a stand-in for it.
  const remote = isRemote(endpoint);
  const cloud =
    opts.imdsUrl && (remote || opts.imdsUrl !== IMDS_URL)
      ? await azureVm(opts.imdsUrl, opts.imdsTimeoutMs)
      : undefined;
  const sdk = sdkVersion();
  return {
    ...(sdk ? { sdkVersion: sdk } : {}),
    ...(tcp ? { tcp } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(cloud ? { cloud } : {}),
  };
}
