// The registries of contenders, downloads in the order `all` runs them: everything the rest of the
// tool knows about a contender it reads from here, never by testing its name.
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
import type { DownloadStrategy, PlanOption, UploadStrategy } from './strategy.js';
import { DOWNLOAD_WORKLOADS, UPLOAD_WORKLOADS, type Workload, type WorkloadName } from '../plan/workload.js';
import { blocks } from './upload/blocks.js';
import { sdkSmallFiles } from './upload/sdk-small-files.js';
import { sdkUpload } from './upload/sdk-upload.js';
import { smallFiles } from './upload/small-files.js';

const DOWNLOADS = [
  single,
  chunked,
  roundRobin,
  assemble,
  sdk,
  smallFilesDownload,
  sdkSmallFilesDownload,
  list,
  listHierarchy,
  sdkList,
  head,
  sdkHead,
] as const satisfies readonly DownloadStrategy[];

const UPLOADS = [smallFiles, sdkSmallFiles, blocks, sdkUpload] as const satisfies readonly UploadStrategy[];

/** The names a user types and a results file holds, checked by the compiler. */
export type DownloadStrategyName = (typeof DOWNLOADS)[number]['name'];
export type UploadStrategyName = (typeof UPLOADS)[number]['name'];

/** A name is a contender's within its direction only: `small-files` is a download and an upload. */
export type Direction = 'download' | 'upload';
export type StrategyName = DownloadStrategyName | UploadStrategyName;

// Unique within each direction: a second contender of one name would never be found, so it is a
// compile error that names it (`duplicate: "chunked"`).
type Named = { name: string };
type Duplicate<T extends readonly Named[]> = T extends readonly [
  infer H extends Named,
  ...infer R extends readonly Named[],
]
  ? (H['name'] extends R[number]['name'] ? H['name'] : never) | Duplicate<R>
  : never;
type NoDuplicate<T extends readonly Named[]> = [Duplicate<T>] extends [never]
  ? unknown
  : { duplicate: Duplicate<T> };
const unique = <T extends readonly Named[]>(list: T & NoDuplicate<T>) => list;

export const DOWNLOAD_STRATEGIES: readonly DownloadStrategy<DownloadStrategyName>[] = unique(DOWNLOADS);
export const UPLOAD_STRATEGIES: readonly UploadStrategy<UploadStrategyName>[] = unique(UPLOADS);

/** What a contender measures: its own declaration, or its direction's one blob. */
export const workloadOf = (s: DownloadStrategy | UploadStrategy): Workload =>
  s.workload ??
  ((UPLOAD_STRATEGIES as readonly unknown[]).includes(s) ? UPLOAD_WORKLOADS.blob : DOWNLOAD_WORKLOADS.blob);

/**
 * `all` is every one-blob contender; the many-blob workloads are named (a comma-separated list:
 * `small-files,sdk-small-files`), as each measures something of its own.
 */
export function selectStrategies(method: string, urlTarget: boolean): DownloadStrategy[] {
  const pool = DOWNLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  if (method === 'all') return pool.filter((s) => !workloadOf(s).many);
  const names = method.split(',');
  return pool.filter((s) => names.includes(s.name));
}

export function selectUploadStrategies(method: string, urlTarget: boolean): UploadStrategy[] {
  const pool = UPLOAD_STRATEGIES.filter((s) => !urlTarget || s.urlCapable);
  return method === 'all' ? [...pool] : pool.filter((s) => s.name === method);
}

/** The contenders of one direction (a results file's `command`). */
export const strategiesOf = (direction: Direction): readonly (DownloadStrategy | UploadStrategy)[] =>
  direction === 'download' ? DOWNLOAD_STRATEGIES : UPLOAD_STRATEGIES;

/** A contender by its direction and name, for what is drawn from results alone (advice, simplicity). */
export const strategyNamed = (
  direction: Direction,
  name: string,
): DownloadStrategy | UploadStrategy | undefined => strategiesOf(direction).find((s) => s.name === name);

/**
 * The unit of a run in a results file older than schema 3 (no `unit`): its contender's legacy unit.
 * Such a run carries its strategy's name alone, so this looks in both directions; contenders that
 * share a name across directions declare the same one (test/contender-declarations.test.ts).
 */
export const legacyUnitOf = (name: string): 'ops/s' | undefined =>
  [...DOWNLOAD_STRATEGIES, ...UPLOAD_STRATEGIES].find((s) => s.name === name)?.legacyUnit;

/** The contenders that read `option`, by name, in registry order: what --help says beside it. */
export const readersOf = (direction: Direction, option: PlanOption): string[] =>
  strategiesOf(direction)
    .filter((s) => s.reads?.includes(option))
    .map((s) => s.name);

/** The contenders --hedge applies to. */
export const HEDGEABLE: readonly DownloadStrategyName[] = DOWNLOAD_STRATEGIES.filter((s) => s.hedgeable).map(
  (s) => s.name,
);

/** The many-blob workloads, each by its first contender's name (`small-files, list, head`). */
export function manyBlobWorkloadNames(strategies: readonly (DownloadStrategy | UploadStrategy)[]): string[] {
  const seen = new Set<WorkloadName>(['blob']);
  return strategies.flatMap((s) => {
    const { name } = workloadOf(s);
    if (seen.has(name)) return [];
    seen.add(name);
    return [s.name];
  });
}

/** The strategy --upload-method runs unless told: the first in the registry. */
export const DEFAULT_UPLOAD_STRATEGY: UploadStrategyName = UPLOADS[0].name;
