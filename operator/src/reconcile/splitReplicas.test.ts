import { splitReplicas } from './splitReplicas';

describe('splitReplicas', () => {
  it('gives the canary its weight of the servers once they are ready', () => {
    expect(splitReplicas(5, 20, 1)).toEqual({ stable: 4, canary: 1 });
    expect(splitReplicas(10, 50, 5)).toEqual({ stable: 5, canary: 5 });
    expect(splitReplicas(4, 30, 1)).toEqual({ stable: 3, canary: 1 });
  });

  it('keeps every stable server while the canary is not ready', () => {
    expect(splitReplicas(5, 20, 0)).toEqual({ stable: 5, canary: 1 });
    expect(splitReplicas(10, 50, 2)).toEqual({ stable: 8, canary: 5 });
  });

  it('rounds to at least one canary server and at least one stable server below 100', () => {
    expect(splitReplicas(5, 1, 1)).toEqual({ stable: 4, canary: 1 });
    expect(splitReplicas(5, 99, 4)).toEqual({ stable: 1, canary: 4 });
    // One server: one of each, half the requests each.
    expect(splitReplicas(1, 10, 1)).toEqual({ stable: 1, canary: 1 });
  });

  it('moves everything at 100 and nothing at 0', () => {
    expect(splitReplicas(3, 100, 3)).toEqual({ stable: 0, canary: 3 });
    expect(splitReplicas(3, 100, 1)).toEqual({ stable: 2, canary: 3 });
    expect(splitReplicas(3, 0, 2)).toEqual({ stable: 3, canary: 0 });
    expect(splitReplicas(0, 50, 0)).toEqual({ stable: 0, canary: 0 });
  });
});
