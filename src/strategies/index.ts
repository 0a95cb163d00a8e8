// The registry of download strategies, in the order `all` runs them.
import { assemble } from './download/assemble.js';
import { chunked } from './download/chunked.js';
import { roundRobin } from './download/round-robin.js';
import { sdk } from './download/sdk.js';
import { single } from './download/single.js';
import type { DownloadStrategy } from './strategy.js';
import { blocks } from './upload/blocks.js';
import { sdkSmallFiles } from './upload/sdk-small-files.js';
import { sdkUpload } from './upload/sdk-upload.js';
import { smallFiles } from './upload/small-files.js';
import type { UploadStrategy } from './upload-strategy.js';

export const DOWNLOAD_STRATEGIES: readonly DownloadStrategy[] = [single, chunked, roundRobin, assemble, sdk];

export function selectStrategies(method: string, urlTarget: boolean): DownloadStrategy[] {
  const pool = DOWNLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  return method === 'all' ? [...pool] : pool.filter((s) => s.name === method);
}

export const UPLOAD_STRATEGIES: readonly UploadStrategy[] = [smallFiles, sdkSmallFiles, blocks, sdkUpload];

export function selectUploadStrategies(method: string, urlTarget: boolean): UploadStrategy[] {
  const pool = UPLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  return method === 'all' ? [...pool] : pool.filter((s) => s.name === method);
}
