import { PlatformsState } from './PlatformsState';
import { createListView } from './listView';
import { samplePlatform } from '../__testUtils__/samplePlatform';

function setup() {
  const state = new PlatformsState();
  const view = createListView(state);
  state.applySnapshot([
    samplePlatform('beta', {
      namespace: 'ns-1',
      phase: 'Ready',
      qdrant: [3, 3],
      createdAt: '2024-01-02T00:00:00Z',
    }),
    samplePlatform('alpha', {
      namespace: 'ns-2',
      phase: 'Failed',
      qdrant: [0, 2],
      createdAt: '2024-01-03T00:00:00Z',
      modelUrl: 's3://m/yolo.onnx',
    }),
    samplePlatform('gamma', {
      namespace: 'ns-1',
      phase: 'Loading',
      qdrant: [1, 2],
      createdAt: '2024-01-01T00:00:00Z',
    }),
  ]);
  const visible = () => state.store.get(view.visibleKeysAtom);
  return { state, view, visible };
}

describe('createListView', () => {
  it('sorts by name by default and by any column on request', () => {
    const { state, view, visible } = setup();
    expect(visible()).toEqual(['ns-2/alpha', 'ns-1/beta', 'ns-1/gamma']);
    state.store.set(view.sortAtom, { column: 'phase', direction: 'asc' });
    expect(visible()).toEqual(['ns-2/alpha', 'ns-1/gamma', 'ns-1/beta']);
    state.store.set(view.sortAtom, { column: 'age', direction: 'asc' });
    expect(visible()).toEqual(['ns-2/alpha', 'ns-1/beta', 'ns-1/gamma']);
    state.store.set(view.sortAtom, { column: 'qdrant', direction: 'desc' });
    expect(visible()).toEqual(['ns-1/beta', 'ns-1/gamma', 'ns-2/alpha']);
    state.store.set(view.sortAtom, { column: 'namespace', direction: 'desc' });
    expect(visible()).toEqual(['ns-2/alpha', 'ns-1/gamma', 'ns-1/beta']);
  });

  it('filters by text over name, namespace and model, and by phase', () => {
    const { state, view, visible } = setup();
    state.store.set(view.textAtom, 'YOLO');
    expect(visible()).toEqual(['ns-2/alpha']);
    state.store.set(view.textAtom, 'ns-1');
    expect(visible()).toEqual(['ns-1/beta', 'ns-1/gamma']);
    state.store.set(view.phasesAtom, ['Loading']);
    expect(visible()).toEqual(['ns-1/gamma']);
    state.store.set(view.textAtom, '');
    state.store.set(view.phasesAtom, ['Ready', 'Failed']);
    expect(visible()).toEqual(['ns-2/alpha', 'ns-1/beta']);
  });

  it('keeps the same array while a status change does not move any row', () => {
    const { state, view, visible } = setup();
    let changes = 0;
    state.store.sub(view.visibleKeysAtom, () => changes++);
    const before = visible();
    state.applyChange({
      type: 'MODIFIED',
      platform: samplePlatform('beta', {
        namespace: 'ns-1',
        phase: 'Degraded',
      }),
    });
    expect(visible()).toBe(before);
    expect(changes).toBe(0);

    // Sorted by phase the same event does move the row.
    state.store.set(view.sortAtom, { column: 'phase', direction: 'asc' });
    const byPhase = visible();
    expect(byPhase).toEqual(['ns-2/alpha', 'ns-1/beta', 'ns-1/gamma']);
    state.applyChange({
      type: 'MODIFIED',
      platform: samplePlatform('beta', { namespace: 'ns-1', phase: 'Failed' }),
    });
    // Equal phases fall back to key order: ns-1/beta before ns-2/alpha.
    expect(visible()).toEqual(['ns-1/beta', 'ns-2/alpha', 'ns-1/gamma']);
  });
});
