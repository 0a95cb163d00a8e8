// The order a training epoch reads its samples in: a Fisher-Yates shuffle whose every draw is a pure
// function of (seed, epoch, reader, step), so that the same seed gives the same order in every run
// and every later session, and each epoch and each reader has an order of its own.
import { uniformAt } from './size-draw.js';

/** The stream of draws that shuffles: apart from the size draw's streams (0 and 1) of the same seed. */
const SHUFFLE_STREAM = 7;

/** Positions 0 .. count - 1 in epoch `epoch`'s order for reader `reader`. */
export function epochOrder(count: number, seed: number, epoch: number, reader: number): Uint32Array {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  // One key per (seed, epoch, reader): the index of uniformAt walks the steps of one shuffle.
  const key = (seed ^ Math.imul(epoch + 1, 0x9e3779b1) ^ Math.imul(reader + 1, 0x85ebca6b)) >>> 0;
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(uniformAt(key, i, SHUFFLE_STREAM) * (i + 1));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}
