// Embedded Azurite (blob-cacher's dist/storage/azurite.js) hosted in the suite's process, fresh for
// every single run: an in-memory Azurite keeps deleted data and grows slower as runs pile up (after
// ~40 runs of 234 MiB it held 6.8 GiB and stalled), so no run inherits another's state.
import type * as Azurite from '../../dist/storage/azurite.js';
import type * as Log from '../../dist/log/logger.js';
import type { BenchAzurite } from './context.ts';
import { distImport } from './ours.ts';
import { AzuriteClock } from './server-clock.ts';
import { withHooks, type Contender } from './sample.ts';

export interface AzuriteHost {
  /** The Azurite of the run in progress. */
  current(): BenchAzurite;
  /** The contender with a fresh Azurite around each run; `setup` runs before the clock (fixtures). */
  fresh<C extends Contender>(c: C, setup?: (az: BenchAzurite) => Promise<void>): C;
  stop(): Promise<void>;
  /** Every Azurite this host starts is watched by this one clock. */
  clock: AzuriteClock;
}

export async function azuriteHost(): Promise<AzuriteHost> {
  const { startEmbeddedAzurite } = await distImport<typeof Azurite>('storage/azurite.js');
  // blob-cacher's fixture code logs at info through its shared logger: keep the suite's output to tables.
  (await distImport<typeof Log>('log/logger.js')).setLogLevel('warn');
  let running: Azurite.EmbeddedAzurite | undefined;
  let info: BenchAzurite | undefined;
  const clock = new AzuriteClock();
  const stop = async () => {
    const r = running;
    running = undefined;
    info = undefined;
    await r?.stop();
  };
  const start = async (setup?: (az: BenchAzurite) => Promise<void>) => {
    await stop();
    running = await startEmbeddedAzurite();
    const az = running;
    clock.watch(az.httpServer);
    info = {
      endpoint: az.endpoint,
      account: az.account,
      key: az.key,
      connectionString:
        `DefaultEndpointsProtocol=http;AccountName=${az.account};AccountKey=${az.key};BlobEndpoint=` +
        `${az.endpoint};`,
    };
    await setup?.(info);
    return info;
  };
  return {
    current() {
      if (!info) throw new Error('no Azurite is running');
      return info;
    },
    fresh(c, setup) {
      return withHooks(c, {
        before: async () => void (await start(setup)),
        after: stop,
      });
    },
    stop,
    clock,
  };
}
