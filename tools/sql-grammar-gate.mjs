#!/usr/bin/env node
// The T-SQL grammar gate (contributing/mssql-sql.md, "Proof without a server"): parses every
// .sql file under the given paths with sqlfluff's tsql grammar and fails when any file does not
// parse. sqlfluff's `--format json` exits 0 even when a file does not parse, so the verdict comes
// from walking each file's segment tree for an `unparsable` segment.
//
//   node tools/sql-grammar-gate.mjs [--json] [--expect-unparsable] <file or dir>…
//
// Exit codes: 0 every file parses (with --expect-unparsable: every file is rejected), 1 otherwise,
// 2 usage error or sqlfluff missing. Verdicts are cached by sqlfluff version and file content in
// node_modules/.cache/queuebox-sql-gate, so the CI step and the unit test parse each text once.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SQLFLUFF = process.env.SQLFLUFF ?? 'sqlfluff';
const CACHE_DIR = resolve('node_modules/.cache/queuebox-sql-gate');

/** Every .sql file under `path`, sorted. */
function sqlFiles(path) {
  const stat = statSync(path);
  if (stat.isFile()) return path.endsWith('.sql') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => sqlFiles(join(path, name)));
}

/** The first unparsable segment of a sqlfluff parse tree, or undefined. */
function findUnparsable(node) {
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = findUnparsable(child);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  if ('unparsable' in node) return node.unparsable;
  for (const child of Object.values(node)) {
    const found = findUnparsable(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The raw text of a segment tree, shortened: what a reader needs to find the failure. */
function rawText(node) {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(rawText).join('');
  if (node !== null && typeof node === 'object') return Object.values(node).map(rawText).join('');
  return '';
}

async function sqlfluffVersion() {
  try {
    const { stdout } = await run(SQLFLUFF, ['--version']);
    return stdout.trim().split(/\s+/).pop();
  } catch {
    return undefined;
  }
}

/**
 * Parses `files` in one sqlfluff process (sqlfluff 1.4 `parse` takes one path: the files are
 * copied into a directory of their own first); returns a verdict per file.
 */
async function parseFiles(files) {
  if (files.length === 0) return new Map();
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-sql-gate-'));
  try {
    files.forEach((file, index) => copyFileSync(file, join(dir, `${String(index).padStart(5, '0')}.sql`)));
    // Exit code is 0 with --format json whatever the outcome; a non-zero one is a crash.
    const { stdout } = await run(SQLFLUFF, ['parse', '--dialect', 'tsql', '--format', 'json', dir], {
      maxBuffer: 512 * 1024 * 1024,
    });
    const verdicts = new Map();
    for (const result of JSON.parse(stdout)) {
      const file = resolve(files[Number(basename(result.filepath, '.sql'))]);
      const unparsable = result.segments === null ? 'no parse tree' : findUnparsable(result.segments);
      verdicts.set(
        file,
        unparsable === undefined
          ? { ok: true }
          : { ok: false, near: rawText(unparsable).replace(/\s+/g, ' ').trim().slice(0, 120) },
      );
    }
    for (const file of files)
      if (!verdicts.has(resolve(file)))
        verdicts.set(resolve(file), { ok: false, near: 'sqlfluff returned no result for this file' });
    return verdicts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv) {
  const json = argv.includes('--json');
  const expectUnparsable = argv.includes('--expect-unparsable');
  const paths = argv.filter((arg) => !arg.startsWith('--'));
  if (paths.length === 0) {
    console.error('usage: sql-grammar-gate.mjs [--json] [--expect-unparsable] <file or dir>…');
    return 2;
  }
  const version = await sqlfluffVersion();
  if (version === undefined) {
    console.error(`sql-grammar-gate: ${SQLFLUFF} is not installed (Debian: apt-get install -y sqlfluff)`);
    return 2;
  }
  const files = paths.flatMap((path) => sqlFiles(path));
  if (files.length === 0) {
    console.error(`sql-grammar-gate: no .sql files under ${paths.join(', ')}`);
    return 2;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const cacheFile = (file) =>
    join(CACHE_DIR, createHash('sha256').update(`${version}\0`).update(readFileSync(file)).digest('hex') + '.json');
  const verdicts = new Map();
  const uncached = [];
  for (const file of files) {
    const cached = cacheFile(file);
    if (existsSync(cached)) verdicts.set(resolve(file), JSON.parse(readFileSync(cached, 'utf8')));
    else uncached.push(file);
  }
  // One process per core, each on an interleaved share of the files: sqlfluff parses on one core.
  const shares = Math.max(1, Math.min(cpus().length, uncached.length));
  const parsed = await Promise.all(
    Array.from({ length: shares }, (_, share) => parseFiles(uncached.filter((_, index) => index % shares === share))),
  );
  for (const part of parsed) {
    for (const [file, verdict] of part) {
      verdicts.set(file, verdict);
      writeFileSync(cacheFile(file), JSON.stringify(verdict));
    }
  }
  const report = files.map((file) => ({ file: relative(process.cwd(), file), ...verdicts.get(resolve(file)) }));
  const failures = report.filter((entry) => entry.ok === expectUnparsable);
  if (json) {
    console.log(JSON.stringify({ sqlfluff: version, files: report }));
  } else {
    for (const entry of report)
      console.log(`${entry.ok ? 'parses    ' : 'UNPARSABLE'} ${entry.file}${entry.ok ? '' : `  near: ${entry.near}`}`);
    const parses = report.filter((entry) => entry.ok).length;
    console.log(
      `sqlfluff ${version} (tsql): ${parses} of ${report.length} files parse${expectUnparsable ? ' (every file was expected to be rejected)' : ''}; ${uncached.length} parsed now, ${report.length - uncached.length} from cache`,
    );
  }
  return failures.length === 0 ? 0 : 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(
    `sql-grammar-gate: sqlfluff failed: ${String(error.stderr || error.message)
      .split('\n')
      .slice(0, 5)
      .join('\n')}`,
  );
  process.exitCode = 2;
}
