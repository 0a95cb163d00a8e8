// Whether this machine can hold what a command asks for, before it starts: worker processes past its
// cores only compete for them (a warning); workers or an emulated target's objects past the memory
// available would end in the kernel's OOM killer part-way (refused). Inside a container, its CPU
// quota and memory limit are the machine.
import { ConfigError } from '../vocabulary/errors.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { log } from '../log/logger.js';
import { coresInWords, machineLimits, memoryInWords, readMachine } from '../metrics/machine-limits.js';
import type { MachineLimits } from '../metrics/machine-limits.js';

/**
 * A worker's resident memory at rest (Node, our modules and its pool), rounded up. What a sink or
 * payload adds comes on top, checked by engine/limits.ts.
 */
export const WORKER_BASE_BYTES = 80 * 1024 * 1024;

const warned = new Set<number>();

export function checkProcessesFit(
  processes: number,
  machine: MachineLimits = machineLimits(readMachine()),
): void {
  const needBytes = processes * WORKER_BASE_BYTES;
  if (needBytes > machine.availableBytes) {
    const most = Math.max(1, Math.floor(machine.availableBytes / WORKER_BASE_BYTES));
    const needMiB = Math.round(needBytes / 2 ** 20);
    throw new ConfigError(
      `--processes ${processes} needs about ${needMiB} MiB for the workers alone, ` +
        `more than ${memoryInWords(machine)}; give --processes ${most} or fewer`,
    );
  }
  if (processes > machine.cores && !warned.has(processes)) {
    warned.add(processes);
    log.warn(
      `--processes ${processes} is more than ${coresInWords(machine)}: ` +
        'the workers compete for them, and the client, not the target, may set the pace',
    );
  }
}

/** The memory this process may still take: a container's limit where there is one, else the machine's. */
export const availableMemoryBytes = (): number => machineLimits(readMachine()).availableBytes;

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
