import { useEffect, useRef, useState } from 'react';
import { Kbd, Modal, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { navigate } from '../lib/router';
import { G_ROUTES, isTyping, requestSearchFocus } from '../lib/shortcuts';

/** How long after `g` the second key of a g-then-key jump is awaited. */
const G_WINDOW_MS = 1500;

/** The keyboard shortcuts (docs/ui.md, "Search, bulk changes, undo and shortcuts"); mounted once in the signed-in shell. */
export function ShortcutLayer() {
  const [open, setOpen] = useState(false);
  const gAt = useRef(0);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      // A dialog has the keyboard (Esc closes it): no shortcut behind it.
      if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
      const key = event.key;
      if (gAt.current && Date.now() - gAt.current < G_WINDOW_MS) {
        gAt.current = 0;
        const to = G_ROUTES[key.toLowerCase()];
        if (to) {
          event.preventDefault();
          navigate(to);
        }
        return;
      }
      if (key === '/') {
        event.preventDefault();
        if (location.pathname !== '/records') navigate('/records');
        requestSearchFocus();
      } else if (key === '?') {
        event.preventDefault();
        setOpen(true);
      } else if (key === 'n') {
        event.preventDefault();
        navigate('/records?new=expense');
      } else if (key === 'g') {
        gAt.current = Date.now();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return <ShortcutSheet opened={open} onClose={() => setOpen(false)} />;
}

function ShortcutSheet({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const rows: Array<[string[], string]> = [
    [['/'], t('shortcuts.search')],
    [['n'], t('shortcuts.newRecord')],
    [['?'], t('shortcuts.sheet')],
    [['Esc'], t('shortcuts.escape')],
    [['Shift', t('shortcuts.click')], t('shortcuts.range')],
    [['g', 'd'], t('shortcuts.go', { screen: t('dashboard.title') })],
    [['g', 'r'], t('shortcuts.go', { screen: t('records.title') })],
    [['g', 'i'], t('shortcuts.go', { screen: t('inbox.title') })],
    [['g', 'a'], t('shortcuts.go', { screen: t('assets.title') })],
    [['g', 's'], t('shortcuts.go', { screen: t('stats.title') })],
    [['g', 'v'], t('shortcuts.go', { screen: t('savings.title') })],
    [['g', 'p'], t('shortcuts.go', { screen: t('push.title') })],
    [['g', 'f'], t('shortcuts.go', { screen: t('files.title') })],
    [['g', ','], t('shortcuts.go', { screen: t('settings.title') })],
  ];
  return (
    <Modal opened={opened} onClose={onClose} title={t('shortcuts.title')} size="md">
      <Table verticalSpacing={6} aria-label={t('shortcuts.title')} data-testid="shortcut-sheet">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('shortcuts.keys')}</Table.Th>
            <Table.Th>{t('shortcuts.does')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([keys, what]) => (
            <Table.Tr key={keys.join('+')}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 && (keys[0] === 'g' ? ' ' : ' + ')}
                    <Kbd>{k}</Kbd>
                  </span>
                ))}
              </Table.Td>
              <Table.Td>{what}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <p className="pp-shortcut-note">{t('shortcuts.note')}</p>
    </Modal>
  );
}
