import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = join(root, 'examples/quick-start/src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map(([, title]) =>
      title
        .toLowerCase()
        .replace(/`/g, '')
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it('shows the Quick start exactly as examples/quick-start, which CI builds and runs against the packed package', () => {
    const shown = new Map([...readme.matchAll(/\*\*`src\/([^`]+)`\*\*\n\n```ts\n([\s\S]*?)\n```/g)].map(([, path, code]) => [path, `${code}\n`]));
    const onDisk = files(example).map((file) => relative(example, file));
    expect([...shown.keys()].sort()).toEqual(onDisk.sort());
    for (const path of onDisk) expect(shown.get(path), path).toBe(readFileSync(join(example, path), 'utf8'));
  });

  it('names every entry point of the exports map', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const sentence = /Its entry points are [\s\S]*?\n\n/.exec(readme)?.[0] ?? '';
    for (const subpath of Object.keys(exports)) expect(sentence, subpath).toContain(`\`${subpath === '.' ? 'queuebox' : `queuebox/${subpath.slice(2)}`}\``);
  });

  it('names no file outside the package before its Contributing section (a user reads it on the registry)', () => {
    const forUsers = readme.slice(0, readme.indexOf('\n## Contributing\n'));
    expect(forUsers.length).toBeLessThan(readme.length);
    expect(forUsers.match(/\b(examples|test|sample-app|bench|tools|chaos|lib|\.ci)\/[\w./-]*/g) ?? []).toEqual([]);
  });

  it('keeps within 450 lines: the depth is in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(450);
  });

  it('links to no page for contributors: those are for the repository (CONTRIBUTING.md), not the package', () => {
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target);
    expect(links.filter((target) => !/^([a-z]+:|#)/i.test(target) && /contributing|chaos|internals|testing-on-sql-server/i.test(target))).toEqual([]);
  });

  it('starts with the two commands: the sample and the tests', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && npm run sample/m);
    expect(firstBlock).toMatch(/^npm test/m);
  });
});

describe('documentation links', () => {
  const pages = [join(root, 'README.md'), ...files(join(root, 'docs')).filter((file) => file.endsWith('.md'))];
  /** Pages for contributors: in the repository only, linked from CONTRIBUTING.md. */
  const contributorPages = [join(root, 'CONTRIBUTING.md'), ...(existsSync(join(root, 'contributing')) ? files(join(root, 'contributing')) : [])].filter((file) => file.endsWith('.md'));
  const { files: shipped } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
  /** Whether npm packs the file: the pages are read from the registry and node_modules too, where nothing else is. */
  const inPackage = (file: string): boolean => shipped.some((entry) => relative(root, file) === entry || relative(root, file).startsWith(`${entry}/`));

  it('ship only pages for users: the contributor pages, and text naming the tests, the chaos suite or CI, stay in the repository', () => {
    const packed = [...pages, ...contributorPages].filter(inPackage);
    expect(packed).toContain(join(root, 'README.md'));
    for (const page of packed) {
      // The README's Contributing section is for a clone of the repository; links to the repository are URLs.
      const text = readFileSync(page, 'utf8').split('\n## Contributing\n')[0].replace(/https?:\/\/\S+/g, '');
      const named = text.match(/(?<![\w.-])(test|chaos|\.ci|tools|contributing)\/[\w./-]*|\.ci\/run|\bnpm run chaos\b/g) ?? [];
      expect(named, `${relative(root, page)} names files the package does not have`).toEqual([]);
    }
    for (const page of contributorPages) expect(inPackage(page), relative(root, page)).toBe(false);
    expect(contributorPages.map((page) => relative(root, page)).sort()).toEqual(
      ['CONTRIBUTING.md', 'contributing/adding-a-dialect.md', 'contributing/chaos.md', 'contributing/claim-sql.md', 'contributing/mssql-sql.md', 'contributing/testing-on-sql-server.md'],
    );
  });

  it.each(contributorPages.map((page) => [relative(root, page), page]))('%s links only to files (and headings) that exist', (_, page) => {
    const text = readFileSync(page, 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      expect(existsSync(file), `${target} in ${relative(root, page)}`).toBe(true);
      if (anchor && file.endsWith('.md')) expect(anchors(readFileSync(file, 'utf8')), `${target} in ${relative(root, page)}`).toContain(anchor);
    }
  });

  it.each(pages.map((page) => [relative(root, page), page]))('%s links only to files (and headings) that exist in the package', (_, page) => {
    const text = readFileSync(page, 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      expect(existsSync(file), `${target} in ${relative(root, page)}`).toBe(true);
      expect(inPackage(file), `${target} in ${relative(root, page)} is not in the package (package.json "files")`).toBe(true);
      if (anchor && file.endsWith('.md')) expect(anchors(readFileSync(file, 'utf8')), `${target} in ${relative(root, page)}`).toContain(anchor);
    }
  });

  it.each(pages.map((page) => [relative(root, page), page]))('%s speaks to the reader, not of a work session', (_, page) => {
    expect(readFileSync(page, 'utf8')).not.toMatch(/\b(this|that|the last|previous) session\b|session's changes/i);
  });

  it('ship with the package, so that they work from the registry page and node_modules', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'docs', 'README.md']));
  });
});
