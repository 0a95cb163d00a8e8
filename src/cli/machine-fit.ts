// Whether this machine can hold the worker processes asked for, before any is forked: more than its
// cores only compete for them (a warning), more than its memory holds would end in the kernel's
// OOM killer part-way (refused). Inside a container, its CPU quota and memory limit are the machine.
import { ConfigError } from '../config/errors.js';
import { log } from '../log/logger.js';
import { coresInWords, machineLimits, memoryInWords, readMachine } from '../metrics/machine-limits.js';
import type { MachineLimits } from '../metrics/machine-limits.js';

/**
 * A worker's resident memory at rest: Node, our modules and its pool, measured at ~78 MiB (16
 * workers peaked at 1.24 GB). What a sink or payload adds comes on top, checked by engine/limits.ts.
 */
export const WORKER_BASE_BYTES = 80 * 1024 * 1024;

const warned = new Set<number>();

export function checkProcessesFit(
  processes: number, machine: MachineLimits = machineLimits(readMachine()),
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
