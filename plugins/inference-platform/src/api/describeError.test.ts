import { ResponseError } from '@backstage/errors';
import { describeError } from './describeError';

async function responseError(status: number, message: string) {
  return ResponseError.fromResponse(
    new Response(
      JSON.stringify({
        error: { name: 'InputError', message },
        response: { statusCode: status },
      }),
      {
        status,
        statusText: 'x',
        headers: { 'Content-Type': 'application/json' },
      },
    ),
  );
}

describe('describeError', () => {
  it("passes the API server's validation message on", async () => {
    const e = await responseError(
      400,
      'spec.qdrant.replicas: Invalid value: 0: must be >= 1',
    );
    expect(describeError(e)).toBe(
      'Rejected: spec.qdrant.replicas: Invalid value: 0: must be >= 1',
    );
  });

  it('says what to do on permission errors and conflicts', async () => {
    expect(describeError(await responseError(403, 'denied'))).toMatch(
      /Ask an administrator/,
    );
    expect(describeError(await responseError(409, 'changed'))).toMatch(
      /try again/,
    );
  });

  it('falls back to the message of any other error', () => {
    expect(describeError(new TypeError('Failed to fetch'))).toBe(
      'Failed to fetch',
    );
  });
});
