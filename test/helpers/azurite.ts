// Test plumbing around a real in-process Azurite: an SDK view of its containers, and an account SAS
// signed with its key, so tests can check what the engine left behind and authenticate as a user would.
import {
  AccountSASPermissions, AccountSASResourceTypes, AccountSASServices, BlobServiceClient, generateAccountSASQueryParameters,
  StorageSharedKeyCredential, type ContainerClient,
} from '@azure/storage-blob';
import type { EmbeddedAzurite } from '../../src/storage/azurite.js';

export { startEmbeddedAzurite, type EmbeddedAzurite } from '../../src/storage/azurite.js';

export function containerOf(azurite: EmbeddedAzurite, name: string): ContainerClient {
  const service = new BlobServiceClient(azurite.endpoint, new StorageSharedKeyCredential(azurite.account, azurite.key));
  return service.getContainerClient(name);
}

/** Names of the blobs in a container, sorted; an absent container has none. */
export async function blobNames(container: ContainerClient): Promise<string[]> {
  if (!(await container.exists())) return [];
  const names: string[] = [];
  for await (const blob of container.listBlobsFlat()) names.push(blob.name);
  return names.sort();
}

/** An account SAS (query string, no leading '?') for blob containers and objects: read, write, create, list, delete. */
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
