// Build script. `node esbuild.mjs` bundles src/extension.ts into out/extension.js (with a source
// map); `--production` minifies instead; `--tests` bundles every test/unit/*.test.ts into out-test/
// for `node --test`; `--clean-vsix` deletes old *.vsix files so `npm run package` leaves exactly one.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';

const flags = new Set(process.argv.slice(2));

if (flags.has('--clean-vsix')) {
  for (const f of readdirSync('.')) if (f.endsWith('.vsix')) rmSync(f);
} else if (flags.has('--tests')) {
  rmSync('out-test', { recursive: true, force: true });
  const tests = readdirSync('test/unit').filter((f) => f.endsWith('.test.ts'));
  await esbuild.build({
    entryPoints: tests.map((f) => `test/unit/${f}`),
    outdir: 'out-test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'], // unit tests must not reach it: a test that imports it fails to load
    sourcemap: 'inline',
    logLevel: 'warning',
  });
} else {
  const production = flags.has('--production');
  await esbuild.build({
    entryPoints: ['src/extension.ts'],
    outfile: 'out/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    logLevel: 'warning',
  });
}
