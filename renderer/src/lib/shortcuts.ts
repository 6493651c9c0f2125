import { useEffect, type RefObject } from 'react';

/**
 * The keyboard shortcuts of the whole app (components/Shortcuts.tsx reads this list for both the
 * key handling and the sheet `?` opens), and the way `/` reaches the search box of the Records
 * screen, which may not be on screen yet when the key is pressed.
 */
export const G_ROUTES: Readonly<Record<string, string>> = {
  d: '/',
  r: '/records',
  i: '/inbox',
  a: '/assets',
  s: '/stats',
  v: '/savings',
  p: '/push',
  f: '/files',
  ',': '/settings',
};

let pendingFocus = false;
const focusTargets = new Set<() => void>();

/** Focuses the search box now, or as soon as the Records screen shows it. */
export function requestSearchFocus(): void {
  if (focusTargets.size === 0) pendingFocus = true;
  for (const focus of focusTargets) focus();
}

/** Makes an input the target of requestSearchFocus(). */
export function useSearchFocusTarget(ref: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const focus = () => {
      ref.current?.focus();
      ref.current?.select();
    };
    focusTargets.add(focus);
    if (pendingFocus) {
      pendingFocus = false;
      focus();
    }
    return () => {
      focusTargets.delete(focus);
    };
  }, [ref]);
}

/** Whether a key press belongs to a field being typed in (shortcuts never fire there). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'range', 'color'].includes((target as HTMLInputElement).type);
  const role = target.getAttribute('role');
  return role === 'textbox' || role === 'combobox' || role === 'searchbox';
}
