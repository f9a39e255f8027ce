import { inferencePlatformPlugin } from './plugin';

describe('inference-platform plugin', () => {
  it('has the plugin id shared with its backend', () => {
    expect(inferencePlatformPlugin.getId()).toBe('inference-platform');
  });
});
