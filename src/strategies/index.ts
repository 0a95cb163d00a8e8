// The registry of download strategies, in the order `all` runs them.
import { assemble } from './download/assemble.js';
import { chunked } from './download/chunked.js';
import { roundRobin } from './download/round-robin.js';
import { head } from './download/head.js';
import { listHierarchy } from './download/list-hierarchy.js';
import { list } from './download/list.js';
import { sdkHead } from './download/sdk-head.js';
import { sdkList } from './download/sdk-list.js';
import { sdkSmallFilesDownload } from './download/sdk-small-files.js';
import { sdk } from './download/sdk.js';
import { single } from './download/single.js';
import { smallFilesDownload } from './download/small-files.js';
import type { DownloadStrategy, UploadStrategy, WorkloadKind } from './strategy.js';
import { blocks } from './upload/blocks.js';
import { sdkSmallFiles } from './upload/sdk-small-files.js';
import { sdkUpload } from './upload/sdk-upload.js';
import { smallFiles } from './upload/small-files.js';

export const DOWNLOAD_STRATEGIES: readonly DownloadStrategy[] = [
  single, chunked, roundRobin, assemble, sdk,
  smallFilesDownload, sdkSmallFilesDownload, list, listHierarchy, sdkList, head, sdkHead,
];

export const workloadOf = (s: DownloadStrategy | UploadStrategy): WorkloadKind => s.workload ?? 'blob';

/**
 * `all` is every one-blob contender; the many-blob workloads are named (a comma-separated list:
 * `small-files,sdk-small-files`), as each measures something of its own.
 */
export function selectStrategies(method: string, urlTarget: boolean): DownloadStrategy[] {
  const pool = DOWNLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  if (method === 'all') return pool.filter((s) => workloadOf(s) === 'blob');
  const names = method.split(',');
  return pool.filter((s) => names.includes(s.name));
}

export const UPLOAD_STRATEGIES: readonly UploadStrategy[] = [smallFiles, sdkSmallFiles, blocks, sdkUpload];

export function selectUploadStrategies(method: string, urlTarget: boolean): UploadStrategy[] {
  const pool = UPLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  return method === 'all' ? [...pool] : pool.filter((s) => s.name === method);
}

/**
 * A contender by name, for what is drawn from results alone (a sweep's SDK advice). Uploads first:
 * `sdk-small-files` names a baseline in both registries, and its advice is the upload's.
 */
export const strategyNamed = (name: string): DownloadStrategy | UploadStrategy | undefined =>
  UPLOAD_STRATEGIES.find((s) => s.name === name) ?? DOWNLOAD_STRATEGIES.find((s) => s.name === name);
