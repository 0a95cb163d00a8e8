// `blob-cacher k8s-manifest`: a Kubernetes Job of K clients, each running the command after `--`.
import { buildProgram, parseFlags, resolveOptions } from '../../config/load.js';
import { MANIFEST_OPTIONS } from '../../config/options.js';
import type { Env } from '../command-kit.js';

export async function manifestCommand(
  argv: readonly string[],
  env: Env,
  name = 'k8s-manifest',
): Promise<number> {
  // What follows `--` is the command each client runs, passed through untouched.
  const cut = argv.indexOf('--');
  const own = cut < 0 ? argv : argv.slice(0, cut);
  const program = buildProgram(
    name,
    MANIFEST_OPTIONS,
    'Print a Kubernetes Job (JSON, for kubectl apply -f -) of K clients; after -- the command they ' +
      'run, e.g. -- download --source-method chunked.',
  );
  const flags = parseFlags(program, own);
  if (!flags) return 0;
  const [{ manifestConfig }, { jobManifest }] = await Promise.all([
    import('../../config/scaleout.js'),
    import('../../scaleout/manifest.js'),
  ]);
  const config = manifestConfig(
    resolveOptions(MANIFEST_OPTIONS, flags, { env }),
    cut < 0 ? [] : argv.slice(cut + 1),
  );
  process.stdout.write(`${JSON.stringify(jobManifest(config), null, 2)}\n`);
  return 0;
}
