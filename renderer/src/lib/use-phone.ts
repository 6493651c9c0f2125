import { useMediaQuery } from '@mantine/hooks';

/** Below this width the layout is the phone's (styles/responsive.css, docs/ui.md "Phones and narrow windows"). */
export const PHONE_QUERY = '(max-width: 599.98px)';

/**
 * True on a phone-sized window. Read synchronously on the first render (no flash of the desktop
 * layout), then kept current as the window is resized or turned.
 */
export function usePhone(): boolean {
  return useMediaQuery(PHONE_QUERY, undefined, { getInitialValueInEffect: false });
}
