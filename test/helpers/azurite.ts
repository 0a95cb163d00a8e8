// Test plumbing around a real in-process Azurite: an SDK view of its containers, and an account SAS
// signed with its key, so tests can check what the engine left behind and authenticate as a user would.
import {
  AccountSASPermissions,
  AccountSASResourceTypes,
  AccountSASServices,
  BlobServiceClient,
  generateAccountSASQueryParameters,
  StorageSharedKeyCredential,
  type ContainerClient,
} from '@azure/storage-blob';
import { afterAll, beforeAll } from 'vitest';
import { setLogLevel } from '../../src/log/logger.js';
import { startEmbeddedAzurite, type EmbeddedAzurite } from '../../src/storage/azurite.js';

export { startEmbeddedAzurite, type EmbeddedAzurite } from '../../src/storage/azurite.js';

export function containerOf(azurite: EmbeddedAzurite, name: string): ContainerClient {
  const service = new BlobServiceClient(
    azurite.endpoint,
    new StorageSharedKeyCredential(azurite.account, azurite.key),
  );
  return service.getContainerClient(name);
}

/** Names of the blobs in a container, sorted; an absent container has none. */
export async function blobNames(container: ContainerClient): Promise<string[]> {
  if (!(await container.exists())) return [];
  const names: string[] = [];
  for await (const blob of container.listBlobsFlat()) names.push(blob.name);
  return names.sort();
}

/**
 * An account SAS (query string, no leading '?') for blob containers and objects: read, write, create, list,
 * delete.
 */
export function accountSas(azurite: EmbeddedAzurite, validForMs = 60 * 60 * 1000): string {
  return generateAccountSASQueryParameters(
    {
      expiresOn: new Date(Date.now() + validForMs),
      permissions: AccountSASPermissions.parse('rwcld'),
      resourceTypes: AccountSASResourceTypes.parse('co').toString(),
      services: AccountSASServices.parse('b').toString(),
    },
    new StorageSharedKeyCredential(azurite.account, azurite.key),
  ).toString();
}

/**
 * One embedded Azurite for a test file: started before its tests (the log at error), stopped after
 * them. Returns it; read it in a test or a hook, not at collection time.
 */
export function azuriteForFile(): () => EmbeddedAzurite {
  let azurite: EmbeddedAzurite | undefined;
  beforeAll(async () => {
    setLogLevel('error');
    azurite = await startEmbeddedAzurite();
  }, 60_000);
  afterAll(async () => {
    await azurite?.stop();
  });
  return () => azurite!;
}

/** Key credentials for an embedded Azurite, as a connection string would give them. */
export const keyCredentialsOf = (azurite: EmbeddedAzurite) => ({
  kind: 'key' as const,
  account: azurite.account,
  key: azurite.key,
  endpoint: azurite.endpoint,
});
