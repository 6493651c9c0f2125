/**
 * How PennyPost decides that two pieces of text are "the same": Unicode NFKC (full-width and
 * compatibility forms become plain ones: ＦＯＯＤ → FOOD) and lower case. One definition for
 * search, names, tags and categories, so "Food", "food" and "ｆｏｏｄ" match everywhere alike.
 * Nothing of Node: the phone app shares it.
 */
export function foldText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** A name, tag or label as a lookup key: folded and without surrounding spaces. */
export function nameKey(name: string): string {
  return foldText(name).trim();
}

/** When two categories are the same category: the same type and the same name key. */
export function categoryKey(type: string, name: string): string {
  return `${type}:${nameKey(name)}`;
}
