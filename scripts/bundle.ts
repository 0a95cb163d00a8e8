// `npm run build`'s second step, after tsc: the three files a run starts from, each bundled with what
// it imports into one file, in place: dist/cli/commands.js (every command; what dist/cli.js imports
// once a command is named), dist/workers/worker.js (what each worker process runs) and
// dist/storage/azurite-process.js (the embedded Azurite's own process). Node resolves, reads,
// compiles and links every ES module on its own: a 1-byte download loaded ~150 modules in the
// coordinator and ~50 in each worker, ~60 ms of its start (BENCHMARKS.md, "Start-up").
//
// What stays outside the bundles: npm packages but the four every start loads (BUNDLED_PACKAGES; the
// others from node_modules as before, so the SDK and Azurite still load only where used), Node's own
// modules, workers/first-worker.js, whose early-forked worker dist/cli.js starts and the pool inside
// the bundle adopts (one copy, shared), and storage/azurite-child.js, which forks the embedded
// Azurite's process from the script beside it.
// Everything else in dist/ is tsc's output, unchanged: the tests, the bench and dist/download.js
// import it, and a build by tsc alone (the tests' set-up, the Docker image) runs the same code
// unbundled. The bundles sit where tsc put their entries, so paths relative to a module
// (../../package.json, node_modules) resolve as they do unbundled.
import { build, type Plugin } from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ENTRIES = ['cli/commands.js', 'workers/worker.js', 'storage/azurite-process.js'];

/**
 * The npm packages every command's start loads (commander and dotenv to read options, p-limit and
 * its yocto-queue), bundled in: each was a package.json to find and parse, an ESM facade or a CJS
 * wrapper, and files to resolve one by one. Every other package stays outside (the SDK, Azurite,
 * identity, cli-progress, selfsigned: loaded only where used).
 */
const BUNDLED_PACKAGES = new Set(['commander', 'dotenv', 'p-limit', 'yocto-queue']);

const packagesOutside: Plugin = {
  name: 'packages-outside',
  setup(b) {
    // A bare specifier (not relative, absolute or node:): a package, by its name (@scope/name).
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      const name = args.path
        .split('/')
        .slice(0, args.path.startsWith('@') ? 2 : 1)
        .join('/');
      return BUNDLED_PACKAGES.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Modules left outside the bundles, as tsc wrote them: workers/first-worker.js, whose state the entry
 * (dist/cli.js) and the bundled pool must share, and storage/azurite-child.js, which forks
 * azurite-process.js beside itself (inside dist/cli/commands.js, that path would be dist/cli/'s).
 */
const OUTSIDE = {
  'first-worker': '../workers/first-worker.js',
  'azurite-child': '../storage/azurite-child.js',
} as const;

const modulesOutside: Plugin = {
  name: 'modules-outside',
  setup(b) {
    b.onResolve({ filter: /\/(first-worker|azurite-child)\.js$/ }, (args) => {
      const name = /([^/]+)\.js$/.exec(args.path)![1] as keyof typeof OUTSIDE;
      // Relative to the bundle, which sits one folder below dist/ (cli/, workers/ or storage/).
      return { path: OUTSIDE[name], external: true };
    });
  },
};

/**
 * pako, left out of the packed histogram code: the encoding takes node:zlib's deflateSync and
 * inflateSync (found by eval('require("zlib")')) and pako only where there is no require (a
 * browser). Its ~4,000 lines were read and run by every process that made a histogram: ~1.7-3 ms
 * of each start (BENCHMARKS.md, "Start-up"). Should the eval ever fail, the encoding's own
 * fallback finds no pako and says so when used.
 */
const noPako: Plugin = {
  name: 'no-pako',
  setup(b) {
    b.onResolve({ filter: /^pako$/ }, () => ({ path: 'pako', namespace: 'no-pako' }));
    b.onLoad({ filter: /.*/, namespace: 'no-pako' }, () => ({
      contents: 'module.exports = undefined;',
      loader: 'js',
    }));
  },
};

/**
 * hdr-histogram-js's two files that metrics/histograms.ts requires (the histogram and its V2
 * encoding) with everything they require (pako, base64-js: ~40 files) packed into one CommonJS
 * file beside histograms.js: each process that makes histograms read and resolved those files one by
 * one, 10-14 ms of a start; one file (compile-cached as the bundles are) takes 5-7 ms. histograms.ts
 * requires it where it exists and the package's files where it does not (a build by tsc alone).
 */
async function packHistograms(dist: string): Promise<void> {
  await build({
    stdin: {
      contents:
        "module.exports = { ...require('hdr-histogram-js/dist/JsHistogramFactory'), " +
        "...require('hdr-histogram-js/dist/JsHistogram.encoding') };",
      resolveDir: resolve(dist, '..'),
      sourcefile: 'hdr-parts.js',
      loader: 'js',
    },
    outfile: join(dist, 'metrics', 'hdr-parts.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    // The encoding finds node:zlib by eval('require("zlib")'), which a CommonJS file still allows.
    logOverride: { 'direct-eval': 'silent' },
    logLevel: 'warning',
    plugins: [noPako],
  });
}

/**
 * Left out of the packed winston: @dabh/diagnostics (winston's own debug output, for its developers:
 * a no-op here), @colors/colors (logform's colorize, which the logger's format never calls; its level
 * config only records colors) and readable-stream (a copy of Node's own streams, which every process
 * has loaded already: node:stream stands in). Their code ran at every process's first log line.
 */
const noWinstonExtras: Plugin = {
  name: 'no-winston-extras',
  setup(b) {
    b.onResolve(
      {
        filter:
          /^(@dabh\/diagnostics|@colors\/colors(\/safe)?|readable-stream(\/lib\/_stream_writable\.js)?)$/,
      },
      (args) => ({ path: args.path, namespace: 'no-winston-extras' }),
    );
    b.onLoad({ filter: /.*/, namespace: 'no-winston-extras' }, (args) => ({
      contents: args.path.startsWith('@dabh/')
        ? 'module.exports = () => { const debug = () => {}; debug.enabled = false; return debug; };'
        : args.path === 'readable-stream'
          ? "module.exports = require('node:stream');"
          : args.path.startsWith('readable-stream/')
            ? "module.exports = require('node:stream').Writable;"
            : 'module.exports = {};',
      loader: 'js',
    }));
  },
};

/**
 * The parts of winston that log/logger.ts uses (the logger, the transport base, logform's format)
 * with everything they require packed into one CommonJS file beside logger.js: loaded at a process's
 * first log line, one compile-cached file to read instead of ~90 resolved one by one. logger.ts
 * requires it where it exists and the package where it does not (a build by tsc alone).
 */
async function packWinston(dist: string): Promise<void> {
  await build({
    stdin: {
      contents:
        'module.exports = { ' +
        "createLogger: require('winston/lib/winston/create-logger'), " +
        "Transport: require('winston-transport'), " +
        "format: require('logform/format'), " +
        "MESSAGE: require('triple-beam').MESSAGE };",
      resolveDir: resolve(dist, '..'),
      sourcefile: 'winston-parts.js',
      loader: 'js',
    },
    outfile: join(dist, 'log', 'winston-parts.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    plugins: [noWinstonExtras],
  });
}

export async function bundle(dist: string): Promise<void> {
  await packHistograms(dist);
  await packWinston(dist);
  for (const entry of ENTRIES) {
    const file = join(dist, entry);
    await build({
      entryPoints: [file],
      outfile: file,
      allowOverwrite: true,
      bundle: true,
      // Without splitting a lazy import() stays lazy (its module is evaluated when first imported)
      // but lives in the same file: no second copy of a module, whichever path reaches it.
      format: 'esm',
      platform: 'node',
      target: 'node22',
      plugins: [modulesOutside, packagesOutside],
      // The CommonJS packages bundled in require Node's modules (commander: node:events, …): an ES
      // module has no require of its own, so the bundle makes one (esbuild's shim calls it).
      banner: {
        js:
          "import { createRequire as __bundleCreateRequire } from 'node:module';\n" +
          'const require = __bundleCreateRequire(import.meta.url);',
      },
      // Chained to tsc's maps: a stack trace still names src/ files and lines.
      sourcemap: 'linked',
      logLevel: 'warning',
    });
  }
}

/**
 * The entries a shell runs by their shebang (the package's bin, and the two a README line runs)
 * made executable: tsc writes a new file 0644, and in a clone `npx blob-cacher` runs dist/cli.js
 * itself ("Permission denied" on a fresh clone's build). An install from the registry sets it too.
 */
export function makeEntriesExecutable(dist: string): void {
  for (const entry of ['cli.js', 'download.js', 'upload.js']) {
    const file = join(dist, entry);
    if (existsSync(file)) chmodSync(file, 0o755);
  }
}

if (import.meta.main) {
  const dist = resolve(process.argv[2] ?? 'dist');
  await bundle(dist);
  makeEntriesExecutable(dist);
}
