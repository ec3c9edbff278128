import { defineConfig } from 'vitest/config';

/**
 * Nest needs legacy decorators and `design:paramtypes` metadata; Vite 8 transforms
 * TypeScript with oxc, which emits both when told to.
 */
const oxc = {
  decorator: { legacy: true, emitDecoratorMetadata: true },
} as const;

export default defineConfig({
  oxc,
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: './.vitest-results.json' },
    projects: [
      {
        oxc,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.spec.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        oxc,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.spec.ts', 'test/e2e/**/*.spec.ts'],
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Test files share one PostgreSQL server of 2 cores; each file uses its own schema.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        oxc,
        test: {
          name: 'package',
          include: ['test/package/**/*.spec.ts'],
          globalSetup: ['./test/setup/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
