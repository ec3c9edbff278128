import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Two doc blocks in a row (`*∕` then `/**` on the next line) document one declaration twice:
 * TypeScript and TSDoc show only the second, so the first is dead text that drifts. A file's
 * header comment is kept apart from the first declaration's by a blank line.
 */
function doubledDocBlocks(text: string): number[] {
  return [...text.matchAll(/\*\/[ \t]*\n[ \t]*\/\*\*/g)].map((match) => text.slice(0, match.index).split('\n').length);
}

describe('doc blocks', () => {
  it('never come two to one declaration in lib/', () => {
    const doubled = sources(join(root, 'lib')).flatMap((path) =>
      doubledDocBlocks(readFileSync(path, 'utf8')).map((line) => `${relative(root, path)}:${line}`),
    );
    expect(doubled).toEqual([]);
  });

  it('are found when doubled', () => {
    expect(doubledDocBlocks('/** One. */\n/** Two. */\nexport const x = 1;\n')).toEqual([1]);
    expect(doubledDocBlocks('/** The file. */\n\n/** One. */\nexport const x = 1;\n')).toEqual([]);
  });
});
