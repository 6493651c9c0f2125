import { describe, expect, it } from 'vitest';
import { itemAt } from './item-at';

describe('itemAt', () => {
  it('reads an element inside an array or a typed array, null and 0 included', () => {
    expect(itemAt(['a', 'b'], 1)).toBe('b');
    expect(itemAt([null], 0)).toBeNull();
    expect(itemAt(new Uint32Array([0, 7]), 0)).toBe(0);
  });

  it('throws an internal error naming the index and the length outside the list or in a hole', () => {
    expect(() => itemAt(['a'], 1)).toThrow('internal error: no item at index 1 of a list of 1');
    expect(() => itemAt(new Float64Array(2), -1)).toThrow('no item at index -1 of a list of 2');
    expect(() => itemAt(new Array<string>(3), 2)).toThrow('no item at index 2 of a list of 3');
  });
});
