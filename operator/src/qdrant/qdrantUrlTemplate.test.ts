import { qdrantUrlTemplate } from './qdrantUrlTemplate';

const platform = { metadata: { name: 'shop', namespace: 'ml' } } as any;

describe('qdrantUrlTemplate', () => {
  it('fills in the platform, its StatefulSet and the pod', () => {
    expect(qdrantUrlTemplate('http://gw.example/{namespace}/{statefulSet}/', 'qdrantUrlTemplate', false)(platform)).toBe(
      'http://gw.example/ml/shop-qdrant',
    );
    expect(qdrantUrlTemplate('http://127.0.0.1:9/{namespace}/{name}/pods/{pod}', 'qdrantPeerUrlTemplate', true)(platform, 'shop-qdrant-2')).toBe(
      'http://127.0.0.1:9/ml/shop/pods/shop-qdrant-2',
    );
  });

  it('refuses unknown placeholders and non-URLs, naming the setting', () => {
    expect(() => qdrantUrlTemplate('http://gw/{namespace}/{pod}', 'qdrantUrlTemplate', false)).toThrow(
      'qdrantUrlTemplate http://gw/{namespace}/{pod}: unknown placeholder {pod} (known: {namespace}, {name}, {statefulSet})',
    );
    expect(() => qdrantUrlTemplate('gw/{namespace}', 'qdrantUrlTemplate', false)).toThrow('qdrantUrlTemplate gw/{namespace} is not a URL');
  });
});
