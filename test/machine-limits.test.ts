// A container is the machine: its memory limit and CPU quota, not the host's numbers, decide how many
// workers fit and how much the embedded Azurite may hold. The cgroup readings of `docker run
// --memory 512m --cpus 1` are given as fixtures (cgroup v1 and v2); one test reads this machine.
import { availableParallelism, totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkProcessesFit, WORKER_BASE_BYTES } from '../src/cli/machine-fit.js';
import { newResultsFile } from '../src/results/file.js';
import { parseResultsDoc } from '../src/results/validate.js';
import { containerLimits } from '../src/report/console.js';
import {
  coresInWords,
  cpuQuotaOf,
  embeddedStoreBytes,
  memoryInWords,
  machineLimits,
  readMachine,
  type MachineReadings,
} from '../src/metrics/machine-limits.js';

const MiB = 2 ** 20;
/** A 2-core host with 24 GiB, 22 GiB free, as seen from inside a container or not. */
const HOST = { cores: 2, hostTotalBytes: 24 * 1024 * MiB, hostFreeBytes: 22 * 1024 * MiB } as const;
/** No limit: libuv's constrained memory is 2^64 (cgroup v1 unlimited) or 0 (unknown). */
const HOST_ONLY: MachineReadings = {
  ...HOST,
  constrainedBytes: 2 ** 64,
  availableBytes: 22 * 1024 * MiB,
  cfsQuotaUs: '-1\n',
  cfsPeriodUs: '100000\n',
};
/** `docker run --memory 512m --cpus 1` on cgroup v1 (this host's kind), as read in the container. */
const DOCKER_V1: MachineReadings = {
  ...HOST,
  constrainedBytes: 512 * MiB,
  availableBytes: 503 * MiB,
  cfsQuotaUs: '100000\n',
  cfsPeriodUs: '100000\n',
};
/** The same on cgroup v2. */
const DOCKER_V2: MachineReadings = {
  ...HOST,
  constrainedBytes: 512 * MiB,
  availableBytes: 503 * MiB,
  cpuMax: '100000 100000\n',
};

describe('the machine a process is given', () => {
  it(
    'reads CPU quotas from cgroup v2 cpu.max and v1 cfs_quota_us/cfs_period_us, and none where ' +
      'unlimited',
    () => {
      expect(cpuQuotaOf({ cpuMax: 'max 100000\n' })).toBeUndefined();
      expect(cpuQuotaOf({ cpuMax: '150000 100000\n' })).toBe(1.5);
      expect(cpuQuotaOf({ cpuMax: '50000 100000' })).toBe(0.5);
      expect(cpuQuotaOf({ cfsQuotaUs: '-1\n', cfsPeriodUs: '100000\n' })).toBeUndefined();
      expect(cpuQuotaOf({ cfsQuotaUs: '200000\n', cfsPeriodUs: '100000\n' })).toBe(2);
      expect(cpuQuotaOf({ cfsQuotaUs: 'garbage', cfsPeriodUs: '100000' })).toBeUndefined();
      expect(cpuQuotaOf({})).toBeUndefined();
    },
  );

  it('on a host without limits: its cores and its free memory, nothing named a container', () => {
    expect(machineLimits(HOST_ONLY)).toEqual({ cores: 2, availableBytes: 22 * 1024 * MiB });
    expect(machineLimits({ ...HOST, constrainedBytes: 0 })).toEqual({
      cores: 2,
      availableBytes: 22 * 1024 * MiB,
    });
    expect(embeddedStoreBytes(machineLimits(HOST_ONLY))).toBeUndefined();
  });

  for (const [name, readings] of [
    ['cgroup v1', DOCKER_V1],
    ['cgroup v2', DOCKER_V2],
  ] as const) {
    it(
      `--memory 512m --cpus 1 on ${name}: the container's limit and quota, not the ` +
        `host's 22 GiB and 2 cores`,
      () => {
        expect(machineLimits(readings)).toEqual({
          cores: 1,
          cpuQuota: 1,
          availableBytes: 503 * MiB,
          memoryLimitBytes: 512 * MiB,
        });
      },
    );
  }

  it('a quota above the cores the process sees limits nothing; a fraction of a core is one core', () => {
    expect(machineLimits({ ...HOST, cpuMax: '400000 100000' }).cores).toBe(2);
    expect(machineLimits({ ...HOST, cpuMax: '50000 100000' })).toMatchObject({ cores: 1, cpuQuota: 0.5 });
    expect(machineLimits({ ...HOST, cores: 4, cpuMax: '150000 100000' })).toMatchObject({
      cores: 2,
      cpuQuota: 1.5,
    });
  });

  it(
    '--processes 16 inside --memory 512m is refused, naming the container limit; ' + '--cpus 1 is one core',
    () => {
      const machine = machineLimits(DOCKER_V1);
      expect(() => checkProcessesFit(16, machine)).toThrow(
        new RegExp(
          '^--processes 16 needs about 1280 MiB for the workers alone, ' +
            "more than the 503 MiB left of the container's 512 MiB memory limit; give " +
            '--processes 6 or fewer$',
        ),
      );
      expect(coresInWords(machine)).toBe("the container's CPU quota of 1 core(s)");
      expect(coresInWords(machineLimits(HOST_ONLY))).toBe("this machine's 2 core(s)");
      expect(memoryInWords(machineLimits(HOST_ONLY))).toBe('the 22528 MiB available');
    },
  );

  it("the embedded Azurite's store gets half of what the container has left, not half the host's RAM", () => {
    expect(embeddedStoreBytes(machineLimits(DOCKER_V2))).toBe(Math.floor((503 * MiB) / 2));
  });

  it('reads this machine: its cores and memory are within what the host has', () => {
    const readings = readMachine();
    expect(readings.cores).toBe(availableParallelism());
    expect(readings.hostTotalBytes).toBe(totalmem());
    // Some CPU quota file is there on Linux, v1 or v2 (its text, whatever it says).
    expect(readings.cpuMax ?? readings.cfsQuotaUs).toBeDefined();
    const limits = machineLimits(readings);
    expect(limits.cores).toBeGreaterThanOrEqual(1);
    expect(limits.cores).toBeLessThanOrEqual(availableParallelism());
    expect(limits.availableBytes).toBeGreaterThan(WORKER_BASE_BYTES);
    expect(limits.availableBytes).toBeLessThanOrEqual(totalmem());
    if (limits.memoryLimitBytes !== undefined) expect(limits.memoryLimitBytes).toBeLessThan(totalmem());
  });

  it(
    "a results file keeps a container's limits beside the host's numbers, reads them back, and the " +
      'report names them',
    () => {
      const doc = newResultsFile('upload', {}, { kind: 'embedded-azurite', label: 'embedded Azurite' });
      const limits = machineLimits(readMachine());
      // This machine's own: written only where a limit is set.
      expect(doc.environment.container?.memoryLimitBytes).toBe(limits.memoryLimitBytes);
      doc.environment.container = { cpuQuota: 1, memoryLimitBytes: 512 * MiB };
      const read = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
      expect('doc' in read && read.doc.environment.container).toEqual({
        cpuQuota: 1,
        memoryLimitBytes: 512 * MiB,
      });
      expect(containerLimits({ cpuQuota: 1, memoryLimitBytes: 512 * MiB })).toBe(
        'CPU quota 1 core(s), memory limit 512 MiB',
      );
      // Damaged values are left out, not shown as NaN.
      const bad = parseResultsDoc(
        JSON.parse(
          JSON.stringify({
            ...doc,
            environment: { ...doc.environment, container: { cpuQuota: 'abc', memoryLimitBytes: -1 } },
          }),
        ),
      );
      expect('doc' in bad && bad.doc.environment.container).toEqual({});
    },
  );
});
