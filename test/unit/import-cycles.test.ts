import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The TypeScript sources: this test runs from dist/test/unit. */
const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

/** Every relative import and re-export, type-only ones included: they bind the modules as much. */
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((match) => {
      const target = join(dirname(file), match[1]!).replace(/\.js$/, '.ts');
      if (existsSync(target)) return [target];
      const index = join(target.replace(/\.ts$/, ''), 'index.ts');
      return existsSync(index) ? [index] : [];
    });
    graph.set(file, targets);
  }
  return graph;
}

/** One path around each circle found by a depth-first walk, as `a → b → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (file: string) => {
    if (done.has(file)) return;
    const at = onPath.indexOf(file);
    if (at >= 0) {
      found.push([...onPath.slice(at), file].map((f) => relative(SRC, f)).join(' → '));
      return;
    }
    onPath.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    onPath.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

describe('the module structure of src/', () => {
  it('reads the imports of every source file', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(join(SRC, 'workflows/decisions.ts'))).toContain(
      join(SRC, 'workflows/decision-judge.ts'),
    );
  });

  it('has no import cycle: no two modules import each other, directly or through others', () => {
    expect(cycles(importGraph())).toEqual([]);
  });
});
