import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A process started as `sh -c 'node script; true'` (a launcher that does not
 * pass signals on, as npx's shell does) stops by itself when the shell is
 * terminated, and keeps running while it is there.
 */
describe('onLauncherExit', () => {
  it('fires when the launching shell is killed, not before', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launcher-'));
    const marker = path.join(dir, 'gone');
    const script = path.join(dir, 'child.ts');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
import { onLauncherExit } from ${JSON.stringify(path.join(__dirname, 'onLauncherExit'))};
onLauncherExit(() => { fs.writeFileSync(${JSON.stringify(marker)}, 'gone'); process.exit(0); }, 100);
setInterval(() => {}, 1000);
fs.writeFileSync(${JSON.stringify(path.join(dir, 'started'))}, String(process.pid));
`,
    );
    const tsx = require.resolve('tsx');
    const shell = spawn('sh', ['-c', `"${process.execPath}" --import "${tsx}" "${script}"; true`], { stdio: 'ignore' });
    const wait = async (file: string) => {
      for (let i = 0; i < 200 && !fs.existsSync(file); i++) await new Promise(r => setTimeout(r, 100));
      return fs.existsSync(file);
    };
    expect(await wait(path.join(dir, 'started'))).toBe(true);
    const child = Number(fs.readFileSync(path.join(dir, 'started'), 'utf8'));
    await new Promise(r => setTimeout(r, 500));
    expect(fs.existsSync(marker)).toBe(false);
    shell.kill('SIGTERM');
    const fired = await wait(marker);
    if (!fired) process.kill(child, 'SIGKILL');
    expect(fired).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
