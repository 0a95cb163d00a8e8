// What this machine gives the process: cores and memory, a container's limits before the host's.
// Inside `docker run --memory 512m --cpus 1`, os.freemem() and os.availableParallelism() read the
// host; what the process may use is the cgroup's memory limit (process.constrainedMemory(), which
// reads cgroup v1 and v2) and its CPU quota (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cfs_period_us,
// which Node does not read). The readings are gathered in one place (readMachine) and judged by a pure
// function (machineLimits), so that a container's numbers can be tested without one.
import { readFileSync } from 'node:fs';
import { availableParallelism, freemem, totalmem } from 'node:os';

/** What the machine says, as read: numbers from Node, the cgroup CPU files as their text. */
export interface MachineReadings {
  /** os.availableParallelism(): the cores this process may be scheduled on (its CPU affinity). */
  cores: number;
  hostTotalBytes: number;
  hostFreeBytes: number;
  /** process.constrainedMemory(): the cgroup's memory limit; 0, or the host's RAM and more, when none. */
  constrainedBytes?: number;
  /** process.availableMemory(): what the limit (or the host) still gives. */
  availableBytes?: number;
  /** cgroup v2 cpu.max: "max 100000" (none) or "150000 100000" (1.5 cores). */
  cpuMax?: string;
  /** cgroup v1 cpu.cfs_quota_us ("-1": none) and cpu.cfs_period_us. */
  cfsQuotaUs?: string;
  cfsPeriodUs?: string;
}

export interface MachineLimits {
  /** The cores the processes may use: the CPU quota where one is set below the cores they see. */
  cores: number;
  /** The memory the processes may still take: what is left of a container's limit, or the host's free RAM. */
  availableBytes: number;
  /** Where a container's CPU quota set `cores`: the quota, in cores (1.5 for --cpus 1.5). */
  cpuQuota?: number;
  /** Where a container's memory limit set `availableBytes`: the limit. */
  memoryLimitBytes?: number;
}

/** Cores from a CPU quota and its period (µs); undefined for none ("max", -1) or text that is no quota. */
export function quotaCores(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota?.trim());
  const p = Number(period?.trim());
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return q / p;
}

/** The cores of a cgroup's CPU quota: v2's cpu.max first, then v1's pair. */
type CpuFiles = Pick<MachineReadings, 'cpuMax' | 'cfsQuotaUs' | 'cfsPeriodUs'>;

export function cpuQuotaOf(r: CpuFiles): number | undefined {
  if (r.cpuMax !== undefined) {
    const [quota, period] = r.cpuMax.trim().split(/\s+/);
    return quotaCores(quota, period ?? '100000');
  }
  return quotaCores(r.cfsQuotaUs, r.cfsPeriodUs);
}

/** The cores and memory the readings give, a limit named where it is a container's and not the host's. */
export function machineLimits(r: MachineReadings): MachineLimits {
  const quota = cpuQuotaOf(r);
  // A quota of 1.5 cores lets two processes run half the time each: the cores that matter are the
  // quota's, rounded up, never more than the cores the process sees.
  const quotaLimits = quota !== undefined && Math.ceil(quota) < r.cores;
  const limit =
    r.constrainedBytes !== undefined && r.constrainedBytes > 0 && r.constrainedBytes < r.hostTotalBytes
      ? r.constrainedBytes
      : undefined;
  return {
    cores: quotaLimits ? Math.max(1, Math.ceil(quota)) : r.cores,
    ...(quotaLimits ? { cpuQuota: quota } : {}),
    availableBytes: limit === undefined ? r.hostFreeBytes : Math.min(r.availableBytes ?? limit, limit),
    ...(limit === undefined ? {} : { memoryLimitBytes: limit }),
  };
}

/** All the memory the processes may have: a container's limit, or the host's RAM. */
export function totalMemoryBytes(r: MachineReadings = readMachine()): number {
  return machineLimits(r).memoryLimitBytes ?? r.hostTotalBytes;
}

const MiB = 2 ** 20;
const trimNumber = (n: number) => String(Number(n.toFixed(2)));

/**
 * The cores, naming what limited them: "this machine's 2 core(s)", "the container's CPU quota of 1 core(s)".
 */
export const coresInWords = (m: Pick<MachineLimits, 'cores' | 'cpuQuota'>): string =>
  m.cpuQuota === undefined
    ? `this machine's ${m.cores} core(s)`
    : `the container's CPU quota of ${trimNumber(m.cpuQuota)} core(s)`;

/** The memory: "the 503 MiB left of the container's 512 MiB memory limit", "the 23178 MiB available". */
export const memoryInWords = (m: Pick<MachineLimits, 'availableBytes' | 'memoryLimitBytes'>): string => {
  const available = `the ${Math.round(m.availableBytes / MiB)} MiB`;
  if (m.memoryLimitBytes === undefined) return `${available} available`;
  return `${available} left of the container's ${Math.round(m.memoryLimitBytes / MiB)} MiB memory limit`;
};

/**
 * How much the embedded Azurite's in-memory store may hold: Azurite's own rule is half the host's
 * RAM, which in a container is more than the container may use at all (it is OOM-killed instead of
 * refusing a write). Under a memory limit: half of what is left of it as Azurite starts. Undefined:
 * no limit, Azurite's own rule.
 */
export const embeddedStoreBytes = (m: MachineLimits): number | undefined =>
  m.memoryLimitBytes === undefined ? undefined : Math.floor(m.availableBytes / 2);

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * The CPU quota files of this process's cgroup: its own directory where the mount shows the host's
 * tree (a process on the host), the mount's root inside a container (whose cgroup is the root there).
 */
function readCpuQuota(): CpuFiles {
  const own = readText('/proc/self/cgroup') ?? '';
  const v2 = /^0::(\/.*)$/m.exec(own)?.[1];
  for (const dir of v2 && v2 !== '/' ? [`/sys/fs/cgroup${v2}`, '/sys/fs/cgroup'] : ['/sys/fs/cgroup']) {
    const cpuMax = readText(`${dir}/cpu.max`);
    if (cpuMax !== undefined) return { cpuMax };
  }
  const v1 = /^\d+:([^:]*\bcpu\b[^:]*):(\/.*)$/m.exec(own);
  const mounts = ['/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/cpu'];
  if (v1) mounts.unshift(`/sys/fs/cgroup/${v1[1]}`);
  for (const mount of mounts) {
    for (const dir of v1 && v1[2] !== '/' ? [`${mount}${v1[2]}`, mount] : [mount]) {
      const cfsQuotaUs = readText(`${dir}/cpu.cfs_quota_us`);
      const cfsPeriodUs = readText(`${dir}/cpu.cfs_period_us`);
      if (cfsQuotaUs !== undefined && cfsPeriodUs !== undefined) return { cfsQuotaUs, cfsPeriodUs };
    }
  }
  return {};
}

/** This machine as this process sees it now. */
export function readMachine(): MachineReadings {
  return {
    cores: availableParallelism(),
    hostTotalBytes: totalmem(),
    hostFreeBytes: freemem(),
    constrainedBytes: process.constrainedMemory(),
    availableBytes: process.availableMemory(),
    ...readCpuQuota(),
  };
}
