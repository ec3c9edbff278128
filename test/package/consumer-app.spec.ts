import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../tools/embedded-postgres.js';
import { waitFor } from '../fixtures/http-receiver.js';
import { NEST_NEW } from '../fixtures/nest-new.js';
import { tracingGuide } from '../fixtures/tracing-guide.js';

const execute = promisify(execFile);

/** Runs a command; a failure carries what the command printed. */
async function run(command: string, args: string[], options: { cwd: string }): Promise<{ stdout: string }> {
  try {
    return await execute(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}
const root = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The TypeScript lines the README promises, each at its newest release on the registry: 5.9 (the
 * oldest supported), 6.0 (which refuses `node10` resolution) and 7.0 (which removed it). The app
 * that runs is the one 7.0 built; the others are type-checked.
 */
const TYPESCRIPTS = { '5.9': '5.9.3', '6.0': '6.0.3', '7.0': '7.0.2' } as const;
const EMITTING_TYPESCRIPT = '7.0';

/** The application's dependencies, at the versions QueueBox is developed against. */
async function consumerDependencies(tarball: string): Promise<Record<string, string>> {
  const own = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const pick = [
    '@nestjs/common',
    '@nestjs/core',
    '@nestjs/platform-express',
    '@nestjs/typeorm',
    '@willsoto/nestjs-prometheus',
    'prom-client',
    'pg',
    'reflect-metadata',
    'rxjs',
    'typeorm',
  ];
  return { queuebox: `file:${tarball}`, ...Object.fromEntries(pick.map((name) => [name, own.devDependencies[name]])) };
}

/** The README's tsconfig, the least an application that was not made by `nest new` needs. */
const README_OPTIONS = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'ES2022',
  strict: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  skipLibCheck: true,
};

/**
 * The two shapes of a Nest application, both compiled with `nodenext`: an ESM app as `nest new`
 * makes it (Nest 12's default: its package.json's `type`, its compiler options), and a CommonJS
 * app with the README's tsconfig.
 */
const MODES = {
  commonjs: { type: undefined, compilerOptions: README_OPTIONS },
  esm: { type: NEST_NEW.type, compilerOptions: { ...NEST_NEW.compilerOptions, strict: true } },
} as const;

/** Compiled by the compiler only: the declarations of the testing kit, in an app without embedded-postgres. */
const TESTING_CHECK =
  `import { startEmbeddedPostgres, type EmbeddedPostgres } from 'queuebox/testing';\n` +
  `export const start = (): Promise<EmbeddedPostgres> => startEmbeddedPostgres({ database: 'app_test' });\n`;

/** Loads the tracing guide's set-up as compiled in the app, then starts a span and injects its context. */
const TRACING_CHECK = `
await import('./dist/tracing.js');
const { context, propagation, trace } = await import('@opentelemetry/api');
const span = trace.getTracer('consumer-check').startSpan('check');
const carrier = {};
propagation.inject(trace.setSpan(context.active(), span), carrier);
span.end();
console.log(carrier.traceparent ?? 'no traceparent');
`;

/**
 * The package as a user gets it: `npm pack`, installed once (with the three TypeScript lines) and
 * used by two fresh applications, CommonJS and ESM, whose sources are the README's Quick start
 * (examples/quick-start, kept equal to the README by test/unit/docs.spec.ts). Each app compiles
 * with TypeScript 5.9, 6.0 and 7.0, starts against PostgreSQL and delivers one order's message.
 * The tracing guide's install command runs as written, and its set-up is compiled and run.
 * Slow (an npm install): it runs in CI, where QUEUEBOX_PACKAGE_CHECK=1, and is reported skipped
 * otherwise.
 */
describe.skipIf(!process.env.QUEUEBOX_PACKAGE_CHECK)(
  'the packed package in a consumer app',
  { timeout: 600_000 },
  () => {
    let work: string;
    let installed: string;
    let admin: pg.Client;

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'queuebox-consumer-'));
      const { stdout } = await run('npm', ['pack', '--pack-destination', work, '--json'], { cwd: root });
      const tarball = join(work, (JSON.parse(stdout) as { filename: string }[])[0].filename);
      // One install for both apps: they differ only in their package.json's type and their output.
      installed = join(work, 'installed');
      await mkdir(installed);
      const compilers = Object.fromEntries(
        Object.entries(TYPESCRIPTS).map(([line, version]) => [`typescript-${line}`, `npm:typescript@${version}`]),
      );
      await writeFile(
        join(installed, 'package.json'),
        JSON.stringify(
          {
            name: 'consumer-dependencies',
            private: true,
            dependencies: await consumerDependencies(tarball),
            devDependencies: { ...compilers, '@types/node': '^20' },
          },
          null,
          2,
        ),
      );
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: installed });
      // Then, in the app, the tracing guide's own command, word for word: unpinned, the newest
      // @opentelemetry/api and SDK packages once refused to install together (ERESOLVE).
      await run('npm', tracingGuide(root).npmArgs, { cwd: installed });
      admin = new pg.Client({ connectionString: inject('pgUrl') });
      await admin.connect();
    }, 300_000);
    afterAll(async () => {
      await admin?.end();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it.each(Object.keys(MODES) as (keyof typeof MODES)[])(
      '%s: compiles with TypeScript 5.9, 6.0 and 7.0 and delivers one message',
      async (mode) => {
        const app = join(work, mode);
        await cp(join(root, 'examples/quick-start/src'), join(app, 'src'), { recursive: true });
        await writeFile(join(app, 'src/testing.check.ts'), TESTING_CHECK);
        // The tracing guide's set-up, compiled with the app and run below.
        await writeFile(join(app, 'src/tracing.ts'), `${tracingGuide(root).setup}\n`);
        // Checked by the compiler only: the destination names the app declared are enforced.
        await writeFile(
          join(app, 'src/destinations.check.ts'),
          `import { OutboxService } from 'queuebox';\n` +
            `declare module 'queuebox' { interface QueueBoxDestinations { billing: true } }\n` +
            `export const typed = (outbox: OutboxService) => outbox.enqueue({ destination: 'billing', payload: 1 });\n` +
            `// @ts-expect-error: not a declared destination\n` +
            `export const untyped = (outbox: OutboxService) => outbox.enqueue({ destination: 'nowhere', payload: 1 });\n`,
        );
        await writeFile(
          join(app, 'package.json'),
          JSON.stringify(
            { name: `consumer-${mode}`, private: true, ...(MODES[mode].type && { type: MODES[mode].type }) },
            null,
            2,
          ),
        );
        await writeFile(
          join(app, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: { ...MODES[mode].compilerOptions, types: ['node'], outDir: 'dist', rootDir: 'src' },
            include: ['src'],
          }),
        );
        await symlink(join(installed, 'node_modules'), join(app, 'node_modules'), 'dir');
        const tsc = (line: keyof typeof TYPESCRIPTS, ...flags: string[]) =>
          run(process.execPath, [join(app, `node_modules/typescript-${line}/bin/tsc`), '-p', '.', ...flags], {
            cwd: app,
          });
        for (const line of Object.keys(TYPESCRIPTS) as (keyof typeof TYPESCRIPTS)[])
          await tsc(line, ...(line === EMITTING_TYPESCRIPT ? [] : ['--noEmit']));
        // Once with every declaration checked (the fast compiler): one that names a package the app
        // lacks, as queuebox/testing's once named embedded-postgres, fails here.
        await tsc(EMITTING_TYPESCRIPT, '--noEmit', '--skipLibCheck', 'false');
        // The module format the app's package.json asked for.
        expect(await readFile(join(app, 'dist/main.js'), 'utf8')).toMatch(
          mode === 'esm' ? /^import /m : /require\("@nestjs\/core"\)/,
        );

        // The guide's set-up registers a tracer provider, a context manager and the W3C propagator:
        // a span started after it has a real trace id, and its context travels as a traceparent.
        const traced = await run(process.execPath, ['--input-type=module', '-e', TRACING_CHECK], { cwd: app });
        expect(traced.stdout).toMatch(/^00-(?!0{32})[0-9a-f]{32}-[0-9a-f]{16}-01$/m);

        const database = `qb_consumer_${mode}_${randomBytes(3).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${database}`);
        const databaseUrl = new URL(inject('pgUrl'));
        databaseUrl.pathname = `/${database}`;
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const output: string[] = [];
        const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
          cwd: app,
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl.toString(),
            PORT: String(port),
            BILLING_URL: `${base}/billing/hooks`,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        try {
          await waitFor(
            async () => (await fetch(`${base}/billing/received`).catch(() => undefined))?.ok === true,
            60_000,
            `the ${mode} app to listen`,
          );
          const placed = await fetch(`${base}/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ customerId: 'c1', amount: 12 }),
          });
          expect(placed.status, output.join('')).toBe(201);
          const order = (await placed.json()) as { orderId: string };
          await waitFor(
            async () =>
              Object.values((await (await fetch(`${base}/billing/received`)).json()) as { orderId: string }[]).some(
                (o) => o.orderId === order.orderId,
              ),
            20_000,
            'the delivery',
          );
          // SIGTERM drains and closes (Nest then re-raises the signal, so the process ends by it).
          const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
            child.once('exit', (code, signal) => resolve({ code, signal })),
          );
          child.kill('SIGTERM');
          const { code, signal } = await exited;
          expect(code === 0 || signal === 'SIGTERM', output.join('')).toBe(true);
          // eslint-disable-next-line no-control-regex -- strips the colours of Nest's console logger
          expect(output.join('').replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/\[OutboxPoller\] stopped/);

          // The package's bin, as installed: the shebang and the executable bit, in either kind of app.
          const status = await run(
            join(app, 'node_modules/.bin/queuebox'),
            ['status', '--url', databaseUrl.toString(), '--json'],
            { cwd: app },
          );
          expect(JSON.parse(status.stdout)).toMatchObject({
            dialect: 'postgres',
            backlog: { outbox: [] },
            dead: { outbox: [], inbox: [] },
          });
        } finally {
          child.kill('SIGKILL');
          await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        }
      },
    );
  },
);
