import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * A machine that cannot host real pods must say so and fail, never fall back
 * to simulating them: here, the same request made by an unprivileged user.
 */
describe('a cluster with a real node on a machine that cannot host one', () => {
  it('fails at once naming what is missing', () => {
    const script = `
      const { LocalCluster } = require('./LocalCluster');
      LocalCluster.start({ realNode: true, log: () => {} }).then(
        () => { console.log('started'); process.exit(0); },
        e => { console.error(e.message); process.exit(3); },
      );`;
    const res = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        '--',
        process.execPath,
        '--import',
        'tsx',
        '-e',
        script,
      ],
      {
        cwd: path.resolve(__dirname, '..'),
        encoding: 'utf8',
        env: { ...process.env, HOME: '/tmp' },
        timeout: 60_000,
      },
    );
    expect({ status: res.status, stdout: res.stdout }).toEqual({
      status: 3,
      stdout: '',
    });
    expect(res.stderr).toMatch(
      /this machine cannot run real pods; it lacks: root/,
    );
  });
});
