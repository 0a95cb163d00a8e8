// Where it ran: the kernel's TCP settings from a /proc of the test's own, the endpoint resolved and
// connected to, the Azure metadata service through a local stand-in (and silence where none
// answers); the facts survive the results file, and compare warns when two runs' differ.
import http from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentDifferences } from '../src/analysis/compare.js';
import { azureVm, captureEnvironment, endpointFacts, isRemote, tcpSettings } from '../src/cli/environment.js';
import { targetOnThisMachine } from '../src/analysis/report-model.js';
import { newResultsFile } from '../src/results/file.js';
import { parseResultsDoc } from '../src/results/validate.js';
import { close, listen } from './helpers/http-servers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function fakeProc(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'bc-proc-'));
  dirs.push(root);
  await mkdir(join(root, 'sys/net/ipv4'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'sys/net/ipv4', name), text);
  return root;
}

describe('TCP settings', () => {
  it('reads the congestion control and the rmem/wmem maxima; leaves out what is not there', async () => {
    const proc = await fakeProc({
      tcp_congestion_control: 'cubic\n',
      tcp_rmem: '4096\t131072\t6291456\n',
      tcp_wmem: '4096 16384 4194304\n',
    });
    expect(await tcpSettings(proc)).toEqual({
      congestionControl: 'cubic',
      rmemMaxBytes: 6291456,
      wmemMaxBytes: 4194304,
    });
    expect(await tcpSettings(await fakeProc({ tcp_rmem: 'garbage' }))).toBeUndefined();
  });
});

describe('the endpoint and the metadata service', () => {
  it('resolves the endpoint and times one connect', async () => {
    const server = http.createServer((_req, res) => res.end());
    const url = await listen(server);
    try {
      const facts = await endpointFacts(`${url}/container/blob?sig=SECRET`);
      expect(facts).toMatchObject({ host: '127.0.0.1', addresses: ['127.0.0.1'] });
      expect(facts!.connectMs).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(facts)).not.toContain('SECRET');
    } finally {
      await close(server);
    }
  });

  it('a stand-in for the Azure metadata service: VM size and region, asked with Metadata: true', async () => {
    const asked: (string | undefined)[] = [];
    const imds = http.createServer((req, res) => {
      asked.push(req.headers.metadata as string | undefined);
      res
        .setHeader('content-type', 'application/json')
        .end(JSON.stringify({ vmSize: 'Standard_D8s_v5', location: 'westeurope', name: 'vm1' }));
    });
    const stall = http.createServer(() => {});
    const [url, stalled] = [await listen(imds), await listen(stall)];
    try {
      expect(await azureVm(`${url}/metadata/instance/compute`)).toEqual({
        provider: 'azure',
        vmSize: 'Standard_D8s_v5',
        location: 'westeurope',
      });
      expect(asked).toEqual(['true']);
      // One that never answers is skipped, within the bound.
      expect(await azureVm(`${stalled}/metadata`, 200)).toBeUndefined();
      const env = await captureEnvironment({ endpoint: url, imdsUrl: `${url}/metadata/instance/compute` });
      expect(env.cloud).toEqual({ provider: 'azure', vmSize: 'Standard_D8s_v5', location: 'westeurope' });
      expect(env.sdkVersion).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      stall.closeAllConnections();
      await Promise.all([close(imds), close(stall)]);
    }
  });
});

describe('the environment in results and compare', () => {
  it('survives the results file, and compare names what differs', () => {
    const doc = newResultsFile('download', {}, { kind: 'url', label: 'url x' });
    Object.assign(doc.environment, {
      sdkVersion: '12.32.0',
      tcp: { congestionControl: 'bbr', rmemMaxBytes: 1, wmemMaxBytes: 2 },
      endpoint: { host: 'h', addresses: ['10.0.0.1'], connectMs: 1.5 },
      cloud: { provider: 'azure', vmSize: 'A', location: 'b' },
    });
    doc.complete = true;
    const back = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
    expect('doc' in back && back.doc.environment).toEqual(doc.environment);
    const other = {
      ...doc.environment,
      tcp: { ...doc.environment.tcp, congestionControl: 'cubic' },
      cloud: { provider: 'azure' as const, vmSize: 'B', location: 'b' },
    };
    expect(environmentDifferences(doc.environment, other)).toEqual([
      { field: 'TCP congestion control', base: 'bbr', next: 'cubic' },
      { field: 'VM size', base: 'A', next: 'B' },
    ]);
  });
});

describe('the environment read back is checked, not trusted', () => {
  const docWith = (env: Record<string, unknown>) => {
    const doc = newResultsFile('download', {}, { kind: 'url', label: 'url x' });
    return JSON.parse(JSON.stringify({ ...doc, environment: { ...doc.environment, ...env } })) as unknown;
  };

  it(
    'CPUs that are not a whole number or past any machine, and a memory past 1 PiB, are damage named ' +
      'by field ("NaN x", "1.6e296 TiB" before)',
    () => {
      for (const cpus of ['abc', -1, 1.5, 1e9]) {
        expect(parseResultsDoc(docWith({ cpus })), String(cpus)).toEqual({
          problem:
            `has a bad environment.cpus (${JSON.stringify(cpus)}); it is damaged, re-run the ` + `benchmark`,
        });
      }
      expect(parseResultsDoc(docWith({ totalMemoryBytes: 1.6e296 * 2 ** 40 }))).toEqual({
        problem: expect.stringMatching(/^has a bad environment\.totalMemoryBytes \(1\.7\d*e\+308\)/),
      });
      expect(parseResultsDoc(docWith({ node: { v: 1 } }))).toEqual({
        problem: 'has a bad environment.node ({"v":1}); it is damaged, re-run the benchmark',
      });
      // What a machine has, and a file without them (older ones), still read.
      expect(parseResultsDoc(docWith({ cpus: 192, totalMemoryBytes: 24 * 2 ** 40 }))).toHaveProperty('doc');
      expect(parseResultsDoc(docWith({ cpus: undefined, totalMemoryBytes: undefined }))).toMatchObject({
        doc: { environment: { cpus: 0, totalMemoryBytes: 0 } },
      });
    },
  );
});

describe('a target at 0.0.0.0 or an IPv4-mapped loopback is on this machine', () => {
  it(
    'is not remote (no metadata service is asked for it), and the report marks it ' + '"on this machine"',
    async () => {
      const server = http.createServer((_req, res) => res.end());
      const port = new URL(await listen(server)).port;
      try {
        for (const endpoint of [`http://0.0.0.0:${port}/x`, `http://[::ffff:127.0.0.1]:${port}/x`]) {
          const facts = await endpointFacts(endpoint);
          expect(facts?.addresses.length, endpoint).toBeGreaterThan(0);
          expect(isRemote(facts), endpoint).toBe(false);
          const label = `url ${new URL(endpoint).host}`;
          expect(targetOnThisMachine({ targetKind: 'url', target: label, endpoint: facts }), endpoint).toBe(
            true,
          );
          expect(
            targetOnThisMachine({ targetKind: 'url', target: label }),
            `${endpoint} by its label alone`,
          ).toBe(true);
        }
      } finally {
        await close(server);
      }
      expect(isRemote({ host: '10.0.0.1', addresses: ['10.0.0.1'] })).toBe(true);
      expect(isRemote({ host: 'h', addresses: ['::ffff:a00:1'] })).toBe(true);
      expect(
        targetOnThisMachine({
          targetKind: 'url',
          target: 'url 10.0.0.1:80',
          endpoint: { host: '10.0.0.1', addresses: ['10.0.0.1'] },
        }),
      ).toBe(false);
      expect(targetOnThisMachine({ targetKind: 'url', target: 'url [::ffff:a00:1]:80' })).toBe(false);
    },
  );
});
