// Whether this machine can hold what a command asks for, before it starts: worker processes past its
// cores only compete for them (a warning); workers or an emulated target's objects past the memory
// available would end in the kernel's OOM killer part-way (refused).
import { availableParallelism, freemem } from 'node:os';
import { ConfigError } from '../config/errors.js';
import { formatBytes } from '../config/sizes.js';
import { log } from '../log/logger.js';

/**
 * A worker's resident memory at rest: Node, our modules and its pool, measured at ~78 MiB (16
 * workers peaked at 1.24 GB). What a sink or payload adds comes on top, checked by engine/limits.ts.
 */
export const WORKER_BASE_BYTES = 80 * 1024 * 1024;

const warned = new Set<number>();

export function checkProcessesFit(processes: number, machine = { cores: availableParallelism(), availableBytes: freemem() }): void {
  const needBytes = processes * WORKER_BASE_BYTES;
  if (needBytes > machine.availableBytes) {
    const most = Math.max(1, Math.floor(machine.availableBytes / WORKER_BASE_BYTES));
    throw new ConfigError(`--processes ${processes} needs about ${Math.round(needBytes / 2 ** 20)} MiB for the workers alone, more than the ${Math.round(machine.availableBytes / 2 ** 20)} MiB available; give --processes ${most} or fewer`);
  }
  if (processes > machine.cores && !warned.has(processes)) {
    warned.add(processes);
    log.warn(`--processes ${processes} is more than this machine's ${machine.cores} core(s): the workers compete for them, and the client, not the target, may set the pace`);
  }
}

/**
 * The memory this process may still take: Node's reading, which counts a cgroup's limit (a
 * container's) where there is one, not only the machine's free memory.
 */
export const availableMemoryBytes = (): number => process.availableMemory();

/** An emulated target holds its objects once, in this process: at most this share of what is available. */
export const EMULATE_MEMORY_SHARE = 0.8;

/**
 * Whether `emulate --objects` fits: refused (one line) where their sum is past the share of the
 * memory available, instead of growing until the kernel's OOM killer ends it. Returns the bytes the
 * emulated target may hold, objects and PUT bodies together.
 */
export function checkObjectsFit(objectBytes: readonly number[], available = availableMemoryBytes()): number {
  const held = objectBytes.reduce((a, b) => a + b, 0);
  const mayHold = Math.floor(EMULATE_MEMORY_SHARE * available);
  if (held > mayHold) {
    const share = `${Math.round(EMULATE_MEMORY_SHARE * 100)}%`;
    throw new ConfigError(
      `--objects: the objects sum to ${formatBytes(held)}, held in memory, more than ${share} of the ` +
        `${formatBytes(available)} available here; give smaller or fewer objects`,
    );
  }
  return mayHold;
}
