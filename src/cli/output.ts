// How a command's report is shown and priced (--details, --color / NO_COLOR, --prices), and what a
// session against a real account will cost before it runs. Edge code: it reads files and the env.
import { ConfigError } from '../vocabulary/errors.js';
import {
  resolveOptions,
  type Credentials,
  type DownloadConfig,
  type Sources,
  type UploadConfig,
} from '../config/load.js';
import { OUTPUT_OPTIONS, type ColorMode } from '../config/options.js';
import type { PriceTable } from '../analysis/prices.js';
import { readJsonFile } from '../results/file.js';
import type { ResultsFile } from '../results/schema.js';
import { selectStrategies, selectUploadStrategies } from '../strategies/index.js';
import { selectMixStrategies } from '../strategies/mix.js';
import { isPlainUrl } from '../vocabulary/credentials.js';

type Env = Record<string, string | undefined>;

/** The URL the target is reached at; none for the embedded Azurite (started later, on this machine). */
export function endpointOf(c: Credentials): string | undefined {
  if (c.kind === 'embedded') return undefined;
  return isPlainUrl(c) ? c.url : c.endpoint;
}

/** How the report is shown and priced: the same options for a run and for `report`. */
export interface Output {
  details: boolean;
  color: boolean;
  /** The least gain that counts in the recommendation (--material), a share of the time. */
  material: number;
  prices?: PriceTable;
}

/** Colour only on a terminal, unless NO_COLOR (no-color.org) or --color says otherwise. */
const useColor = (mode: ColorMode, env: Env) =>
  mode === 'always' ? true : mode === 'never' ? false : process.stdout.isTTY === true && !env.NO_COLOR;

/** The session's billable operations and their price, from its config, before it runs. */
export async function sessionEstimate(
  command: ResultsFile['command'],
  c: DownloadConfig | UploadConfig,
  cells: number,
  given?: PriceTable,
): Promise<string> {
  const [{ estimateSession, estimateLine }, { DEFAULT_PRICES }] = await Promise.all([
    import('../analysis/estimate.js'),
    import('../analysis/prices.js'),
  ]);
  const download = 'sourceMethod' in c;
  const names = c.mix
    ? selectMixStrategies(
        download ? 'download' : 'upload',
        download ? c.sourceMethod : c.uploadMethod,
        false,
      ).map((s) => s.name)
    : download
      ? selectStrategies(c.sourceMethod, false).map((s) => s.name)
      : selectUploadStrategies(c.uploadMethod, false).map((s) => s.name);
  const prices = given ?? DEFAULT_PRICES;
  const e = estimateSession(
    {
      command,
      strategies: names,
      runsPerContender: c.runs + c.warmup,
      cells,
      atLeast: (c.minTimeMs ?? 0) > 0,
      ...(c.mix ? { mix: c.mix } : {}),
      objectSizeBytes: download ? (c.fileSizeBytes ?? 80 * 1024 * 1024) : c.fileSizeBytes,
      concurrency: c.concurrency,
      fileCount: c.fileCount ?? 0,
      ...(download
        ? { rangeSizeBytes: c.rangeSizeBytes, pageSize: c.pageSize }
        : {
            blobSizeBytes: c.blobSizeBytes,
            blockSizeBytes: c.blockSizeBytes,
            thresholdBytes: c.thresholdBytes,
          }),
    },
    prices,
  );
  return estimateLine(e, prices);
}

/** A --prices file, read like a results file (one bounded reader) and checked field by field. */
async function loadPrices(path: string | undefined): Promise<PriceTable | undefined> {
  if (!path) return undefined;
  const [doc, { parsePriceTable }] = await Promise.all([
    readJsonFile(path, 'prices file', 'give a JSON rate table as README "Cost" shows'),
    import('../analysis/prices.js'),
  ]);
  const parsed = parsePriceTable(doc);
  if ('problem' in parsed) throw new ConfigError(`prices file ${path} ${parsed.problem}`);
  return parsed.table;
}

export async function outputOf(flags: Record<string, unknown>, env: Env, sources: Sources): Promise<Output> {
  const o = resolveOptions(OUTPUT_OPTIONS, flags, sources);
  const prices = await loadPrices(o.pricesPath);
  return {
    details: o.details,
    color: useColor(o.color, env),
    material: o.material,
    ...(prices ? { prices } : {}),
  };
}
