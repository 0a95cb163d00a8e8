// What every case gets from the entry point: where to put files, how many runs, the peers found, and the
// servers the suite starts (nginx; an embedded Azurite per run), nginx possibly missing with a reason.
import type { AzuriteHost } from './azurite.ts';
import type { Nginx } from './nginx.ts';
import type { Section } from './report.ts';
import type { Tool } from './tools.ts';

export interface BenchAzurite {
  endpoint: string;
  account: string;
  key: string;
  /** For blob-cacher: passed in its environment (STORAGE_CONNECTION_STRING), never on the command line. */
  connectionString: string;
}

export interface BenchContext {
  tmpDir: string;
  runs: number;
  /** The large file served by nginx for cases 1 and 4. */
  largeSizeBytes: number;
  largeName: string;
  tools: Map<string, Tool>;
  azcopy: Tool;
  nginx?: Nginx;
  nginxMissing?: string;
  /** A fresh embedded Azurite per run: wrap contenders with azurite.fresh(). */
  azurite: AzuriteHost;
  log(line: string): void;
}

export type Case = (ctx: BenchContext) => Promise<Section>;

export function section(id: string, title: string): Section {
  return { id, title, notes: [], tables: [], rows: [], goals: [], commands: [] };
}

export function tool(ctx: BenchContext, name: string): Tool {
  return ctx.tools.get(name) ?? { name, missing: 'not looked for' };
}
