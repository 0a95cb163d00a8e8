// --mix: the shares of operations a mixed run draws (`get:60,put:20,head:10,list:5,delete:5`),
// parsed into weights by operation, and checked against the rest of a command's options. Bad text
// is refused with what was expected, never guessed at.
import { MIX_OPS, type MixDraw, type MixOp } from '../plan/mix.js';
import type { Direction } from '../strategies/index.js';
import { mixCapable } from '../strategies/mix.js';
import { ConfigError } from '../vocabulary/errors.js';

/** Text that is not a mix: what was expected, in words for one line. */
export class BadMix {
  readonly expected: string;
  constructor(expected: string) {
    this.expected = expected;
  }
}

const EXAMPLE = 'such as get:60,put:20,head:10,list:5,delete:5';

/** Weights by MIX_OPS position; an operation not named weighs 0. */
export function parseMix(raw: string): number[] | BadMix {
  const weights = MIX_OPS.map(() => 0);
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const m = /^\s*([a-z]+)\s*:\s*(\d{1,6})\s*%?\s*$/i.exec(part);
    if (!m) return new BadMix(`operation:weight pairs separated by commas, ${EXAMPLE}`);
    const op = m[1]!.toLowerCase();
    const at = MIX_OPS.indexOf(op as MixOp);
    if (at < 0) return new BadMix(`operations among ${MIX_OPS.join(', ')} (not ${op}), ${EXAMPLE}`);
    if (seen.has(op)) return new BadMix(`each operation once (${op} is named twice), ${EXAMPLE}`);
    seen.add(op);
    weights[at] = Number(m[2]);
  }
  if (weights.every((w) => w === 0))
    return new BadMix(`weights that sum to more than 0 (these sum to 0), ${EXAMPLE}`);
  return weights;
}

/** The most operations one run of a mix plans (each an item sent to the workers as it is). */
export const MAX_MIX_OPS = 200_000;

/** What --mix is checked against: the rest of the command's options as the loader resolved them. */
export interface MixCheck {
  weights: readonly number[] | undefined;
  seed: number;
  direction: Direction;
  /** --source-method or --upload-method as given (`all` or names). */
  method: string;
  plainUrl: boolean;
  fileCount: number;
  /** --duration or --rate: a run that repeats or paces its items. */
  repeats: boolean;
  /** --sink file or sparse-file. */
  fileSink: boolean;
  hedge: boolean;
}

/** The mix a command runs, or undefined without --mix; what cannot be mixed is refused in one line. */
export function resolveMix(c: MixCheck): MixDraw | undefined {
  if (!c.weights) return undefined;
  const flag = c.direction === 'download' ? '--source-method' : '--upload-method';
  const capable = mixCapable(c.direction);
  const named = c.method === 'all' ? [] : c.method.split(',');
  const refused = named.filter((n) => !capable.some((s) => s.name === n));
  const fail = (why: string) => {
    throw new ConfigError(`--mix ${why}`);
  };
  if (refused.length)
    fail(`runs ${capable.map((s) => s.name).join(', ')}; ${flag} ${refused.join(',')} takes no mix: drop it`);
  if (c.plainUrl && (c.weights[MIX_OPS.indexOf('list')] ?? 0) > 0)
    fail(
      'list needs a blob container (a plain URL has no List Blobs): drop list from --mix or use --account',
    );
  if (c.repeats) fail('runs its sequence once per run: drop --duration and --rate (use --runs)');
  if (c.fileSink) fail('reads many objects: use --sink memory or discard');
  if (c.hedge) fail('mixes GETs with writes; drop --hedge');
  if (c.fileCount > MAX_MIX_OPS)
    fail(`runs --file-count operations a run, at most ${MAX_MIX_OPS}: lower --file-count`);
  return { weights: c.weights, seed: c.seed };
}
