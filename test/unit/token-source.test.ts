import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuthConfig } from '../../src/server/auth.js';
import { TokenSource } from '../../src/server/token-source.js';

function tokensFile(): { file: string; write(tokens: unknown): void } {
  const file = join(mkdtempSync(join(tmpdir(), 'tollgate-tokens-')), 'tokens.json');
  return {
    file,
    write(tokens) {
      writeFileSync(`${file}.new`, typeof tokens === 'string' ? tokens : JSON.stringify(tokens));
      renameSync(`${file}.new`, file);
    },
  };
}

describe('TokenSource', () => {
  it('answers from the file as it is now: a removed token is unknown, a changed role counts', async () => {
    const { file, write } = tokensFile();
    write([{ token: 'tok-carol', id: 'carol', roles: ['finance'] }]);
    const source = new TokenSource(loadAuthConfig({ file }));
    expect(await source.callerOf('tok-carol')).toMatchObject({
      identity: { id: 'carol', roles: ['finance'] },
    });
    write([{ token: 'tok-carol', id: 'carol', roles: ['eng'] }]);
    expect(await source.identityOf('carol')).toEqual({ id: 'carol', roles: ['eng'] });
    write([{ token: 'tok-dave', id: 'dave' }]);
    expect(await source.callerOf('tok-carol')).toBeUndefined();
    expect(await source.identityOf('carol')).toBeUndefined();
    expect(await source.callerOf('tok-dave')).toMatchObject({ identity: { id: 'dave' } });
  });

  it('fails closed while the file is invalid or missing, naming the file, and recovers', async () => {
    const { file, write } = tokensFile();
    write([{ token: 'tok-carol', id: 'carol' }]);
    const reloads: unknown[] = [];
    const source = new TokenSource(loadAuthConfig({ file }), (error) => reloads.push(error));
    write('[{"token": ');
    for (let i = 0; i < 3; i++) {
      await expect(source.callerOf('tok-carol')).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining(file),
      });
    }
    rmSync(file);
    await expect(source.callerOf('tok-carol')).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    write([{ token: 'tok-carol', id: 'carol' }]);
    expect(await source.callerOf('tok-carol')).toMatchObject({ identity: { id: 'carol' } });
    expect(reloads.filter((error) => error !== undefined)).toHaveLength(1);
  });

  it('keeps tokens given in code as they are', async () => {
    const source = new TokenSource({ tokens: [{ token: 'tok-a', id: 'a', roles: ['x'] }] });
    expect(await source.callerOf('tok-a')).toMatchObject({ identity: { id: 'a', roles: ['x'] } });
    expect(await source.callerOf('tok-b')).toBeUndefined();
  });
});
