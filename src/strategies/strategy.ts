// The one interface every download strategy implements: which fixtures it reads and which requests
// it makes. Workers execute the plan; adding a strategy is adding a file.
import type { ByPosition, Items } from './items.js';
import type { ByteRange } from './ranges.js';

/** A fixture blob: bytes [offsetBytes, offsetBytes + lengthBytes) of the seed's content stream. */
export interface FixtureSpec {
  blob: string;
  offsetBytes: number;
  lengthBytes: number;
}

/**
 * A strategy's fixtures: a few blobs as an array, or a set of many made one by one when asked for
 * (many-blobs.ts, SetFixtures), so that FILE_COUNT fixtures are never FILE_COUNT objects at once.
 */
export type FixtureList = ByPosition<FixtureSpec>;

export interface WorkItem {
  index: number;
  /** Blob to read; absent for a plain URL target. */
  blob?: string;
  /** Range header to send; absent for a whole-object GET. */
  range?: ByteRange;
  /** Where the bytes go in the delivered object, and how many are expected. */
  destOffsetBytes: number;
  lengthBytes: number;
  /** Uploads only: stage as this block (base64 id) instead of a whole Put Blob. */
  blockId?: string;
  /** Where its expected content starts in the seed's stream, when not at destOffsetBytes (many small files). */
  contentOffsetBytes?: number;
  /** Listings: one stream of List Blobs pages over a prefix, expected to name files first .. first + count - 1. */
  list?: ListSpec;
}

export interface ListSpec {
  prefix: string;
  /** maxresults of each page. */
  pageSize: number;
  /** '/': a hierarchical listing. */
  delimiter?: string;
  first: number;
  count: number;
}

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
