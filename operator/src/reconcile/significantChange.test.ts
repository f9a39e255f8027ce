import { significantChange } from './PlatformReconciler';

const status = (phase: string, ready: string, reason = 'InferenceRollingOut') => ({
  phase,
  observedGeneration: 1,
  inferenceReadiness: ready,
  message: `rolling out inference: ${ready} ready`,
  conditions: [{ type: 'InferenceReady', status: 'False', reason, message: `${ready} ready`, lastTransitionTime: 't' }],
});

describe('significantChange', () => {
  it('is a new phase, generation or condition status/reason', () => {
    expect(significantChange(undefined, status('Pending', '0/2'))).toBe(true);
    expect(significantChange(status('Loading', '1/2'), status('Ready', '2/2'))).toBe(true);
    expect(significantChange(status('Loading', '1/2'), { ...status('Loading', '1/2'), observedGeneration: 2 })).toBe(true);
    expect(significantChange(status('Loading', '1/2'), status('Loading', '1/2', 'PodsUnschedulable'))).toBe(true);
  });

  it('is not a count or a message moving within the same state', () => {
    expect(significantChange(status('Loading', '0/2'), status('Loading', '1/2'))).toBe(false);
  });

  it('is a condition falling from True or appearing, not one becoming True while the phase stays', () => {
    const withModel = (s: any, modelStatus: string, reason: string) => ({
      ...s,
      conditions: [...s.conditions, { type: 'ModelLoaded', status: modelStatus, reason, message: '', lastTransitionTime: 't' }],
    });
    const loading = status('Loading', '1/2');
    expect(significantChange(withModel(loading, 'False', 'ModelLoading'), withModel(loading, 'True', 'ModelLoaded'))).toBe(false);
    expect(significantChange(withModel(loading, 'True', 'ModelLoaded'), withModel(loading, 'False', 'ModelRollingOut'))).toBe(true);
    expect(significantChange(loading, withModel(loading, 'True', 'ModelLoaded'))).toBe(true);
  });
});
