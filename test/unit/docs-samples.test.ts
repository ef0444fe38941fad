import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository: this test runs from dist/test/unit. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * Where the samples are written: inside the package, so `import ... from 'tollgate/client'`
 * resolves through package.json's `exports` to the built declarations, as it does for users.
 */
const OUT = join(ROOT, 'dist', 'docs-samples');

/**
 * A TypeScript sample of the docs. The HTML comment right above its fence may say
 * `<!-- not-checked: why -->` (a deliberate fragment) or `<!-- check-with: declarations -->`
 * (what the sample takes as given, e.g. `declare const db: Db;`, unseen by readers).
 */
interface Sample {
  page: string;
  /** Line of the opening fence, 1-based. */
  line: number;
  lang: 'ts' | 'tsx';
  code: string;
  prelude: string;
  notChecked?: string;
}

function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

function samples(page: string): Sample[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const found: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(ts|tsx)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${page}:${i + 1}: the sample's fence is never closed`);
    const note = commentAbove(lines, i);
    found.push({
      page,
      line: i + 1,
      lang: fence[1] as 'ts' | 'tsx',
      code: lines.slice(i + 1, end).join('\n'),
      prelude: /^check-with:\s*([\s\S]*)$/.exec(note ?? '')?.[1] ?? '',
      ...(note?.startsWith('not-checked:') ? { notChecked: note.slice(12).trim() } : {}),
    });
    i = end;
  }
  return found;
}

/** The text of an HTML comment that ends on the line above `fence` (blank lines between allowed). */
function commentAbove(lines: string[], fence: number): string | undefined {
  let end = fence - 1;
  while (end >= 0 && lines[end]!.trim() === '') end--;
  if (end < 0 || !lines[end]!.trimEnd().endsWith('-->')) return undefined;
  let start = end;
  while (start >= 0 && !lines[start]!.includes('<!--')) start--;
  if (start < 0) return undefined;
  const text = lines.slice(start, end + 1).join('\n');
  return text.slice(text.indexOf('<!--') + 4, text.lastIndexOf('-->')).trim();
}

const all = pages().flatMap(samples);

describe('the TypeScript samples of README.md and docs/*.md', () => {
  it('type-check against the built package, as a user would import it', () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const written = new Map<string, { sample: Sample; offset: number }>();
    for (const sample of all.filter((s) => s.notChecked === undefined)) {
      const name = `${sample.page.replace(/[/.]/g, '-')}-${sample.line}.${sample.lang}`;
      const file = join(OUT, name);
      const head = sample.prelude ? `${sample.prelude}\n` : '';
      writeFileSync(file, `${head}${sample.code}\nexport {};\n`);
      written.set(file, { sample, offset: head.split('\n').length - 1 });
    }
    const program = ts.createProgram([...written.keys()], {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // No DOM lib: Node's types declare fetch, Request and streams, and parsing DOM costs seconds.
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      jsx: ts.JsxEmit.ReactJSX,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const source = diagnostic.file && written.get(diagnostic.file.fileName);
      if (!diagnostic.file || !source) return message;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const where = source.sample.line + 1 + line - source.offset;
      return `${source.sample.page}:${where}: ${message}`;
    });
    expect(problems).toEqual([]);
    expect(written.size).toBeGreaterThan(10);
  });

  it('say why each sample left unchecked is left so', () => {
    const unexplained = all
      .filter((sample) => sample.notChecked === '')
      .map((sample) => `${sample.page}:${sample.line}`);
    expect(unexplained).toEqual([]);
  });
});
