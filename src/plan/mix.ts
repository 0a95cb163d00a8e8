// A mix of operations over one object set: which operation each of a run's requests is, and which
// file of the set it targets, as pure functions of the seed and the request's index (hashes, as
// file sizes are drawn), so that every process, every run and a later report draw the same
// sequence without a list of operations being kept or sent.
import { uniformAt } from './size-draw.js';

/** The operations a mix draws from, in the order their weights are given and recorded. */
export const MIX_OPS = ['get', 'put', 'head', 'list', 'delete'] as const;
export type MixOp = (typeof MIX_OPS)[number];

/** Weights by MIX_OPS position (0: never drawn), and the seed that fixes the sequence. */
export interface MixDraw {
  weights: readonly number[];
  seed: number;
}

/** Streams of uniformAt apart from the size draw's (0 and 1). */
const OP_STREAM = 16;
const TARGET_STREAM = 17;

/** Request `index`'s operation: each with its weight's share. */
export function opAt(mix: MixDraw, index: number): MixOp {
  const total = mix.weights.reduce((a, w) => a + w, 0);
  let u = uniformAt(mix.seed, index, OP_STREAM) * total;
  for (let k = 0; k < MIX_OPS.length; k++) {
    const w = mix.weights[k] ?? 0;
    if (u < w) return MIX_OPS[k]!;
    u -= w;
  }
  // Rounding at the top edge: the last operation with a weight.
  const last = mix.weights.findLastIndex((w) => w > 0);
  return MIX_OPS[last]!;
}

/** The set's file that request `index` reads (a GET, a HEAD) or lists around, of `fileCount`. */
export const targetAt = (mix: MixDraw, index: number, fileCount: number): number =>
  Math.min(fileCount - 1, Math.floor(uniformAt(mix.seed, index, TARGET_STREAM) * fileCount));

/** `get:60,put:20`: the weights as a user gives them, zero weights left out. */
export const mixText = (weights: readonly number[]): string =>
  MIX_OPS.flatMap((op, k) => ((weights[k] ?? 0) > 0 ? [`${op}:${weights[k]}`] : [])).join(',');
