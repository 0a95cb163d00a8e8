// A fresh empty directory per test, all under one temporary root that is removed after the file.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export function freshDirs(prefix: string): () => Promise<string> {
  let root = '';
  let n = 0;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return async () => {
    const dir = join(root, `case-${++n}`);
    await mkdir(dir);
    return dir;
  };
}
