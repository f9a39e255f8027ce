import { isSubset, parseQuantity } from './isSubset';

describe('isSubset', () => {
  it('ignores fields only the server has', () => {
    expect(isSubset({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'x', d: 2 }, e: 3 })).toBe(true);
  });

  it('detects a changed or missing field', () => {
    expect(isSubset({ spec: { replicas: 3 } }, { spec: { replicas: 5 } })).toBe(false);
    expect(isSubset({ spec: { replicas: 3 } }, { spec: {} })).toBe(false);
  });

  it('compares lists element by element and by length', () => {
    expect(isSubset([{ name: 'a' }], [{ name: 'a', x: 1 }])).toBe(true);
    expect(isSubset([{ name: 'a' }], [{ name: 'a' }, { name: 'b' }])).toBe(false);
  });

  it('treats equal quantities in other spellings as equal', () => {
    expect(isSubset({ cpu: '1000m' }, { cpu: '1' })).toBe(true);
    expect(isSubset({ memory: '1Gi' }, { memory: '1024Mi' })).toBe(true);
    expect(isSubset({ cpu: '2' }, { cpu: '1' })).toBe(false);
    expect(parseQuantity('500m')).toBe(0.5);
    expect(parseQuantity('not a quantity')).toBeUndefined();
  });
});
