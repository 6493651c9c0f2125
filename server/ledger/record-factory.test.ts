import { describe, expect, it } from 'vitest';
import { cleanTags, editedRecord, newRecord, recordTextProblems, searchTextOf, withText } from './record-factory';

describe('the record factory', () => {
  const stamp = { id: 'r1', userId: 'u1', now: 1_700_000_000_000 };

  it('fills every stored field: defaults, cleaned tags, searchText, created and updated now', () => {
    const doc = newRecord({ type: 'expense', amount: 1250, asset: 'a1', date: 5, description: 'Ｃａｆé Latte', tags: [' lunch ', 'lunch', '', 'ｗｏｒｋ'] }, stamp);
    expect(doc).toEqual({
      id: 'r1',
      userId: 'u1',
      type: 'expense',
      amount: 1250,
      asset: 'a1',
      toAsset: '',
      toAmount: 0,
      fee: 0,
      category: '',
      description: 'Ｃａｆé Latte',
      searchText: 'café latte',
      date: 5,
      tags: ['lunch', 'work'],
      attachments: [],
      importKey: '',
      createdAt: stamp.now,
      updatedAt: stamp.now,
    });
  });

  it('says what keeps text out, counting an emoji as one character, and never cuts', () => {
    expect(recordTextProblems({ description: '😀'.repeat(1000), tags: Array.from({ length: 20 }, (_, i) => `t${i}`) })).toEqual([]);
    expect(recordTextProblems({ description: 'x'.repeat(1001) })).toEqual(['the description has 1001 characters, at most 1000']);
    expect(recordTextProblems({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).toEqual(['21 tags, at most 20']);
    expect(recordTextProblems({ tags: ['y'.repeat(33)] })).toEqual([`the tag "${'y'.repeat(12)}…" has 33 characters, at most 32`]);
  });

  it('keeps searchText with the description on every change, and moves updatedAt past the last write', () => {
    const doc = newRecord({ type: 'income', amount: 1, asset: 'a1', date: 1, description: 'Salary' }, stamp);
    expect(withText(doc, { description: 'BONUS' })).toMatchObject({ description: 'BONUS', searchText: 'bonus', tags: [] });
    expect(withText(doc, { tags: ['a', 'a '] }).tags).toEqual(['a']);
    expect(withText(doc, {})).toEqual(doc);
    expect(editedRecord(doc, stamp.now).updatedAt).toBe(stamp.now + 1); // the clock did not move: still later
    expect(editedRecord(doc, stamp.now + 50).updatedAt).toBe(stamp.now + 50);
    expect(searchTextOf('ＡＢＣ')).toBe('abc');
    expect(cleanTags(undefined)).toEqual([]);
  });
});
