import { expect, it } from 'vitest';
import { categoryKey, foldText, nameKey } from './fold-text';

it('folds compatibility forms and case: one meaning of "the same text"', () => {
  expect(foldText('ＦＯＯＤ Ｃafé')).toBe('food café');
  expect(foldText('  Food ')).toBe('  food ');
  expect(nameKey('  ｆｏｏｄ\t')).toBe('food');
  expect(categoryKey('expense', ' Ｆood')).toBe(categoryKey('expense', 'food'));
  expect(categoryKey('expense', 'Food')).not.toBe(categoryKey('income', 'Food'));
});
