import { getDefaultStore } from 'jotai';
import { PlatformsState } from './PlatformsState';
import { samplePlatform } from '../__testUtils__/samplePlatform';

describe('PlatformsState', () => {
  it('keeps one atom per platform and changes only the affected one', () => {
    const state = new PlatformsState();
    state.applySnapshot([samplePlatform('b'), samplePlatform('a')]);
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/a', 'team-a/b']);
    expect(state.store.get(state.loadedAtom)).toBe(true);

    const seen = { a: 0, b: 0, keys: 0 };
    state.store.sub(state.platformAtom('team-a/a'), () => seen.a++);
    state.store.sub(state.platformAtom('team-a/b'), () => seen.b++);
    state.store.sub(state.keysAtom, () => seen.keys++);

    state.applyChange({
      type: 'MODIFIED',
      platform: samplePlatform('a', { phase: 'Degraded' }),
    });
    expect(seen).toEqual({ a: 1, b: 0, keys: 0 });
    expect(state.platform('team-a/a')?.status?.phase).toBe('Degraded');
  });

  it('adds and removes keys in order on ADDED and DELETED', () => {
    const state = new PlatformsState();
    state.applySnapshot([samplePlatform('a'), samplePlatform('c')]);
    state.applyChange({ type: 'ADDED', platform: samplePlatform('b') });
    expect(state.store.get(state.keysAtom)).toEqual([
      'team-a/a',
      'team-a/b',
      'team-a/c',
    ]);
    state.applyChange({ type: 'DELETED', platform: samplePlatform('a') });
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/b', 'team-a/c']);
    expect(state.platform('team-a/a')).toBeUndefined();
  });

  it('replaces everything on a new snapshot but leaves unchanged platforms untouched', () => {
    const state = new PlatformsState();
    const a = samplePlatform('a', { resourceVersion: '10' });
    state.applySnapshot([a, samplePlatform('b')]);
    let aChanges = 0;
    state.store.sub(state.platformAtom('team-a/a'), () => aChanges++);
    state.applySnapshot([{ ...a }, samplePlatform('c')]);
    expect(aChanges).toBe(0);
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/a', 'team-a/c']);
    expect(state.platform('team-a/b')).toBeUndefined();
  });

  it('does not let a late feed event undo a confirmed write', () => {
    const state = new PlatformsState();
    state.applySnapshot([
      samplePlatform('a', { resourceVersion: '100', inference: [1, 1] }),
    ]);
    state.applyConfirmed(
      samplePlatform('a', { resourceVersion: '105', inference: [1, 4] }),
    );
    state.applyChange({
      type: 'MODIFIED',
      platform: samplePlatform('a', {
        resourceVersion: '99',
        inference: [1, 1],
      }),
    });
    expect(state.platform('team-a/a')?.spec.inference.replicas).toBe(4);
    state.applyChange({
      type: 'MODIFIED',
      platform: samplePlatform('a', {
        resourceVersion: '1000',
        inference: [4, 4],
      }),
    });
    expect(state.platform('team-a/a')?.status?.inferenceReadyReplicas).toBe(4);
  });

  it('keeps only the platforms a page asked for', () => {
    const state = new PlatformsState(key => key === 'team-a/b');
    state.applySnapshot([samplePlatform('a'), samplePlatform('b')]);
    state.applyChange({ type: 'ADDED', platform: samplePlatform('c') });
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/b']);
  });

  it('gives every instance its own store', () => {
    const one = new PlatformsState();
    const two = new PlatformsState();
    one.applySnapshot([samplePlatform('a')]);
    expect(one.store).not.toBe(getDefaultStore());
    expect(getDefaultStore().get(one.keysAtom)).toEqual([]);
    expect(two.store.get(two.keysAtom)).toEqual([]);
    expect(two.store.get(two.loadedAtom)).toBe(false);
  });

  it('keys platforms by cluster: the same namespace/name on two clusters are two', () => {
    const state = new PlatformsState();
    state.applySnapshot(
      [samplePlatform('a'), samplePlatform('b', { phase: 'Failed' })],
      'east',
    );
    state.applySnapshot([samplePlatform('a', { phase: 'Degraded' })], 'west');
    expect(state.store.get(state.keysAtom)).toEqual([
      'east/team-a/a',
      'east/team-a/b',
      'west/team-a/a',
    ]);
    expect(state.platform('east/team-a/a')?.status?.phase).toBe('Ready');
    expect(state.platform('west/team-a/a')?.status?.phase).toBe('Degraded');

    // One cluster's snapshot replaces its platforms only.
    state.applySnapshot([], 'east');
    expect(state.store.get(state.keysAtom)).toEqual(['west/team-a/a']);

    state.applyChange({
      type: 'ADDED',
      platform: samplePlatform('c'),
      cluster: 'east',
    });
    state.applyChange({
      type: 'DELETED',
      platform: samplePlatform('a'),
      cluster: 'east',
    });
    expect(state.store.get(state.keysAtom)).toEqual([
      'east/team-a/c',
      'west/team-a/a',
    ]);
    state.applyConfirmed(samplePlatform('a', { phase: 'Loading' }), 'west');
    expect(state.platform('west/team-a/a')?.status?.phase).toBe('Loading');
  });
});
