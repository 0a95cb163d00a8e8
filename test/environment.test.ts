// Where it ran: the kernel's TCP settings from a /proc of the test's own, the endpoint resolved and
// connected to, the Azure metadata service through a local stand-in (and silence where none
// answers); the facts survive the results file, and compare warns when two runs' differ.
import http from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentDifferences } from '../src/analysis/compare.js';
import { azureVm, captureEnvironment, endpointFacts, tcpSettings } from '../src/cli/environment.js';
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
    const proc = await fakeProc({ tcp_congestion_control: 'cubic\n', tcp_rmem: '4096\t131072\t6291456\n', tcp_wmem: '4096 16384 4194304\n' });
    expect(await tcpSettings(proc)).toEqual({ congestionControl: 'cubic', rmemMaxBytes: 6291456, wmemMaxBytes: 4194304 });
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
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ vmSize: 'Standard_D8s_v5', location: 'westeurope', name: 'vm1' }));
    });
    const stall = http.createServer(() => {});
    const [url, stalled] = [await listen(imds), await listen(stall)];
    try {
      expect(await azureVm(`${url}/metadata/instance/compute`)).toEqual({ provider: 'azure', vmSize: 'Standard_D8s_v5', location: 'westeurope' });
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
    Object.assign(doc.environment, { sdkVersion: '12.32.0', tcp: { congestionControl: 'bbr', rmemMaxBytes: 1, wmemMaxBytes: 2 }, endpoint: { host: 'h', addresses: ['10.0.0.1'], connectMs: 1.5 }, cloud: { provider: 'azure', vmSize: 'A', location: 'b' } });
    doc.complete = true;
    const back = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
    expect('doc' in back && back.doc.environment).toEqual(doc.environment);
    const other = { ...doc.environment, tcp: { ...doc.environment.tcp, congestionControl: 'cubic' }, cloud: { provider: 'azure' as const, vmSize: 'B', location: 'b' } };
    expect(environmentDifferences(doc.environment, other)).toEqual([
      { field: 'TCP congestion control', base: 'bbr', next: 'cubic' }, { field: 'VM size', base: 'A', next: 'B' },
    ]);
  });
});
