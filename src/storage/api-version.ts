// The Blob service REST API version every request of ours asks for (x-ms-version), in one place:
// signed (SharedKey) and unsigned (SAS) requests alike.
export const STORAGE_API_VERSION = '2025-01-05';
