// `tune checkpoint`: the search over a checkpoint's ranks (--processes), sockets a rank and block
// size, on one way of writing a shard (cells of two ways at once would mix their runs): staged
// blocks on a blob service, one PUT a shard on a plain server, unless --shard-write says.
import { isPlainUrl } from '../vocabulary/credentials.js';
import type { CheckpointConfig } from '../config/checkpoint.js';
import { ConfigError } from '../vocabulary/errors.js';
import { formatSizeExact } from '../vocabulary/sizes.js';
import type { Cell } from '../results/schema.js';
import { machineLimits, readMachine } from '../metrics/machine-limits.js';
import { tuneAxes } from '../tune/axes.js';
import { blocksOnly, searchedShardWrite } from '../strategies/checkpoint.js';
import type { TuneAxis } from '../tune/search.js';
import { given } from './tune-plan.js';

/** The args with one way of writing named: the one a search on this target measures. */
export function oneShardWrite(args: readonly string[], base: CheckpointConfig): string[] {
  if (base.shardWrite !== 'all') return [...args];
  return [...args, '--shard-write', searchedShardWrite(!isPlainUrl(base.credentials))];
}

/** Processes, sockets and (where blocks are staged) the block size; concurrency is ranks x sockets. */
export function checkpointAxes(base: CheckpointConfig, args: readonly string[]): TuneAxis[] {
  if (base.blockSizesBytes.length > 1)
    throw new ConfigError(
      'tune checkpoint searches --block-size itself; give one value, or none to search it',
    );
  const fixed = new Set(['--max-sockets', '--processes', '--block-size'].filter((f) => given(args, f)));
  fixed.add('--concurrency');
  if (!blocksOnly(base.shardWrite)) fixed.add('--block-size');
  return tuneAxes({
    direction: 'upload',
    strategies: [base.shardWrite],
    cores: machineLimits(readMachine()).cores,
    fixed,
    start: {
      processes: base.processes,
      maxSockets: base.maxSockets,
      concurrency: base.concurrency,
      blockSizeBytes: base.blockSizeBytes,
    },
  });
}

/** What a deployment keeps that the search did not choose: the shard, how it is written, the counts. */
export function checkpointFixed(base: CheckpointConfig, searched: ReadonlySet<string>): Cell {
  const all: Record<string, string> = {
    '--shard-size': formatSizeExact(base.shardSizeBytes).replace(' ', ''),
    '--shard-write': base.shardWrite,
    '--block-size': formatSizeExact(base.blockSizeBytes).replace(' ', ''),
    '--max-sockets': String(base.maxSockets),
    '--processes': String(base.processes),
  };
  return Object.fromEntries(Object.entries(all).filter(([k]) => !searched.has(k)));
}
