// A training run's settings as the engine and the workers take them (config/train.ts resolves them).
import type { TrainPreset } from './options.js';

export interface TrainOptions {
  epochs: number;
  batchSize: number;
  /** The simulated accelerator's time per batch. */
  computeMs: number;
  /** Batches read ahead of the one in compute. */
  prefetch: number;
  /** Fixes each epoch's order (--seed, which fixes drawn sizes too). */
  seed: number;
  /** --range-size: samples larger than this are read as ranged GETs of this size. */
  rangeBytes?: number;
  /** The accelerator utilisation a run must keep, a fraction. */
  passMark: number;
  preset?: TrainPreset;
}
