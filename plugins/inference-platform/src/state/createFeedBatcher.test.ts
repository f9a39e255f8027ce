import { PlatformsState } from './PlatformsState';
import { createFeedBatcher } from './createFeedBatcher';
import { samplePlatform } from '../__testUtils__/samplePlatform';

function manualSchedule() {
  const queue: Array<() => void> = [];
  return {
    schedule: (flush: () => void) => {
      queue.push(flush);
      return () => queue.splice(queue.indexOf(flush), 1);
    },
    runFrame: () => queue.splice(0).forEach(f => f()),
    get scheduled() {
      return queue.length;
    },
  };
}

describe('createFeedBatcher', () => {
  it('applies the events of one frame together, keeping the last per platform', () => {
    const state = new PlatformsState();
    const frames = manualSchedule();
    const batcher = createFeedBatcher(state, frames.schedule);
    batcher.snapshot([samplePlatform('a', { inference: [0, 3] })]);
    let revisions = 0;
    state.store.sub(state.revisionAtom, () => revisions++);

    batcher.change({
      type: 'MODIFIED',
      platform: samplePlatform('a', { inference: [1, 3] }),
    });
    batcher.change({ type: 'ADDED', platform: samplePlatform('b') });
    batcher.change({
      type: 'MODIFIED',
      platform: samplePlatform('a', { inference: [2, 3] }),
    });
    expect(frames.scheduled).toBe(1);
    expect(state.platform('team-a/a')?.status?.inferenceReadyReplicas).toBe(0);

    frames.runFrame();
    expect(state.platform('team-a/a')?.status?.inferenceReadyReplicas).toBe(2);
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/a', 'team-a/b']);
    expect(revisions).toBe(1);
  });

  it('lets a delete win over an earlier change in the same frame', () => {
    const state = new PlatformsState();
    const frames = manualSchedule();
    const batcher = createFeedBatcher(state, frames.schedule);
    batcher.snapshot([samplePlatform('a')]);
    batcher.change({
      type: 'MODIFIED',
      platform: samplePlatform('a', { phase: 'Failed' }),
    });
    batcher.change({ type: 'DELETED', platform: samplePlatform('a') });
    frames.runFrame();
    expect(state.store.get(state.keysAtom)).toEqual([]);
  });

  it('drops pending changes that a snapshot supersedes', () => {
    const state = new PlatformsState();
    const frames = manualSchedule();
    const batcher = createFeedBatcher(state, frames.schedule);
    batcher.change({ type: 'ADDED', platform: samplePlatform('stale') });
    batcher.snapshot([samplePlatform('fresh')]);
    expect(frames.scheduled).toBe(0);
    frames.runFrame();
    expect(state.store.get(state.keysAtom)).toEqual(['team-a/fresh']);
  });

  it("keeps another cluster's pending changes when one cluster's snapshot arrives", () => {
    const state = new PlatformsState();
    const frames = manualSchedule();
    const batcher = createFeedBatcher(state, frames.schedule);
    batcher.snapshot([samplePlatform('a')], 'east');
    batcher.snapshot([samplePlatform('a')], 'west');
    batcher.change({
      type: 'ADDED',
      platform: samplePlatform('late'),
      cluster: 'east',
    });
    batcher.change({
      type: 'ADDED',
      platform: samplePlatform('new'),
      cluster: 'west',
    });
    // East's snapshot supersedes east's pending change, not west's.
    batcher.snapshot([samplePlatform('a'), samplePlatform('b')], 'east');
    expect(frames.scheduled).toBe(1);
    frames.runFrame();
    expect(state.store.get(state.keysAtom)).toEqual([
      'east/team-a/a',
      'east/team-a/b',
      'west/team-a/a',
      'west/team-a/new',
    ]);
  });
});
