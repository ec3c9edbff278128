import { defineConfig } from 'vitest/config';
const oxc = { decorator: { legacy: true, emitDecoratorMetadata: true } } as const;
export default defineConfig({ oxc, test: { include: ['scratch/**/*.spec.ts'], testTimeout: 120000 } });
