// Where the clients of a scale-out run meet: blobs under runs/<RUN_ID>/ in the storage account
// (ready markers, each client's results). Through the SDK: these few requests are not measured.
import type { ContainerClient } from '@azure/storage-blob';
import type { AccountCredentials } from '../config/scaleout.js';
import { openTarget } from '../storage/open-target.js';
import { coordinatorClient, type BlobServiceInfo } from '../storage/target.js';
import { headDateProbe, type DateProbe } from './clock.js';

export interface StoredBlob {
  name: string;
  /** Last-Modified on the service's clock (one-second resolution). */
  lastModifiedMs: number;
}

export interface RunStore {
  /** Writes `name` unless it exists (If-None-Match: *): false when it was there already. */
  createOnce(name: string, body: string): Promise<boolean>;
  put(name: string, body: string): Promise<void>;
  /** The blob's text; undefined when there is none. */
  get(name: string): Promise<string | undefined>;
  list(prefix: string): Promise<StoredBlob[]>;
  /** Reads the service's Date header. */
  probeDate: DateProbe;
}

/** The paths of one run's blobs. */
export const runPaths = (runId: string) => ({
  readyPrefix: `runs/${runId}/ready/`,
  ready: (index: number) => `runs/${runId}/ready/${index}`,
  resultsPrefix: `runs/${runId}/results/`,
  results: (index: number) => `runs/${runId}/results/${index}.json`,
});

const statusOf = (err: unknown) => (err as { statusCode?: number }).statusCode;

/**
 * The run store in an account named by credentials (a key, a SAS, or an Entra ID identity: workload
 * identity in a Job), opened as any target is, with the coordinator's client (its token renewed).
 */
export async function openAccountStore(c: AccountCredentials, container: string): Promise<RunStore> {
  const target = await openTarget(c, container);
  return openRunStore(target.info as BlobServiceInfo, await coordinatorClient(target));
}

export async function openRunStore(info: BlobServiceInfo, container: ContainerClient): Promise<RunStore> {
  await container.createIfNotExists();
  // Any answer carries Date; the service's root with the SAS (if any) costs nothing to ask.
  const probeUrl =
    `${info.endpoint}/${encodeURIComponent(info.container)}?restype=container` +
    (info.sas ? `&${info.sas}` : '');
  const upload = (name: string, body: string, ifNoneMatch?: string) => {
    const data = Buffer.from(body);
    return container.getBlockBlobClient(name).upload(data, data.length, {
      blobHTTPHeaders: { blobContentType: 'application/json' },
      ...(ifNoneMatch ? { conditions: { ifNoneMatch } } : {}),
    });
  };
  return {
    async createOnce(name, body) {
      try {
        await upload(name, body, '*');
        return true;
      } catch (err) {
        // The service answers 409 (BlobAlreadyExists) to If-None-Match: * on an existing blob; 412 is the
        // rule's own answer.
        if (statusOf(err) === 409 || statusOf(err) === 412) return false;
        throw err;
      }
    },
    async put(name, body) {
      await upload(name, body);
    },
    async get(name) {
      try {
        return (await container.getBlockBlobClient(name).downloadToBuffer()).toString('utf8');
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw err;
      }
    },
    async list(prefix) {
      const out: StoredBlob[] = [];
      for await (const blob of container.listBlobsFlat({ prefix }))
        out.push({ name: blob.name, lastModifiedMs: blob.properties.lastModified.getTime() });
      return out;
    },
    probeDate: headDateProbe(probeUrl, info.ca),
  };
}
