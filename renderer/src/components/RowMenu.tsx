import type { ReactNode } from 'react';
import { ActionIcon, Menu } from '@mantine/core';

/** The "⋯" menu at the end of a row or a card: a quiet button named for what it acts on, opening the items given. */
export function RowMenu({ label, withinPortal, loading, children }: { label: string; withinPortal?: boolean; loading?: boolean; children: ReactNode }) {
  return (
    <Menu position="bottom-end" withinPortal={withinPortal}>
      <Menu.Target>
        <ActionIcon variant="subtle" aria-label={label} loading={loading}>
          ⋯
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>{children}</Menu.Dropdown>
    </Menu>
  );
}
