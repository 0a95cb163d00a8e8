// The one interface every download strategy implements: which fixtures it reads and which requests
// it makes. Workers execute the plan; adding a strategy is adding a file.
import type { ByteRange } from './ranges.js';

/** A fixture blob: bytes [offsetBytes, offsetBytes + lengthBytes) of the seed's content stream. */
export interface FixtureSpec {
  blob: string;
  offsetBytes: number;
  lengthBytes: number;
}

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
}

export interface PlanInput {
  sizeBytes: number;
  concurrency: number;
  /** chunked and round-robin: ranges of this size, `concurrency` in flight (default: `concurrency` equal ranges). */
  rangeSizeBytes?: number;
}

export interface DownloadStrategy {
  name: string;
  description: string;
  /** 'http' items go through the instrumented transport; 'sdk' runs the SDK's own call. */
  executor: 'http' | 'sdk';
  /** Whether it works against a plain URL (no fixtures, no copies or parts). */
  urlCapable: boolean;
  fixtures(input: PlanInput): FixtureSpec[];
  plan(input: PlanInput, urlTarget: boolean): WorkItem[];
}

export const LARGE_BLOB = 'large.file';
