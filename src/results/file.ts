// Building and reading results files; reads reject unknown schemas with one clear line. Writing,
// and checking the path before a run, live in write.ts.
import { readRegularFile } from './bounded-read.js';
import { createRequire } from 'node:module';
import { totalmem } from 'node:os';
import { hostFacts } from './host.js';
import { ConfigError } from '../vocabulary/errors.js';
import { RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type ResultsFile } from './schema.js';
import { parseResultsDoc } from './validate.js';
import { isReplayDoc, parseReplayDoc, type ReplayResults } from './replay.js';
import { machineLimits, readMachine } from '../metrics/machine-limits.js';

export { writeResults } from './write.js';

const packageVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export function newResultsFile(
  command: ResultsFile['command'],
  config: Record<string, unknown>,
  target: { kind: string; label: string },
): ResultsFile {
  // A container's limits beside the host's numbers: a --cpus 1 run's report must not read as two cores'.
  const { cpuQuota, memoryLimitBytes } = machineLimits(readMachine());
  const container = {
    ...(cpuQuota === undefined ? {} : { cpuQuota }),
    ...(memoryLimitBytes === undefined ? {} : { memoryLimitBytes }),
  };
  return {
    schema: RESULTS_SCHEMA,
    schemaVersion: RESULTS_SCHEMA_VERSION,
    command,
    createdAt: new Date().toISOString(),
    complete: false,
    config,
    environment: {
      ...hostFacts(),
      totalMemoryBytes: totalmem(),
      targetKind: target.kind,
      target: target.label,
      packageVersion,
      ...(Object.keys(container).length ? { container } : {}),
    },
    runs: [],
  };
}

export function defaultResultsPath(command: string, now = new Date()): string {
  return `results/${command}-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.json`;
}

/**
 * The largest results file read: about the longest string Node makes (a bigger one could not be parsed
 * anyway).
 */
export const MAX_RESULTS_FILE_BYTES = 512 * 1024 * 1024;

/**
 * A JSON file the user names (a results file, a --prices table): read whole through the bounded
 * regular-file reader (no FIFO, device or endless file) and parsed, or one line naming `what` is
 * wrong with it and the fix.
 */
export async function readJsonFile(
  path: string,
  what: string,
  fix: string,
  maxBytes = MAX_RESULTS_FILE_BYTES,
): Promise<unknown> {
  const text = (await readRegularFile(path, { maxBytes, what, fix })).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`${what} ${path} is not valid JSON (corrupt or truncated); ${fix}`);
  }
}

async function readDoc(path: string): Promise<unknown> {
  try {
    return await readJsonFile(path, 'results file', 'give the path of a file a run wrote');
  } catch (err) {
    // A damaged results file has its own fix: a new run.
    if (err instanceof ConfigError && err.message.includes('not valid JSON'))
      throw new ConfigError(
        `results file ${path} is not valid JSON (corrupt or truncated); ` +
          're-run the benchmark to get a new one',
      );
    throw err;
  }
}

function runsOf(path: string, doc: unknown): ResultsFile {
  const parsed = parseResultsDoc(doc);
  if ('problem' in parsed) throw new ConfigError(`${path}: results file ${parsed.problem}`);
  return parsed.doc;
}

export async function readResults(path: string): Promise<ResultsFile> {
  return runsOf(path, await readDoc(path));
}

/** A results file of either kind: a session's runs, or a replay's (`blob-cacher replay`). */
export async function readAnyResults(
  path: string,
): Promise<{ runs: ResultsFile } | { replay: ReplayResults }> {
  const doc = await readDoc(path);
  if (!isReplayDoc(doc)) return { runs: runsOf(path, doc) };
  const parsed = parseReplayDoc(doc);
  if ('problem' in parsed) throw new ConfigError(`${path}: results file ${parsed.problem}`);
  return { replay: parsed.doc };
}
