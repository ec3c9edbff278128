import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docBlocks, type DocBlock } from '../fixtures/doc-code-blocks.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : path.endsWith('.md') ? [path] : [];
  });
}

const pages = ['README.md', ...markdownFiles(join(root, 'docs')).map((file) => relative(root, file))].sort();
const blocks = pages.flatMap((page) => docBlocks(page, readFileSync(join(root, page), 'utf8')));
const compiled = blocks.filter((block) => block.notCompiled === undefined);

/** Where a block is written: its own file name, or one named after its line, in a folder per page. */
const fileOf = (block: DocBlock): string =>
  join(block.page.replace(/\.md$/, ''), block.file ?? `line-${block.line}.ts`);
const lineCount = (text: string): number => (text === '' ? 0 : text.split('\n').length);

/**
 * `queuebox` and its subpaths resolve to lib/, as the exports map resolves them to dist/, so the
 * blocks are checked against the code of this checkout without a build.
 */
function queueBoxPaths(): Record<string, string[]> {
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string }>;
  };
  return Object.fromEntries(
    Object.entries(exports).map(([subpath, { types }]) => [
      subpath === '.' ? 'queuebox' : `queuebox/${subpath.slice(2)}`,
      [join(root, types.replace(/^\.\/dist\//, 'lib/').replace(/\.d\.ts$/, '.ts'))],
    ]),
  );
}

/** A compiler diagnostic told at the page and line of the block it belongs to. */
function locate(diagnostic: string, dir: string): string {
  const match = /^(.+?)\((\d+),(\d+)\): (.*)$/s.exec(diagnostic);
  if (!match) return diagnostic;
  const [, path, line, column, text] = match;
  // tsc names files relative to its working directory, where the blocks are.
  const block = compiled.find((candidate) => fileOf(candidate) === path);
  if (!block) return `${relative(root, join(dir, path))}:${line}:${column} ${text}`;
  const inBlock = Number(line) - lineCount(block.before);
  if (inBlock < 1)
    return `${block.page}:${block.line - 1} (the "compile with" code before the block, its line ${line}):${column} ${text}`;
  if (inBlock > lineCount(block.code))
    return `${block.page}:${block.line - 1} (the "compile with" code after the block):${column} ${text}`;
  return `${block.page}:${block.line + inBlock - 1}:${column} ${text}`;
}

/**
 * Every TypeScript block of README.md and docs/ compiles against the package's types, as an
 * application writes it (strict, Node's ESM resolution, Nest's decorators), in one run of the
 * compiler. A block is a module of its own; the few that are not meant to compile say so. The
 * conventions (code around a fragment, a file name, not compiled) are in test/fixtures/doc-code-blocks.ts.
 */
describe('TypeScript blocks of README.md and docs/', { timeout: 120_000 }, () => {
  let dir: string;
  const diagnostics = new Map<string, string[]>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'queuebox-docs-'));
    // The blocks import what an application has installed: this repository's packages.
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    for (const block of compiled) {
      const file = join(dir, fileOf(block));
      await mkdir(dirname(file), { recursive: true });
      // `export {}` makes a block without imports a module too (top-level await, names of its own).
      await writeFile(
        file,
        [block.before, block.code, block.after, 'export {};', ''].filter((part, i) => i > 2 || part !== '').join('\n'),
      );
    }
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2023', 'ES2024.String'],
          types: ['node'],
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: true,
          noEmit: true,
          paths: queueBoxPaths(),
        },
        files: compiled.map(fileOf),
      }),
    );
    const { failed, output } = await new Promise<{ failed: boolean; output: string }>((resolve) =>
      execFile(
        join(root, 'node_modules/.bin/tsc'),
        ['-p', 'tsconfig.json', '--pretty', 'false'],
        { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ failed: error !== null, output: `${stdout}${stderr}` }),
      ),
    );
    // One diagnostic per line that names a file; its continuation lines are indented.
    const found = output.split(/\n(?=\S)/).filter((text) => text.trim() !== '');
    for (const diagnostic of failed && found.length === 0 ? ['tsc failed and printed nothing'] : found) {
      const located = locate(diagnostic.trimEnd(), dir);
      const page = pages.find((candidate) => located.startsWith(`${candidate}:`)) ?? '(outside the blocks)';
      diagnostics.set(page, [...(diagnostics.get(page) ?? []), located]);
    }
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('are found, and compiled but for a few that say why', () => {
    expect(compiled.length).toBeGreaterThan(30);
    expect(blocks.filter((block) => block.notCompiled !== undefined).length).toBeLessThanOrEqual(3);
  });

  it('compile without a diagnostic outside the blocks (lib/, the configuration)', () => {
    expect(diagnostics.get('(outside the blocks)') ?? []).toEqual([]);
  });

  it.each(pages.filter((page) => compiled.some((block) => block.page === page)))('of %s compile', (page) => {
    expect(diagnostics.get(page) ?? []).toEqual([]);
  });
});

describe('docBlocks', () => {
  const page = (...lines: string[]) => docBlocks('page.md', lines.join('\n'));

  it('reads the code around a block, its file name, and the blocks that are not compiled, at their lines', () => {
    const [wrapped, named, skipped, plain] = page(
      '<!-- compile with',
      "import { PullService } from 'queuebox';",
      'class C {',
      '  constructor(private readonly pull: PullService) {}',
      '  async run() {',
      '---',
      '  }',
      '}',
      '-->',
      '```ts',
      "await this.pull.claim('payments');",
      '```',
      '**`src/app.module.ts`**',
      '',
      '```ts',
      'export class AppModule {}',
      '```',
      '<!-- not compiled: it shows a mistake -->',
      '',
      '```ts',
      'JSON.parse(message.payload);',
      '```',
      '```sh',
      'npm test',
      '```',
      '```ts',
      'const a = 1;',
      '```',
    );
    expect(wrapped).toMatchObject({ line: 11, code: "await this.pull.claim('payments');", after: '  }\n}' });
    expect(wrapped.before.split('\n')).toHaveLength(4);
    expect(named).toMatchObject({ line: 16, file: 'src/app.module.ts', before: '', after: '' });
    expect(skipped).toMatchObject({ line: 21, notCompiled: 'it shows a mistake' });
    expect(plain).toEqual({ page: 'page.md', line: 27, code: 'const a = 1;', before: '', after: '' });
  });

  it('refuses a directive it cannot read, and a block that is not closed', () => {
    expect(() => page('<!-- compile with: import x -->', '```ts', 'x', '```')).toThrow(
      /page\.md:1: a directive must read/,
    );
    expect(() => page('<!-- not compiled -->', '```ts', 'x', '```')).toThrow(/page\.md:1/);
    expect(() => page('```ts', 'x')).toThrow(/page\.md:1: a code block that is not closed/);
  });
});
