// The request counts that several contenders share, from what a run's config gives: what each
// contender's `requests` declares for the cost estimate before anything is planned.
import type { RequestInput } from './strategy.js';

/** Ranged GETs of one object: one per --range-size range, else --concurrency equal ranges. */
export const rangeRequests = (i: RequestInput): number =>
  i.rangeSizeBytes ? Math.ceil(i.objectSizeBytes / i.rangeSizeBytes) : i.concurrency;

/** List Blobs pages over the set: --page-size names per page (the service's 5000 unset). */
export const listPages = (i: RequestInput): number =>
  Math.ceil(i.fileCount / Math.max(1, i.pageSize ?? 5000));

/** One large upload in staged blocks: a Put Block each and the Put Block List. */
export const stagedBlocks = (i: RequestInput): number =>
  Math.ceil((i.blobSizeBytes ?? 0) / Math.max(1, i.blockSizeBytes ?? 1)) + 1;

/** One large upload: a single Put Blob at or below --single-shot-size (or when empty), else its blocks. */
export const putOrBlocks = (i: RequestInput): number => {
  const size = i.blobSizeBytes ?? 0;
  return size === 0 || size <= (i.thresholdBytes ?? 0) ? 1 : stagedBlocks(i);
};
