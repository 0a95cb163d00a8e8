// The one interface every download strategy implements: which fixtures it reads and which requests
// it makes. Workers execute the plan; adding a strategy is adding a file.
import type { FixtureList, Items } from '../plan/items.js';

export interface PlanInput {
  sizeBytes: number;
  concurrency: number;
  /** chunked and round-robin: ranges of this size, `concurrency` in flight (default: `concurrency` equal ranges). */
  rangeSizeBytes?: number;
  /** Many-blob workloads: files in the fixture set (each `sizeBytes`), list page size, and PROCESSES x MAX_SOCKETS. */
  fileCount?: number;
  pageSize?: number;
  lanes?: number;
}

/**
 * What a contender measures: `blob` one object (compared in MiB/s, what `all` runs); the others a
 * set of FILE_COUNT blobs, each its own workload, selected by name and ranked in ops/s: `files`
 * GETs each blob, `list` pages through List Blobs, `head` asks each blob's properties.
 */
export type DownloadWorkloadKind = 'blob' | 'files' | 'list' | 'head';

export interface DownloadStrategy {
  name: string;
  description: string;
  /**
   * 'http', 'list' and 'head' go through the instrumented transport (a GET of bytes, List Blobs
   * pages, a HEAD); 'sdk', 'sdk-list' and 'sdk-head' run the SDK's own calls.
   */
  executor: 'http' | 'sdk' | 'list' | 'sdk-list' | 'head' | 'sdk-head';
  /** Unset: 'blob'. */
  workload?: DownloadWorkloadKind;
  /** Whether it works against a plain URL (no fixtures, no copies or parts). */
  urlCapable: boolean;
  fixtures(input: PlanInput): FixtureList;
  plan(input: PlanInput, urlTarget: boolean): Items;
}

export const LARGE_BLOB = 'large.file';
