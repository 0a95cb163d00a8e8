// A fresh empty directory per test, all under one temporary root that is removed after the file.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

/**
 * freshDirs for code that cannot await (a default parameter, a sync helper): the root is made on
 * first use and removed after the file. Call it at a file's top level.
 */
export function freshDirsSync(prefix: string): () => string {
  let root: string | undefined;
  let n = 0;
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    root ??= mkdtempSync(join(tmpdir(), prefix));
    const dir = join(root, `case-${++n}`);
    mkdirSync(dir);
    return dir;
  };
}
