/**
 * Puts the keyboard focus back where it was when a dialog goes away (issue 19, accessibility).
 *
 * Mantine's Modal returns the focus to its opener when `opened` turns false, but most dialogs of
 * the app are mounted only while open (`{editing && <AssetEditor … />}`): they unmount at once,
 * Mantine never sees them close and the focus falls to <body>, so a keyboard user starts over
 * from the top of the page. This remembers the last element focused outside any dialog or menu
 * and, when a removed subtree held a dialog and the focus is left on nothing, focuses it again
 * (the "New asset" button, or the row's actions button a menu item was chosen from).
 */
const OVERLAY = '[role="dialog"], [role="menu"], [role="listbox"]';

export function installFocusReturn(doc: Document = document): void {
  let last: HTMLElement | null = null;
  doc.addEventListener('focusin', (event) => {
    const target = event.target;
    if (target instanceof HTMLElement && !target.closest(OVERLAY)) last = target;
  });
  const removedDialog = (records: MutationRecord[]) =>
    records.some((record) => Array.from(record.removedNodes).some((node) => node instanceof Element && (node.matches('[role="dialog"]') || node.querySelector('[role="dialog"]'))));
  new MutationObserver((records) => {
    const lost = !doc.activeElement || doc.activeElement === doc.body;
    if (lost && last?.isConnected && !doc.querySelector('[role="dialog"]') && removedDialog(records)) last.focus({ preventScroll: true });
  }).observe(doc.body, { childList: true, subtree: true });
}
