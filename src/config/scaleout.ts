// Scale-out settings: which client of how many, the run id they share, and the account where they
// meet (the target's, or --run-store). Validated once, as every other option.
import {
  connectionStringCredentials,
  isPlainUrl,
  resolveCredentials,
  type Credentials,
} from '../vocabulary/credentials.js';
import { ConfigError } from '../vocabulary/errors.js';
import { buildProgram, parseFlags, resolveOptions } from './flags.js';
import { redact } from '../log/redact.js';
import {
  DOWNLOAD_OPTIONS,
  UPLOAD_OPTIONS,
  type COLLECT_OPTIONS,
  type LogLevel,
  type MANIFEST_OPTIONS,
  type Resolved,
  type SCALEOUT_OPTIONS,
} from './options.js';

export type AccountCredentials = Extract<Credentials, { kind: 'key' | 'sas' | 'entra' }>;

export interface ScaleoutConfig {
  runId: string;
  /** This client: index from 0 to count - 1; it takes items index, index + count, … */
  shard: { index: number; count: number };
  barrierTimeoutMs: number;
  startLeadMs: number;
  /** Where the ready markers and results go (the container is the run's --container). */
  store: AccountCredentials;
  /** Test only: this client's clock is shifted by this much. */
  testClockSkewMs: number;
}

/** The scale-out settings, or undefined for a plain (one machine) run. */
export function resolveScaleout(
  o: Resolved<typeof SCALEOUT_OPTIONS>,
  target: Credentials,
): ScaleoutConfig | undefined {
  const { parallelism, index, runId } = o;
  if (runId === undefined) {
    if (parallelism > 1)
      throw new ConfigError(
        `--parallelism ${parallelism} needs --run-id (BLOB_CACHER_RUN_ID), the same for every client`,
      );
    if (index !== undefined && index > 0)
      throw new ConfigError(`--index ${index} needs --run-id (BLOB_CACHER_RUN_ID) and --parallelism`);
    if (o.runStore !== undefined)
      throw new ConfigError(
        '--run-store (BLOB_CACHER_RUN_STORE) is for scale-out runs; add --run-id, or drop it',
      );
    if (o.testClockSkewMs !== 0)
      throw new ConfigError(
        '--test-clock-skew (BLOB_CACHER_TEST_CLOCK_SKEW_MS) is for scale-out tests; add --run-id, or drop it',
      );
    return undefined;
  }
  if (index === undefined && parallelism > 1)
    throw new ConfigError(
      `--parallelism ${parallelism} needs --index (JOB_COMPLETION_INDEX or BLOB_CACHER_INDEX) for each client`,
    );
  const shardIndex = index ?? 0;
  if (shardIndex >= parallelism)
    throw new ConfigError(
      `--index ${shardIndex} is not below --parallelism ${parallelism}; indices run from 0 to ${parallelism - 1}`,
    );
  return {
    runId,
    shard: { index: shardIndex, count: parallelism },
    barrierTimeoutMs: o.barrierTimeoutMs,
    startLeadMs: o.startLeadMs,
    store: storeOf(o.runStore, target),
    testClockSkewMs: o.testClockSkewMs,
  };
}

function storeOf(runStore: string | undefined, target: Credentials): AccountCredentials {
  if (runStore !== undefined) return connectionStringCredentials(runStore);
  if (target.kind === 'key' || target.kind === 'sas' || target.kind === 'entra') return target;
  const why = isPlainUrl(target)
    ? 'a plain --url has no blob service'
    : 'the embedded Azurite lives in one process';
  throw new ConfigError(
    `a scale-out run (--run-id) keeps its markers and results in a storage account and ${why}; give ` +
      `--run-store (BLOB_CACHER_RUN_STORE) a connection string, or target an account`,
  );
}

export interface CollectConfig {
  logLevel: LogLevel;
  runId: string;
  /** Clients the run had; unset: as the results say. */
  parallelism?: number;
  container: string;
  store: AccountCredentials;
  format: 'console' | 'json';
}

export function collectConfig(o: Resolved<typeof COLLECT_OPTIONS>): CollectConfig {
  if (o.runId === undefined)
    throw new ConfigError('collect needs --run-id (BLOB_CACHER_RUN_ID): the id the clients ran with');
  if (o.format !== 'console' && o.format !== 'json')
    throw new ConfigError(`collect prints console or json; --format ${o.format} is for run reports`);
  return {
    logLevel: o.logLevel,
    runId: o.runId,
    parallelism: o.parallelism,
    container: o.container,
    format: o.format,
    store: storeOf(o.runStore, resolveCredentials(o)),
  };
}

const CLIENT_OPTIONS = { download: DOWNLOAD_OPTIONS, upload: UPLOAD_OPTIONS } as const;
const CLIENT_COMMANDS = Object.keys(CLIENT_OPTIONS);
/** The image's CMD (Dockerfile): the Job's clients run it when nothing follows --. */
const IMAGE_COMMAND = 'upload';

/**
 * Every option whose value is a secret (--key, --sas, --connection-string, --run-store), from the option
 * table.
 */
const SECRET_FLAGS = new Set(
  [...DOWNLOAD_OPTIONS, ...UPLOAD_OPTIONS].filter((spec) => spec.secret).map((spec) => spec.flag),
);

/**
 * A Job's args are stored in the cluster in clear and shown by kubectl describe: a secret there
 * (a secret option, a URL with a password or a SAS signature) is refused with where it goes instead.
 */
function refuseSecretsInArgs(args: readonly string[]): void {
  const fix =
    "put it in the Secret the Job reads (--secret, its keys become the clients' environment: " +
    'STORAGE_CONNECTION_STRING, STORAGE_KEY, STORAGE_SAS, URL) or use workload identity ' +
    '(--service-account with --auth entra)';
  for (const arg of args) {
    const flag = arg.startsWith('--') ? arg.split('=')[0]! : undefined;
    if (flag && SECRET_FLAGS.has(flag))
      throw new ConfigError(
        `${flag} after -- would write the secret into the Job's args, readable by anyone who can read the Job; ${fix}`,
      );
    const value = flag && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url?.password || /[?&;](?:s|%73)(?:i|%69)(?:g|%67)=/i.test(value))
      throw new ConfigError(
        `${url ? 'a URL' : 'an argument'} after -- carries a ` +
          `${url?.password ? 'password' : 'SAS signature'}, which the Job's args would show to ` +
          `anyone who can read the Job; ${fix}`,
      );
    // Any other value of a secret's shape (an AccountKey=, a SharedAccessSignature=, a bearer token),
    // whatever option it was given to: redaction would mask it, so the Job would carry it in clear.
    if (redact(arg) !== arg)
      throw new ConfigError(
        `an argument after -- holds a secret (an account key, a SAS or a token), which the Job's ` +
          `args would show to anyone who can read the Job; ${fix}`,
      );
  }
}

/**
 * The client's command line, checked as that command would check it (its options, their values),
 * so that a typo fails here with one line, not in every pod after the Job is scheduled.
 */
function checkClientArgs(command: keyof typeof CLIENT_OPTIONS, args: readonly string[]): void {
  if (args.some((a) => a === '--help' || a === '-h'))
    throw new ConfigError(
      `--help after -- would print ${command}'s help in every pod; run blob-cacher ${command} --help instead`,
    );
  const specs = CLIENT_OPTIONS[command];
  try {
    resolveOptions(specs, parseFlags(buildProgram(command, specs, ''), args) ?? {}, { env: {} });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const problem = err.message.replace(/; run with --help to see the options$/, '');
    throw new ConfigError(`after --, ${command}: ${problem}; see blob-cacher ${command} --help`);
  }
}

/** The Job's settings; `clientArgv` is what follows `--`: the command every client runs, and its options. */
export function manifestConfig(
  o: Resolved<typeof MANIFEST_OPTIONS>,
  clientArgv: readonly string[],
): ManifestOptions {
  if (o.parallelism === undefined)
    throw new ConfigError('k8s-manifest needs --parallelism K, the number of clients');
  if (o.secret !== undefined && o.serviceAccount !== undefined)
    throw new ConfigError('give --secret or --service-account (workload identity), not both');
  const args = clientArgv.length ? [...clientArgv] : [IMAGE_COMMAND];
  const command = args[0]!;
  if (!Object.hasOwn(CLIENT_OPTIONS, command))
    throw new ConfigError(
      `k8s-manifest runs ${CLIENT_COMMANDS.join(' or ')} in each client; after -- give e.g. ` +
        `download --source-method chunked, not ${command}`,
    );
  for (const flag of ['--parallelism', '--index', '--run-id']) {
    if (args.some((a) => a === flag || a.startsWith(`${flag}=`)))
      throw new ConfigError(`${flag} is set by the Job for each client; drop it after --`);
  }
  refuseSecretsInArgs(args);
  checkClientArgs(command as keyof typeof CLIENT_OPTIONS, args.slice(1));
  return {
    name: o.name,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    image: o.image,
    parallelism: o.parallelism,
    args,
    ...(o.serviceAccount
      ? { serviceAccount: o.serviceAccount }
      : { secret: o.secret ?? 'blob-cacher-storage' }),
    cpu: o.cpu,
    memory: o.memory,
    clientsPerNode: o.clientsPerNode,
    activeDeadlineSeconds: Math.ceil(o.activeDeadlineMs / 1000),
    resultsDir: '/app/results',
  };
}

/** What `manifest` writes a Kubernetes Job from (scaleout/manifest.ts). */
export interface ManifestOptions {
  name: string;
  namespace?: string;
  image: string;
  parallelism: number;
  /** The blob-cacher command and its arguments, e.g. ['download', '--source-method', 'chunked']. */
  args: string[];
  /** Credentials: a Secret's keys as environment variables, or a workload identity's service account. */
  secret?: string;
  serviceAccount?: string;
  cpu: string;
  memory: string;
  /** At most this many clients on one node (1: one per node). */
  clientsPerNode: number;
  activeDeadlineSeconds: number;
  /**
   * The image's results directory (Dockerfile): an emptyDir is mounted there, since the pod's root
   * file system is read-only, and each client's local results file goes into it.
   */
  resultsDir: string;
}
