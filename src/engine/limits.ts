// What a configuration cannot do, found before anything runs (one line, exit 2) instead of after
// the whole transfer: ranges too large for memory, fixtures larger than the embedded target holds.
import { ConfigError } from '../vocabulary/errors.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { totalMemoryBytes } from '../metrics/machine-limits.js';
import { largestBytes, totalBytes } from '../plan/items.js';
import { uniqueFixtures } from '../strategies/many-blobs.js';
import type { DownloadStrategy, PlanInput } from '../strategies/strategy.js';

/** One range held in memory (memory sink, the SDK's downloadToBuffer) and hashed in one piece. */
export const MAX_RANGE_IN_MEMORY_BYTES = 2 ** 31 - 1;
/** The embedded Azurite keeps every blob in this process's memory: at most this share of RAM. */
const EMBEDDED_FIXTURE_SHARE = 0.5;

export interface DownloadLimits {
  sink: string;
  embedded: boolean;
  totalMemoryBytes?: number;
}

export function checkDownloadFits(
  strategies: readonly DownloadStrategy[],
  input: PlanInput,
  limits: DownloadLimits,
): void {
  const memory = limits.totalMemoryBytes ?? totalMemoryBytes();
  for (const s of strategies) {
    const inMemory = s.holdsItemsInMemory === true || limits.sink === 'memory';
    if (!inMemory) continue;
    const largest = largestBytes(s.plan(input));
    if (largest > MAX_RANGE_IN_MEMORY_BYTES) {
      throw new ConfigError(
        `${s.name} would hold a ${formatBytes(largest)} range in memory, more than the ` +
          `${formatBytes(MAX_RANGE_IN_MEMORY_BYTES + 1)} one buffer can take; ` +
          `use more --concurrency or a --range-size${s.holdsItemsInMemory ? '' : ', or --sink file'}`,
      );
    }
    // Many small files land end to end in one buffer per process.
    // Drawn sizes: the set's own bytes, never the file count times the largest.
    const files = () =>
      input.fileSizes ? totalBytes(s.plan(input)) : (input.fileCount ?? 1) * input.sizeBytes;
    const held = s.workload?.name === 'files' ? files() : input.sizeBytes;
    if (held > 0.8 * memory) {
      throw new ConfigError(
        `the memory sink would hold ${formatBytes(held)}, more than 80% of this machine's ` +
          `${formatBytes(memory)}; use --sink file or discard`,
      );
    }
  }
  if (!limits.embedded) return;
  const unique = uniqueFixtures(strategies.flatMap((s) => (s.fixtures ? [s.fixtures(input)] : [])));
  if (unique.bytes > EMBEDDED_FIXTURE_SHARE * memory) {
    throw new ConfigError(
      `the fixtures need ${formatBytes(unique.bytes)} (${unique.count} blobs; round-robin keeps one copy ` +
        "per --concurrency), more than the embedded Azurite can hold in half of this machine's " +
        `${formatBytes(memory)}; ` +
        'use less --concurrency or --file-size, fewer strategies (--source-method), or a real account',
    );
  }
}

/**
 * What one small file costs while a run holds it, over the coordinator and its workers (its row of
 * the records, its MD5, its share of the tallies; a file set is a few numbers, not an object per
 * file). Bench case 10 measures it (a million small files up and down, all processes together);
 * the SDK baselines add a client object per file. This is twice that, with room: a guard against
 * runs that cannot fit, not a forecast.
 */
export const STATE_BYTES_PER_FILE = 512;

export function checkUploadFits(
  fileCount: number,
  manyFiles: boolean,
  memoryBytes = totalMemoryBytes(),
): void {
  if (!manyFiles) return;
  const needed = fileCount * STATE_BYTES_PER_FILE;
  if (needed > 0.8 * memoryBytes) {
    const fits = Math.floor((0.8 * memoryBytes) / STATE_BYTES_PER_FILE);
    throw new ConfigError(
      `${fileCount} files per run would need about ${formatBytes(needed)} of per-file state ` +
        `(about ${STATE_BYTES_PER_FILE} B a file), ` +
        `more than 80% of this machine's ${formatBytes(memoryBytes)}; ` +
        `use --file-count ${fits} or fewer and run more sessions`,
    );
  }
}

/**
 * A checkpoint's shards in memory: each rank holds its own while it writes, and the embedded Azurite
 * holds every one it stores until the run's cleanup (one run's at a time).
 */
export function checkCheckpointFits(
  ranks: number,
  shardBytes: number,
  embedded: boolean,
  memoryBytes = totalMemoryBytes(),
): void {
  const held = ranks * shardBytes * (embedded ? 2 : 1);
  if (held <= 0.8 * memoryBytes) return;
  const where = embedded ? ' (the ranks, and the embedded Azurite that stores them)' : '';
  throw new ConfigError(
    `${ranks} shard(s) of ${formatBytes(shardBytes)} would hold ${formatBytes(held)} in memory${where}, ` +
      `more than 80% of this machine's ${formatBytes(memoryBytes)}; ` +
      'use fewer --processes or a smaller --shard-size',
  );
}
